package memory

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Options are the Service's settings (from config).
type Options struct {
	DefaultNamespace   string
	DefaultImportance  float64
	DefaultConfidence  float64
	DefaultTokenBudget int
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

// NewService builds a Service. embedder may be nil (keywords only).
func NewService(store Store, embedder Embedder, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{store: store, embedder: embedder, opts: opts}
}

// SetCurator plugs in curation after store (relationship inference, contradictions).
func (s *Service) SetCurator(c Curator) { s.curator = c }

// Store returns the underlying store (validation works on it directly).
func (s *Service) Store() Store { return s.store }

var errTODO = errors.New("not implemented yet")

func (s *Service) Remember(ctx context.Context, req StoreRequest) (*StoreResult, error) {
	return nil, errTODO
}
func (s *Service) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	return nil, errTODO
}
func (s *Service) Get(ctx context.Context, id string) (*Memory, error)          { return nil, errTODO }
func (s *Service) Relate(ctx context.Context, req RelateRequest) (int64, error) { return 0, errTODO }
func (s *Service) ForgetEdges(ctx context.Context, req EdgeForgetRequest) (*EdgeForgetResult, error) {
	return nil, errTODO
}
func (s *Service) Inspect(ctx context.Context, req InspectRequest) (*InspectResult, error) {
	return nil, errTODO
}
func (s *Service) Forget(ctx context.Context, req ForgetRequest) (*ForgetResult, error) {
	return nil, errTODO
}
func (s *Service) List(ctx context.Context, req ListRequest) (*ListResult, error) {
	return nil, errTODO
}
func (s *Service) Count(ctx context.Context, req CountRequest) (int, error) { return 0, errTODO }
func (s *Service) AddFileActivity(ctx context.Context, req FileActivityRequest) (*FileActivity, error) {
	return nil, errTODO
}
func (s *Service) RecentFiles(ctx context.Context, req RecentFilesRequest) ([]FileSummary, error) {
	return nil, errTODO
}

// FillPendingEmbeddings embeds memories stored while Ollama was unavailable, in
// batches, until none is left or the embedder fails; it returns how many it filled.
func (s *Service) FillPendingEmbeddings(ctx context.Context) (int, error) { return 0, errTODO }

// Reindex drops every vector and embeds all memories again with the configured
// model (after a model change).
func (s *Service) Reindex(ctx context.Context) (int, error) { return 0, errTODO }
