package memory

import (
	"cmp"
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
	// storing holds the ids of memories whose store is embedding them now:
	// the background fill leaves them to it instead of embedding them twice.
	storing sync.Map
	// agreement is how often the vector side has agreed with keywords in
	// this process, for a store that keeps no record (see vectorShare);
	// unrecorded and recordedAt batch the writes of one that does.
	agreeMu    sync.Mutex
	agreement  Agreement
	unrecorded []AgreementSearch
	recordedAt time.Time
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
	opts.DefaultNamespace = cmp.Or(opts.DefaultNamespace, GlobalNamespace)
	opts.DefaultImportance = cmp.Or(opts.DefaultImportance, DefaultImportance)
	opts.DefaultConfidence = cmp.Or(opts.DefaultConfidence, DefaultConfidence)
	opts.FillRetry = PositiveOr(opts.FillRetry, DefaultFillRetry)
	opts.FillRetryMax = PositiveOr(opts.FillRetryMax, DefaultFillRetryMax)
	opts.FillPoll = PositiveOr(opts.FillPoll, DefaultFillPoll)
	return &Service{store: store, embedder: embedder, opts: opts, fillWake: make(chan struct{}, 1)}
}

// PositiveOr is v when it is above zero, otherwise def: an option left at
// zero (or set below it) takes its default.
func PositiveOr[T int | int64 | float64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// StoreDefaults are the namespace and importance a memory stored without them
// gets (the tool schemas declare them).
func (s *Service) StoreDefaults() (namespace string, importance float64) {
	return s.opts.DefaultNamespace, s.opts.DefaultImportance
}

// SetCurator plugs in curation after store (relationship inference, contradictions).
func (s *Service) SetCurator(c Curator) { s.curator = c }

// Get returns one memory by id.
func (s *Service) Get(ctx context.Context, id string) (*Memory, error) {
	if err := ValidateID("memory_id", id); err != nil {
		return nil, err
	}
	return s.store.GetMemory(ctx, id)
}

// GetMany returns the memories that exist among ids, keyed by id (a missing
// one is no error: the caller shows what is there).
func (s *Service) GetMany(ctx context.Context, ids []string) (map[string]*Memory, error) {
	return s.store.GetMemories(ctx, ids)
}

// EdgesByID returns the edges among ids that exist.
func (s *Service) EdgesByID(ctx context.Context, ids []int64) ([]Edge, error) {
	if len(ids) == 0 {
		return []Edge{}, nil
	}
	return s.store.Edges(ctx, EdgeQuery{EdgeIDs: ids})
}

// Stats counts what the store holds (recall stats, the viewer's Health page).
func (s *Service) Stats(ctx context.Context) (*Stats, error) { return s.store.Stats(ctx) }

// CountMemoriesBy counts the memories the asker sees by author or by source:
// the viewer's filters offer what is there, without reading all of Stats.
func (s *Service) CountMemoriesBy(ctx context.Context, by Facet) (map[string]int, error) {
	if by != FacetAuthor && by != FacetSource {
		return nil, invalid("facet", string(by), "author or source")
	}
	return s.store.CountMemoriesBy(ctx, by)
}

// ProjectSummaries lists the project namespaces that hold memories or are
// bound to a directory, as recall projects lists them.
func (s *Service) ProjectSummaries(ctx context.Context) ([]ProjectSummary, error) {
	return s.store.ProjectSummaries(ctx)
}

// RecordSession records a Claude Code session's start or end.
func (s *Service) RecordSession(ctx context.Context, sess *Session) error {
	return s.store.UpsertSession(ctx, sess)
}

// Trash lists the deleted and archived memories that can still be restored,
// last deleted first. It only reads.
func (s *Service) Trash(ctx context.Context) ([]TrashItem, error) { return s.store.Trash(ctx) }

// Restore puts a deleted or archived memory back from the trash, in one
// transaction: its id, its edges to memories that still exist, its events
// and its change log, with the restore added. Its vector is made again (it
// comes back pending, filled in the background).
func (s *Service) Restore(ctx context.Context, id string) (*ImportResult, error) {
	if err := ValidateID("memory_id", id); err != nil {
		return nil, err
	}
	res, err := s.store.RestoreMemory(ctx, id)
	if err == nil {
		s.wakeFill()
	}
	return res, err
}

func (s *Service) now() time.Time { return s.opts.Now().UTC() }

func (s *Service) log() *slog.Logger { return s.opts.Logger }
