package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

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
