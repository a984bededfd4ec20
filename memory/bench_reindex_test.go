package memory_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// BenchmarkReindexVersusRawEmbed reindexes 1,000 memories of mixed length and
// compares the time with Ollama's own /api/embed for the same texts (requests
// of 64 texts, no timeout: the least a reindex could take). It reports
// reindex-s, raw-s and ratio (reindex / raw). Against the lab's 24-layer
// embedder:
//
//	OLLAMA_HOST=http://127.0.0.1:11434 RECALL_OLLAMA_MODEL=mxbai-embed-large-24l \
//	  go test -tags sqlite_fts5 ./memory/ -run '^$' -bench ReindexVersusRawEmbed -benchtime 1x -timeout 1h
//
// Without OLLAMA_HOST it runs against the fake server with a per-token delay.
// RECALL_BENCH_MEMORIES sets another number of memories.
func BenchmarkReindexVersusRawEmbed(b *testing.B) {
	host, model := benchOllama(b)
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("RECALL_BENCH_MEMORIES")); err == nil && v > 0 {
		n = v // fewer, on a machine too busy for 1,000
	}
	texts := mixedTexts(n)
	for b.Loop() {
		db := openStore(b)
		keywordsOnly := memory.NewService(db, nil, memory.Options{Logger: slog.New(slog.DiscardHandler)})
		for _, t := range texts {
			if _, err := keywordsOnly.Remember(context.Background(), memory.StoreRequest{Content: t}); err != nil {
				b.Fatal(err)
			}
		}
		raw := rawEmbedTime(b, host, model, texts)

		client, err := embedding.New(embedding.Options{Host: host, EmbedModel: model})
		if err != nil {
			b.Fatal(err)
		}
		svc := memory.NewService(db, client, memory.Options{Logger: slog.New(slog.DiscardHandler)})
		start := time.Now()
		p, err := svc.Reindex(context.Background(), nil)
		took := time.Since(start)
		if err != nil || p.Done != len(texts) {
			b.Fatalf("reindex: %+v, %v", p, err)
		}
		b.ReportMetric(took.Seconds(), "reindex-s")
		b.ReportMetric(raw.Seconds(), "raw-s")
		b.ReportMetric(took.Seconds()/raw.Seconds(), "ratio")
	}
}

// benchOllama is the real Ollama of OLLAMA_HOST with RECALL_OLLAMA_MODEL, or a
// fake one that takes 50 µs a token.
func benchOllama(b *testing.B) (host, model string) {
	model = os.Getenv("RECALL_OLLAMA_MODEL")
	if model == "" {
		model = ollamatest.DefaultEmbedModel
	}
	if h := os.Getenv("OLLAMA_HOST"); h != "" {
		if !strings.Contains(h, "://") {
			h = "http://" + h
		}
		return h, model
	}
	fake := ollamatest.New(b, ollamatest.WithModels(model))
	fake.SetTokenDelay(50 * time.Microsecond)
	return fake.URL(), model
}

// mixedTexts makes n memories: 60% a sentence or two, 30% a paragraph, 10%
// longer than the model's 512-token context.
func mixedTexts(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]string, n)
	for i := range out {
		words := 10 + r.IntN(30)
		switch p := r.IntN(10); {
		case p >= 9:
			words = 400 + r.IntN(300)
		case p >= 6:
			words = 60 + r.IntN(140)
		}
		out[i] = benchText(r, words)
	}
	return out
}

// rawEmbedTime is how long Ollama takes to embed texts, 64 per request.
func rawEmbedTime(b *testing.B, host, model string, texts []string) time.Duration {
	base, err := url.Parse(host)
	if err != nil {
		b.Fatal(err)
	}
	client := api.NewClient(base, http.DefaultClient)
	start := time.Now()
	for i := 0; i < len(texts); i += 64 {
		batch := texts[i:min(i+64, len(texts))]
		if _, err := client.Embed(context.Background(), &api.EmbedRequest{Model: model, Input: batch}); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}
