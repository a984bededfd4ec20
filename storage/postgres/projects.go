package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// ProjectBindings lists every bound root.
func (s *DB) ProjectBindings(ctx context.Context) ([]memory.ProjectBinding, error) {
	rows, err := s.pool.Query(ctx, `SELECT root, namespace, created_at FROM project_roots ORDER BY root`)
	if err != nil {
		return nil, fmt.Errorf("list project roots: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.ProjectBinding, error) {
		var b memory.ProjectBinding
		err := r.Scan(&b.Root, &b.Namespace, &b.CreatedAt)
		b.CreatedAt = b.CreatedAt.UTC()
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("list project roots: %w", err)
	}
	return out, nil
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
		err := tx.QueryRow(ctx, `SELECT namespace, created_at FROM project_roots WHERE root = $1`, root).Scan(&b.Namespace, &b.CreatedAt)
		if err == nil {
			b.CreatedAt = b.CreatedAt.UTC()
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read project root: %w", err)
		}
		for _, ns := range candidates {
			var taken bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM project_roots WHERE namespace = $1)`, ns).Scan(&taken); err != nil {
				return fmt.Errorf("read project roots: %w", err)
			}
			if taken {
				continue
			}
			b.Namespace, b.CreatedAt = ns, time.Now().UTC()
			if _, err := tx.Exec(ctx, `INSERT INTO project_roots (root, namespace, created_at) VALUES ($1, $2, $3)`,
				root, ns, b.CreatedAt); err != nil {
				return fmt.Errorf("bind project root: %w", err)
			}
			return nil
		}
		return fmt.Errorf("every namespace proposed for %s (%s) is bound to another root", root, strings.Join(candidates, ", "))
	})
	return b, err
}

// ProjectSummaries lists every project namespace that holds memories or is
// bound to a root, by namespace.
func (s *DB) ProjectSummaries(ctx context.Context) ([]memory.ProjectSummary, error) {
	rows, err := s.pool.Query(ctx, `SELECT namespace, count(*) FROM memories WHERE namespace LIKE 'project:%' GROUP BY namespace`)
	if err != nil {
		return nil, fmt.Errorf("count project memories: %w", err)
	}
	counts := map[string]int{}
	err = storage.ReadCounts(rows, counts)
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("count project memories: %w", err)
	}
	bindings, err := s.ProjectBindings(ctx)
	if err != nil {
		return nil, err
	}
	return storage.ProjectSummaries(counts, bindings), nil
}

func projectInUse(ctx context.Context, tx pgx.Tx, ns string) (bool, error) {
	var used bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE namespace = $1)
		OR EXISTS (SELECT 1 FROM project_roots WHERE namespace = $1)`, ns).Scan(&used)
	return used, err
}

func moveNamespace(ctx context.Context, tx pgx.Tx, from, to string) (int, error) {
	tag, err := tx.Exec(ctx, `UPDATE memories SET namespace = $1 WHERE namespace = $2`, to, from)
	if err != nil {
		return 0, fmt.Errorf("move memories: %w", err)
	}
	for _, q := range []string{
		`UPDATE project_roots SET namespace = $1 WHERE namespace = $2`,
		`UPDATE sessions SET namespace = $1 WHERE namespace = $2`,
		`UPDATE change_log SET namespace = $1 WHERE namespace = $2`,
	} {
		if _, err := tx.Exec(ctx, q, to, from); err != nil {
			return 0, fmt.Errorf("move project: %w", err)
		}
	}
	return int(tag.RowsAffected()), nil
}

func foldDuplicates(ctx context.Context, tx pgx.Tx, from, into string) ([]memory.MergedDuplicate, error) {
	rows, err := tx.Query(ctx, `SELECT a.id, b.id FROM memories a
		JOIN memories b ON b.namespace = $1 AND b.content_hash = a.content_hash
		WHERE a.namespace = $2 ORDER BY a.seq`, into, from)
	if err != nil {
		return nil, fmt.Errorf("find duplicates: %w", err)
	}
	dups, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.MergedDuplicate, error) {
		var d memory.MergedDuplicate
		err := r.Scan(&d.Deleted, &d.KeptID)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("find duplicates: %w", err)
	}
	if dups == nil {
		dups = []memory.MergedDuplicate{}
	}
	for _, d := range dups {
		for _, q := range []string{
			// An edge the kept memory already has stays; the duplicate's copy
			// goes with the duplicate.
			`UPDATE edges e SET source_id = $1 WHERE source_id = $2 AND NOT EXISTS (SELECT 1 FROM edges x
				WHERE x.source_id = $1 AND x.target_id = e.target_id AND x.relation = e.relation)`,
			`UPDATE edges e SET target_id = $1 WHERE target_id = $2 AND NOT EXISTS (SELECT 1 FROM edges x
				WHERE x.target_id = $1 AND x.source_id = e.source_id AND x.relation = e.relation)`,
			`UPDATE validation_events SET memory_id = $1 WHERE memory_id = $2`,
			`UPDATE change_log SET memory_id = $1 WHERE memory_id = $2`,
			`UPDATE change_log SET related_id = $1 WHERE related_id = $2`,
		} {
			if _, err := tx.Exec(ctx, q, d.KeptID, d.Deleted); err != nil {
				return nil, fmt.Errorf("fold duplicate %s into %s: %w", d.Deleted, d.KeptID, err)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM edges WHERE source_id = target_id`); err != nil {
			return nil, fmt.Errorf("fold duplicate %s: %w", d.Deleted, err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM memories WHERE id = $1`, d.Deleted); err != nil {
			return nil, fmt.Errorf("delete duplicate %s: %w", d.Deleted, err)
		}
	}
	return dups, nil
}
