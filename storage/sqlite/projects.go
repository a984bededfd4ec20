package sqlite

import (
	"context"
	"database/sql"

	"github.com/recall-mcp/recall/memory"
)

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
