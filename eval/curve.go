package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// CurveOptions choose the oracle runs of Curve.
type CurveOptions struct {
	// Noises are the oracle's noise levels, 0 (perfect) to 1 (meaningless).
	Noises []float64
	// Anisotropic gives every vector a shared direction (see Oracle).
	Anisotropic bool
	// Dim is the vectors' dimension (1024, as mxbai-embed-large's, when 0).
	Dim  int
	Seed uint64
	// Dir holds the database file (a temporary directory when empty).
	Dir    string
	Logger *slog.Logger
}

// Figures are R@10 and MRR over the related queries.
type Figures struct {
	RecallAt10 float64 `json:"recall_at_10"`
	MRR        float64 `json:"mrr"`
}

// CurvePoint is the figures of the three ways to search at one noise level.
type CurvePoint struct {
	Memories    int     `json:"memories"`
	Anisotropic bool    `json:"anisotropic"`
	Noise       float64 `json:"noise"`
	Keyword     Figures `json:"keyword_only"`
	Vector      Figures `json:"vector_only"`
	Hybrid      Figures `json:"hybrid"`
	// VectorWeight is the mean weight the fusion gave the vector side, over
	// the related queries and over the unrelated ones.
	VectorWeight          float64 `json:"vector_weight"`
	VectorWeightUnrelated float64 `json:"vector_weight_unrelated"`
}

// Curve stores d once with the oracle's vectors, then asks every query at
// each noise level in keyword-only mode, by vector similarity alone (the
// store's vector search, 10 results) and in hybrid mode (recall of 10, as
// memory_recall_tool answers it). Keyword-only figures do not depend on the
// noise; they are measured once.
func Curve(ctx context.Context, d *Dataset, opts CurveOptions) ([]CurvePoint, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Dim == 0 {
		opts.Dim = 1024
	}
	dir := opts.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "recall-curve-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	db, err := sqlite.Open(ctx, filepath.Join(dir, fmt.Sprintf("curve-%d.db", len(d.Memories))))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	oracle := NewOracle(d, opts.Dim, opts.Anisotropic, opts.Seed)
	hybridSvc := memory.NewService(db, oracle, memory.Options{Logger: opts.Logger})
	loaded, err := Populate(ctx, hybridSvc, d)
	if err != nil {
		return nil, err
	}
	keywordSvc := memory.NewService(db, nil, memory.Options{Logger: opts.Logger})

	var judged []Query
	for _, q := range d.Queries {
		if len(q.Relevant) > 0 {
			judged = append(judged, q)
		}
	}
	recall := func(svc *memory.Service, q Query) ([]string, float64, error) {
		res, err := svc.Recall(ctx, memory.RecallRequest{Query: q.Query, NResults: Depth, SkipAccessUpdate: true})
		if err != nil {
			return nil, 0, fmt.Errorf("query %s: %w", q.ID, err)
		}
		return loaded.datasetIDs(storeIDs(res.Memories)), res.VectorWeight, nil
	}
	var kw figureSum
	for _, q := range judged {
		ranked, _, err := recall(keywordSvc, q)
		if err != nil {
			return nil, err
		}
		kw.add(ranked, q.Relevant)
	}
	var out []CurvePoint
	for _, noise := range opts.Noises {
		oracle.SetNoise(noise)
		// Each level is another model: the fusion's record of how the model
		// agreed with keywords starts afresh, and so does the service, which
		// holds the searches it has not written to the record yet.
		if err := db.ForgetVectorAgreement(ctx); err != nil {
			return nil, err
		}
		hybridSvc = memory.NewService(db, oracle, memory.Options{Logger: opts.Logger})
		p := CurvePoint{Memories: len(d.Memories), Anisotropic: opts.Anisotropic, Noise: noise, Keyword: kw.figures()}
		var vec, hyb figureSum
		var weights, unrelatedWeights []float64
		for _, q := range d.Queries {
			ranked, w, err := recall(hybridSvc, q)
			if err != nil {
				return nil, err
			}
			if len(q.Relevant) == 0 {
				unrelatedWeights = append(unrelatedWeights, w)
				continue
			}
			weights = append(weights, w)
			hyb.add(ranked, q.Relevant)
			qv, err := oracle.EmbedQuery(ctx, q.Query)
			if err != nil {
				return nil, err
			}
			hits, err := db.SearchVector(ctx, qv, memory.Filter{}, Depth)
			if err != nil {
				return nil, err
			}
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			vec.add(loaded.datasetIDs(ids), q.Relevant)
		}
		p.Vector, p.Hybrid = vec.figures(), hyb.figures()
		p.VectorWeight, p.VectorWeightUnrelated = mean(weights), mean(unrelatedWeights)
		out = append(out, p)
	}
	return out, nil
}

type figureSum struct{ r10, rr []float64 }

func (s *figureSum) add(ranked, relevant []string) {
	s.r10 = append(s.r10, RecallAt(ranked, relevant, 10))
	s.rr = append(s.rr, ReciprocalRank(ranked, relevant))
}

func (s *figureSum) figures() Figures { return Figures{RecallAt10: mean(s.r10), MRR: mean(s.rr)} }

// WriteCurve prints curve points as a table, one line per noise level.
func WriteCurve(w io.Writer, title string, points []CurvePoint) error {
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "memories\tanisotropic\tnoise\tkeyword R@10\tMRR\tvector R@10\tMRR\thybrid R@10\tMRR\tvector weight\t(unrelated)\t")
	for _, p := range points {
		fmt.Fprintf(tw, "%d\t%v\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t\n",
			p.Memories, p.Anisotropic, p.Noise, p.Keyword.RecallAt10, p.Keyword.MRR,
			p.Vector.RecallAt10, p.Vector.MRR, p.Hybrid.RecallAt10, p.Hybrid.MRR,
			p.VectorWeight, p.VectorWeightUnrelated)
	}
	return tw.Flush()
}
