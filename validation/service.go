// Package validation curates memories: the validation loop (apply, outcome,
// validate, history) that moves confidence and promotes golden rules,
// contradiction detection and supersede checks judged by the chat model,
// relationship inference on store (queued in the database, run by a small
// worker pool), health analysis and the context injected into sessions.
package validation

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Defaults of Options.
const (
	DefaultContradictionThreshold = 0.7
	DefaultStaleDays              = 30
	DefaultWorkers                = 2
	DefaultTokenBudget            = 4000
)

// Options are the curation settings (from config). Zero values take the
// defaults above, except Enabled: false switches relationship inference on
// store off (RECALL_CURATION=off); the explicit tools keep working.
type Options struct {
	ContradictionThreshold float64
	StaleDays              int
	Workers                int
	Enabled                bool
	DefaultTokenBudget     int
	Logger                 *slog.Logger
	Now                    func() time.Time // for tests; time.Now when nil
}

// Service carries out the curation operations.
type Service struct {
	store    memory.Store
	mem      *memory.Service
	embedder memory.Embedder
	judge    memory.Judge
	opts     Options

	mu      sync.Mutex
	started bool
	stop    context.CancelFunc // ends the claim loop
	wake    chan struct{}      // a job was enqueued
	done    chan struct{}      // closed when the worker pool has drained
}

// New builds a curation Service. embedder and judge may be nil: the operations
// that need them then report why they could not run.
func New(store memory.Store, mem *memory.Service, embedder memory.Embedder, judge memory.Judge, opts Options) *Service {
	if opts.ContradictionThreshold == 0 {
		opts.ContradictionThreshold = DefaultContradictionThreshold
	}
	if opts.StaleDays == 0 {
		opts.StaleDays = DefaultStaleDays
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.DefaultTokenBudget <= 0 {
		opts.DefaultTokenBudget = DefaultTokenBudget
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{
		store: store, mem: mem, embedder: embedder, judge: judge, opts: opts,
		wake: make(chan struct{}, 1),
	}
}

var _ memory.Curator = (*Service)(nil)

func (s *Service) now() time.Time { return s.opts.Now().UTC() }

func (s *Service) log() *slog.Logger { return s.opts.Logger }

var errNotImplemented = errors.New("not implemented yet")

// Apply records that a memory is being applied.
func (s *Service) Apply(ctx context.Context, req ApplyRequest) (*ApplyResult, error) {
	return nil, errNotImplemented
}

// Outcome records the outcome of applying a memory.
func (s *Service) Outcome(ctx context.Context, req OutcomeRequest) (*OutcomeResult, error) {
	return nil, errNotImplemented
}

// Validate adjusts a memory's confidence directly.
func (s *Service) Validate(ctx context.Context, req ValidateRequest) (*ValidateResult, error) {
	return nil, errNotImplemented
}

// History lists a memory's validation events.
func (s *Service) History(ctx context.Context, req HistoryRequest) (*HistoryResult, error) {
	return nil, errNotImplemented
}

// DetectContradictions looks for memories contradicting one memory.
func (s *Service) DetectContradictions(ctx context.Context, req DetectRequest) (*DetectResult, error) {
	return nil, errNotImplemented
}

// CheckSupersedes asks whether a memory supersedes an older one.
func (s *Service) CheckSupersedes(ctx context.Context, req SupersedeRequest) (*SupersedeResult, error) {
	return nil, errNotImplemented
}

// AnalyzeHealth reports what needs attention.
func (s *Service) AnalyzeHealth(ctx context.Context, req HealthRequest) (*HealthReport, error) {
	return nil, errNotImplemented
}

// Context builds the markdown context for a session.
func (s *Service) Context(ctx context.Context, req ContextRequest) (*ContextResult, error) {
	return nil, errNotImplemented
}

// MemoryStored queues relationship inference for a new memory.
func (s *Service) MemoryStored(ctx context.Context, m *memory.Memory) []memory.AutoRelationship {
	return []memory.AutoRelationship{}
}

// Start starts the worker pool.
func (s *Service) Start(ctx context.Context) {}

// Close drains the worker pool.
func (s *Service) Close(ctx context.Context) error { return nil }
