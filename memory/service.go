package memory

import (
	"context"
	"log/slog"
	"sync"
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
	// StoreEmbedTimeout bounds the wait of a store for its memory's vector; past
	// it the memory is stored pending and the background fill embeds it. Zero:
	// the embedder's own timeout.
	StoreEmbedTimeout time.Duration
	// FillRetry is the first wait of the background fill after Ollama failed
	// (doubling up to FillRetryMax); FillPoll how often it looks for memories
	// other processes left pending. Zero: the defaults below.
	FillRetry    time.Duration
	FillRetryMax time.Duration
	FillPoll     time.Duration
	// MatchMinSimilarity is the similarity floor of a match (see Floor) for
	// forget by query; 0 lets the keywords decide alone.
	MatchMinSimilarity float64
	Logger             *slog.Logger
	Now                func() time.Time // for tests; time.Now when nil
	// Scrub makes content safe to keep before it is stored (private sections
	// dropped, secrets redacted); nil keeps content as given.
	Scrub func(string) string
}

// Service carries out every memory operation over a Store, an Embedder and,
// when plugged in, a Curator.
type Service struct {
	store    Store
	embedder Embedder
	curator  Curator
	opts     Options

	// fillWake tells the background fill that a store left a memory pending.
	fillWake chan struct{}
	// agreement is how often the vector side has agreed with keywords in
	// this process (see vectorWeight).
	agreeMu   sync.Mutex
	agreement Agreement
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
	if opts.FillRetry <= 0 {
		opts.FillRetry = DefaultFillRetry
	}
	if opts.FillRetryMax <= 0 {
		opts.FillRetryMax = DefaultFillRetryMax
	}
	if opts.FillPoll <= 0 {
		opts.FillPoll = DefaultFillPoll
	}
	return &Service{store: store, embedder: embedder, opts: opts, fillWake: make(chan struct{}, 1)}
}

// StoreDefaults are the namespace and importance a memory stored without them
// gets (the tool schemas declare them).
func (s *Service) StoreDefaults() (namespace string, importance float64) {
	return s.opts.DefaultNamespace, s.opts.DefaultImportance
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
