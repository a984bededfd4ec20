package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// ProjectBindings lists every root with its namespace, by root.
func (s *DB) ProjectBindings(ctx context.Context) ([]memory.ProjectBinding, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT root, namespace, created_at FROM project_roots ORDER BY root`)
	if err != nil {
		return nil, fmt.Errorf("list project roots: %w", err)
	}
	defer rows.Close()
	var out []memory.ProjectBinding
	for rows.Next() {
		var b memory.ProjectBinding
		var created string
		if err := rows.Scan(&b.Root, &b.Namespace, &created); err != nil {
			return nil, fmt.Errorf("list project roots: %w", err)
		}
		if b.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BindProject returns root's binding, binding it first when it has none: to
// the first of candidates that no other root holds, in one transaction, so
// two processes seeing a new root at once agree. It is a best-effort write
// (see BestEffortBusyTimeout): behind another writer it fails quickly, and the
// caller may go on with the namespace it would have got.
func (s *DB) BindProject(ctx context.Context, root string, candidates []string) (memory.ProjectBinding, error) {
	b := memory.ProjectBinding{Root: root}
	err := s.writeBestEffort(ctx, func(tx *sql.Tx) error {
		var created string
		err := tx.QueryRowContext(ctx, `SELECT namespace, created_at FROM project_roots WHERE root = ?`, root).Scan(&b.Namespace, &created)
		if err == nil {
			b.CreatedAt, err = parseTime(created)
			return err
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read project root: %w", err)
		}
		for _, ns := range candidates {
			var taken int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM project_roots WHERE namespace = ?`, ns).Scan(&taken); err != nil {
				return fmt.Errorf("read project roots: %w", err)
			}
			if taken > 0 {
				continue
			}
			b.Namespace, b.CreatedAt = ns, time.Now().UTC()
			_, err := tx.ExecContext(ctx, `INSERT INTO project_roots (root, namespace, created_at) VALUES (?, ?, ?)`,
				root, ns, formatTime(b.CreatedAt))
			if err != nil {
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
	rows, err := s.db.QueryContext(ctx, `SELECT namespace, count(*) FROM memories
		WHERE namespace LIKE 'project:%' GROUP BY namespace`)
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

// projectInUse reports whether a namespace holds memories or is bound to a root.
func projectInUse(ctx context.Context, tx *sql.Tx, ns string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM memories WHERE namespace = ?)
		+ (SELECT count(*) FROM project_roots WHERE namespace = ?)`, ns, ns).Scan(&n)
	return n > 0, err
}

// moveNamespace moves every memory, root binding and session of from to to
// and returns how many memories moved.
func moveNamespace(ctx context.Context, tx *sql.Tx, from, to string) (int, error) {
	res, err := tx.ExecContext(ctx, `UPDATE memories SET namespace = ? WHERE namespace = ?`, to, from)
	if err != nil {
		return 0, fmt.Errorf("move memories: %w", err)
	}
	n, _ := res.RowsAffected()
	for _, q := range []string{
		`UPDATE project_roots SET namespace = ? WHERE namespace = ?`,
		`UPDATE sessions SET namespace = ? WHERE namespace = ?`,
		`UPDATE change_log SET namespace = ? WHERE namespace = ?`, // the golden rules' audit trail is by project
	} {
		if _, err := tx.ExecContext(ctx, q, to, from); err != nil {
			return 0, fmt.Errorf("move project: %w", err)
		}
	}
	return int(n), nil
}

// foldDuplicates deletes the memories of from whose content into holds too,
// after moving their edges and validation events to the copy in into.
func foldDuplicates(ctx context.Context, tx *sql.Tx, from, into string) ([]memory.MergedDuplicate, error) {
	rows, err := tx.QueryContext(ctx, `SELECT a.id, b.id FROM memories a
		JOIN memories b ON b.namespace = ? AND b.content_hash = a.content_hash
		WHERE a.namespace = ? ORDER BY a.seq`, into, from)
	if err != nil {
		return nil, fmt.Errorf("find duplicates: %w", err)
	}
	dups := []memory.MergedDuplicate{}
	for rows.Next() {
		var d memory.MergedDuplicate
		if err := rows.Scan(&d.Deleted, &d.KeptID); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find duplicates: %w", err)
		}
		dups = append(dups, d)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for _, d := range dups {
		for _, q := range []string{
			// An edge the kept memory already has stays as it is (OR IGNORE);
			// the duplicate's copy goes with it below.
			`UPDATE OR IGNORE edges SET source_id = ? WHERE source_id = ?`,
			`UPDATE OR IGNORE edges SET target_id = ? WHERE target_id = ?`,
			`UPDATE validation_events SET memory_id = ? WHERE memory_id = ?`,
			`UPDATE change_log SET memory_id = ? WHERE memory_id = ?`, // its history, verdicts included
			`UPDATE change_log SET related_id = ? WHERE related_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, d.KeptID, d.Deleted); err != nil {
				return nil, fmt.Errorf("fold duplicate %s into %s: %w", d.Deleted, d.KeptID, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM edges WHERE source_id = target_id`); err != nil {
			return nil, fmt.Errorf("fold duplicate %s: %w", d.Deleted, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, d.Deleted); err != nil {
			return nil, fmt.Errorf("delete duplicate %s: %w", d.Deleted, err)
		}
	}
	return dups, nil
}
