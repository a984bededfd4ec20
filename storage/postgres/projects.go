package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

// ProjectBindings lists every bound root.
func (s *DB) ProjectBindings(ctx context.Context) ([]memory.ProjectBinding, error) {
	return statements(s.pool).ProjectBindings(ctx)
}

// BindProject binds root to the first of candidates no other root holds,
// unless root is bound already, and returns the binding. Two processes
// binding at once take turns (a transaction-scoped advisory lock), so a
// namespace is never given to two roots.
func (s *DB) BindProject(ctx context.Context, root string, candidates []string) (memory.ProjectBinding, error) {
	b := memory.ProjectBinding{Root: root}
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock+1); err != nil {
			return err
		}
		var err error
		b, err = statements(tx).BindRoot(ctx, root, candidates)
		return err
	})
	return b, err
}

// ProjectSummaries lists every project namespace that holds memories or is
// bound to a root, by namespace.
func (s *DB) ProjectSummaries(ctx context.Context) ([]memory.ProjectSummary, error) {
	return statements(s.pool).ProjectSummaries(ctx)
}
