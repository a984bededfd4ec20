package sqlite

import (
	"context"
	"database/sql"

	"github.com/recall-mcp/recall/memory"
)

// ProjectBindings lists every root with its namespace, by root.
func (s *DB) ProjectBindings(ctx context.Context) ([]memory.ProjectBinding, error) {
	return statements(s.db).ProjectBindings(ctx)
}

// BindProject returns root's binding, binding it first when it has none: to
// the first of candidates that no other root holds, in one transaction, so
// two processes seeing a new root at once agree. It is a best-effort write
// (see BestEffortBusyTimeout): behind another writer it fails quickly, and the
// caller may go on with the namespace it would have got.
func (s *DB) BindProject(ctx context.Context, root string, candidates []string) (memory.ProjectBinding, error) {
	b := memory.ProjectBinding{Root: root}
	err := s.writeBestEffort(ctx, func(tx *sql.Tx) error {
		var err error
		b, err = statements(tx).BindRoot(ctx, root, candidates)
		return err
	})
	return b, err
}

// ProjectSummaries lists every project namespace that holds memories or is
// bound to a root, by namespace.
func (s *DB) ProjectSummaries(ctx context.Context) ([]memory.ProjectSummary, error) {
	return statements(s.db).ProjectSummaries(ctx)
}
