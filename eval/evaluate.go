package eval

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// Search modes an evaluation runs.
const (
	KeywordOnly = "keyword-only"
	Hybrid      = "hybrid"
)

// Options of Evaluate.
type Options struct {
	// Embedder makes the vectors of the memories and of hybrid queries. Nil
	// stores without vectors and runs keyword-only mode alone.
	Embedder memory.Embedder
	// EmbedderName says in the report where vectors came from.
	EmbedderName string
	// Plumbing marks vectors that carry no meaning (a fake server, random
	// weights): hybrid figures then test the plumbing, not retrieval quality.
	Plumbing bool
	// QueryEmbedTimeout bounds the wait for a query's vector, as the server's
	// setting does (zero: the embedder's own timeout).
	QueryEmbedTimeout time.Duration
	// Details keeps every query's outcome in the report.
	Details bool
	// Floor is the prompt hook's relevance floor; nil takes recall's defaults
	// (RECALL_PROMPT_MIN_COVERAGE, RECALL_MATCH_MIN_SIMILARITY).
	Floor  *memory.Floor
	Logger *slog.Logger
}

// DefaultFloor is the prompt hook's floor with recall's default settings.
func DefaultFloor() memory.Floor {
	return memory.Floor{MinCoverage: memory.DefaultPromptMinCoverage, MinSimilarity: memory.DefaultMatchMinSimilarity}
}

// Report is the result of an evaluation.
type Report struct {
	Memories int    `json:"memories"`
	Queries  int    `json:"queries"`
	Embedder string `json:"embedder"`
	Plumbing bool   `json:"hybrid_is_plumbing_only"`
	// Pending counts memories stored without a vector.
	Pending int          `json:"memories_without_vector"`
	Modes   []ModeReport `json:"modes"`
	// VectorChanged counts the prompts whose injection the vector side
	// changed (hybrid against keyword-only), per category; nil without an
	// embedder. It is what a prompt hook gives up when its vector is late.
	VectorChanged map[string]int `json:"hook_vector_changed,omitempty"`
}

// ModeReport is the figures of one search mode.
type ModeReport struct {
	Mode      string    `json:"mode"`
	Summaries []Summary `json:"summaries"`
	Outcomes  []Outcome `json:"outcomes,omitempty"`
}

// Evaluate loads d into a fresh database file in a temporary directory
// through memory.Service, then runs every query in keyword-only mode and, with
// an embedder, in hybrid mode.
func Evaluate(ctx context.Context, d *Dataset, opts Options) (*Report, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	dir, err := os.MkdirTemp("", "recall-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, filepath.Join(dir, "recall.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()

	service := func(e memory.Embedder, log *slog.Logger) *memory.Service {
		return memory.NewService(db, e, memory.Options{QueryEmbedTimeout: opts.QueryEmbedTimeout, Logger: log})
	}
	loadLog := opts.Logger
	if opts.Embedder == nil {
		// Every store would warn that it has no vector, which is the point here.
		loadLog = slog.New(slog.DiscardHandler)
	}
	loaded, err := Populate(ctx, service(opts.Embedder, loadLog), d)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Memories: len(d.Memories),
		Queries:  len(d.Queries),
		Embedder: opts.EmbedderName,
		Plumbing: opts.Plumbing,
		Pending:  loaded.Pending,
	}
	modes := []struct {
		name     string
		embedder memory.Embedder
	}{{KeywordOnly, nil}}
	if opts.Embedder != nil {
		modes = append(modes, struct {
			name     string
			embedder memory.Embedder
		}{Hybrid, opts.Embedder})
	}
	var injected []map[string]Outcome // per mode, by query id
	for _, m := range modes {
		floor := DefaultFloor()
		if opts.Floor != nil {
			floor = *opts.Floor
		}
		outcomes, err := Run(ctx, service(m.embedder, opts.Logger), d, loaded, floor, opts.Logger)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		byQuery := map[string]Outcome{}
		for _, o := range outcomes {
			byQuery[o.QueryID] = o
		}
		injected = append(injected, byQuery)
		mr := ModeReport{Mode: m.name, Summaries: Summarize(d, outcomes)}
		if opts.Details {
			mr.Outcomes = outcomes
		}
		rep.Modes = append(rep.Modes, mr)
	}
	if len(injected) == 2 {
		rep.VectorChanged = vectorChanged(injected[0], injected[1])
	}
	return rep, nil
}

// vectorChanged counts, per category and in all, the prompts whose injected
// memories differ between keyword-only and hybrid.
func vectorChanged(keyword, hybrid map[string]Outcome) map[string]int {
	changed := map[string]int{"all": 0}
	for id, k := range keyword {
		changed[k.Category] += 0
		if !slices.Equal(k.Injected, hybrid[id].Injected) {
			changed[k.Category]++
			changed["all"]++
		}
	}
	return changed
}
