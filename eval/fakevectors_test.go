package eval_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/eval"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// figures are R@10 and MRR over the related queries.
type figures struct{ r10, mrr float64 }

// evaluateWith runs the evaluation with vectors made by fn and returns the
// figures of keyword-only, hybrid and vector-only search.
func evaluateWith(t *testing.T, d *eval.Dataset, fn ollamatest.VectorFunc) (kw, hybrid, vector figures) {
	t.Helper()
	ctx := context.Background()
	fake := ollamatest.New(t, ollamatest.WithVectors(fn))
	client, err := embedding.New(embedding.Options{Host: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	rep, err := eval.Evaluate(ctx, d, eval.Options{Embedder: client, EmbedderName: "fake", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Modes {
		for _, s := range m.Summaries {
			if s.Category != eval.Related {
				continue
			}
			f := figures{s.RecallAt10, s.MRR}
			if m.Mode == eval.KeywordOnly {
				kw = f
			} else {
				hybrid = f
			}
		}
	}
	return kw, hybrid, vectorOnly(t, d, client)
}

// vectorOnly ranks every related query by vector similarity alone.
func vectorOnly(t *testing.T, d *eval.Dataset, client *embedding.Client) figures {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := memory.NewService(db, client, memory.Options{Logger: slog.New(slog.DiscardHandler)})
	loaded, err := eval.Populate(ctx, svc, d)
	if err != nil {
		t.Fatal(err)
	}
	var r10, mrr float64
	n := 0
	for _, q := range d.Queries {
		if q.Category == eval.Unrelated {
			continue
		}
		vec, err := client.EmbedQuery(ctx, q.Query)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := db.SearchVector(ctx, vec, memory.Filter{}, eval.Depth)
		if err != nil {
			t.Fatal(err)
		}
		ranked := make([]string, len(hits))
		for i, h := range hits {
			ranked[i] = loaded.DatasetID(h.ID)
		}
		r10 += eval.RecallAt(ranked, q.Relevant, 10)
		mrr += eval.ReciprocalRank(ranked, q.Relevant)
		n++
	}
	return figures{r10 / float64(n), mrr / float64(n)}
}

// judgedVectors makes a strong embedder for the dataset: its queries point at
// their relevant memories, blurred by noise.
func judgedVectors(d *eval.Dataset, noise float64) ollamatest.VectorFunc {
	relevant := map[string][]string{}
	for _, q := range d.Queries {
		for _, id := range q.Relevant {
			if m, ok := d.MemoryByID(id); ok {
				relevant[q.Query] = append(relevant[q.Query], m.Content)
			}
		}
	}
	return ollamatest.RelevanceVectors(relevant, noise)
}

// Vectors that mean nothing must not make search worse than keywords alone;
// vectors that carry meaning must make it better than either side alone.
func TestHybridSearchWithMeaninglessAndStrongVectors(t *testing.T) {
	d, err := eval.Load()
	if err != nil {
		t.Fatal(err)
	}
	kw, hybrid, vector := evaluateWith(t, d, ollamatest.NoiseVectors)
	t.Logf("meaningless vectors: keyword R@10 %.3f MRR %.3f | hybrid %.3f %.3f | vector %.3f %.3f", kw.r10, kw.mrr, hybrid.r10, hybrid.mrr, vector.r10, vector.mrr)
	if hybrid.r10 < kw.r10-0.005 || hybrid.mrr < kw.mrr-0.005 {
		t.Errorf("meaningless vectors made hybrid worse than keyword-only: R@10 %.3f vs %.3f, MRR %.3f vs %.3f", hybrid.r10, kw.r10, hybrid.mrr, kw.mrr)
	}

	// At 0.77 the strong embedder alone finds about 70% of the relevant
	// memories in its top 10: good, not perfect, so both sides have something
	// to add. RECALL_EVAL_NOISE tries another level.
	noise := 0.77
	if v := os.Getenv("RECALL_EVAL_NOISE"); v != "" {
		noise, _ = strconv.ParseFloat(v, 64)
	}
	kw, hybrid, vector = evaluateWith(t, d, judgedVectors(d, noise))
	t.Logf("strong vectors (noise %.2f): keyword R@10 %.3f MRR %.3f | hybrid %.3f %.3f | vector %.3f %.3f", noise, kw.r10, kw.mrr, hybrid.r10, hybrid.mrr, vector.r10, vector.mrr)
	if hybrid.r10 <= kw.r10 || hybrid.mrr <= kw.mrr || hybrid.r10 <= vector.r10 || hybrid.mrr <= vector.mrr {
		t.Errorf("strong vectors: hybrid must beat keyword-only and vector-only on R@10 and MRR")
	}
}
