// Package validation curates memories: the validation loop (apply, outcome,
// validate, history) that moves confidence and promotes golden rules,
// contradiction detection and supersede checks judged by the chat model,
// relationship inference on store (queued in the database, run by a small
// worker pool), health analysis and the context injected into sessions.
package validation

import (
	"cmp"
	"log/slog"
	"sync"
	"time"

	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
)

// Defaults of Options.
const (
	DefaultContradictionThreshold = 0.7
	DefaultStaleDays              = 30
	DefaultWorkers                = 2
	DefaultTokenBudget            = 4000
	DefaultJudgeTimeout           = 60 * time.Second
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
	// JudgeTimeout bounds one chat-model judgment; one that takes longer is a
	// failed judgment.
	JudgeTimeout time.Duration
	// Jobs runs relationship inference (kind relate); New makes one over the
	// store when nil (and the store keeps a job queue). The caller starts and
	// closes it.
	Jobs   *jobs.Runner
	Logger *slog.Logger
	Now    func() time.Time // for tests; time.Now when nil
}

// StaleDays is the configured default of AnalyzeHealth's stale_days
// (RECALL_STALE_DAYS). The tool descriptions are built from it even by a
// server without curation (tests of other tools), hence the nil receiver.
func (s *Service) StaleDays() int {
	if s == nil || s.opts.StaleDays == 0 {
		return DefaultStaleDays
	}
	return s.opts.StaleDays
}

// Service carries out the curation operations.
type Service struct {
	store    Store
	mem      *memory.Service
	embedder memory.Embedder
	judge    memory.Judge
	opts     Options

	jobs *jobs.Runner

	healthMu sync.Mutex
	health   map[string]string // per model role, the failure last reported ("" healthy)

}

// New builds a curation Service. embedder and judge may be nil: the operations
// that need them then report why they could not run.
func New(store Store, mem *memory.Service, embedder memory.Embedder, judge memory.Judge, opts Options) *Service {
	opts.ContradictionThreshold = cmp.Or(opts.ContradictionThreshold, DefaultContradictionThreshold)
	opts.StaleDays = cmp.Or(opts.StaleDays, DefaultStaleDays)
	opts.Workers = memory.PositiveOr(opts.Workers, DefaultWorkers)
	opts.DefaultTokenBudget = memory.PositiveOr(opts.DefaultTokenBudget, DefaultTokenBudget)
	opts.JudgeTimeout = memory.PositiveOr(opts.JudgeTimeout, DefaultJudgeTimeout)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if q, ok := store.(jobs.Queue); ok && opts.Jobs == nil {
		opts.Jobs = jobs.New(q, jobs.Options{Workers: opts.Workers, Logger: opts.Logger})
	}
	s := &Service{
		store: store, mem: mem, embedder: embedder, judge: judge, opts: opts, jobs: opts.Jobs,
		health: map[string]string{},
	}
	if s.relates() && s.jobs != nil {
		s.jobs.Handle(JobKindRelate, s.relateJob)
	}
	return s
}

var _ memory.Curator = (*Service)(nil)

func (s *Service) now() time.Time { return s.opts.Now().UTC() }

func (s *Service) log() *slog.Logger { return s.opts.Logger }
