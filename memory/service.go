package memory

import (
	"context"
	"log/slog"
	"time"
)

// Options are the Service's settings (from config).
type Options struct {
	DefaultNamespace   string
	DefaultImportance  float64
	DefaultConfidence  float64
	DefaultTokenBudget int
	// QueryEmbedTimeout bounds the wait for a search query's vector; past it
	// recall answers from keywords and says so. Zero: the embedder's own timeout.
	// A store may wait longer, since its vector is worth more than a moment.
	QueryEmbedTimeout time.Duration
	// MatchMinSimilarity is the similarity floor of a match (see Floor) for
	// forget by query; 0 lets the keywords decide alone.
	MatchMinSimilarity float64
	Logger             *slog.Logger
	Now                func() time.Time // for tests; time.Now when nil
}

// Service carries out every memory operation over a Store, an Embedder and,
// when plugged in, a Curator.
type Service struct {
	store    Store
	embedder Embedder
	curator  Curator
	opts     Options
}

// NewService builds a Service. embedder may be nil (keywords only). Zero
// options take the documented defaults: namespace global, importance 0.5,
// confidence 0.3.
func NewService(store Store, embedder Embedder, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.DefaultNamespace == "" {
		opts.DefaultNamespace = GlobalNamespace
	}
	if opts.DefaultImportance == 0 {
		opts.DefaultImportance = DefaultImportance
	}
	if opts.DefaultConfidence == 0 {
		opts.DefaultConfidence = DefaultConfidence
	}
	return &Service{store: store, embedder: embedder, opts: opts}
}

// SetCurator plugs in curation after store (relationship inference, contradictions).
func (s *Service) SetCurator(c Curator) { s.curator = c }

// Store returns the underlying store (validation works on it directly).
func (s *Service) Store() Store { return s.store }

// Get returns one memory by id.
func (s *Service) Get(ctx context.Context, id string) (*Memory, error) {
	if err := ValidateID("memory_id", id); err != nil {
		return nil, err
	}
	return s.store.GetMemory(ctx, id)
}

func (s *Service) now() time.Time { return s.opts.Now().UTC() }

func (s *Service) log() *slog.Logger { return s.opts.Logger }
