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

// insertEdge writes e (its metadata encoded) inside tx, both ends checked; the
// same triple again updates the weight of the existing edge. A reverse
// supersedes edge is refused before (storage.Shared).
func insertEdge(ctx context.Context, tx *sql.Tx, e *memory.Edge, meta string) (int64, error) {
	visible, vargs := visibleCond(ctx, "m")
	for _, end := range []struct{ field, id string }{{"source", e.SourceID}, {"target", e.TargetID}} {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories m WHERE m.id = ? AND `+visible,
			append([]any{end.id}, vargs...)...).Scan(&n); err != nil {
			return 0, fmt.Errorf("insert edge: %w", err)
		}
		if n == 0 {
			return 0, memory.NotFound(end.field+" memory", end.id)
		}
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO edges (source_id, target_id, relation, weight, metadata, created_at, author)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (source_id, target_id, relation) DO UPDATE SET weight = excluded.weight
		RETURNING id`,
		e.SourceID, e.TargetID, string(e.Relation), e.Weight, meta, formatTime(orNow(e.CreatedAt, time.Now())),
		memory.PrincipalFrom(ctx).Author()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert edge: %w", err)
	}
	return id, nil
}

// LockEdge: the transaction holds the database's write lock already.
func (t sharedTx) LockEdge(ctx context.Context, id int64) (bool, error) {
	var there bool
	err := t.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM edges WHERE id = ?)`, id).Scan(&there)
	return there, err
}

// edgeWhere turns an edge query into SQL conditions on edges. At least one
// selector must be set. An edge with an end the principal in ctx may not see
// is left out: a graph walk stops at the boundary of another's namespace.
func edgeWhere(ctx context.Context, q memory.EdgeQuery) (string, []any, error) {
	var conds []string
	var args []any
	if len(q.EdgeIDs) > 0 {
		conds = append(conds, "id IN ("+placeholders(len(q.EdgeIDs))+")")
		args = append(args, anySlice(q.EdgeIDs)...)
	}
	dir := q.Direction
	if dir == "" {
		dir = memory.DirectionBoth
	}
	if _, err := memory.ParseDirection(string(dir)); err != nil {
		return "", nil, err
	}
	if len(q.MemoryIDs) > 0 {
		in := placeholders(len(q.MemoryIDs))
		ids := anySlice(q.MemoryIDs)
		switch dir {
		case memory.DirectionOutgoing:
			conds = append(conds, "source_id IN ("+in+")")
			args = append(args, ids...)
		case memory.DirectionIncoming:
			conds = append(conds, "target_id IN ("+in+")")
			args = append(args, ids...)
		default:
			conds = append(conds, "(source_id IN ("+in+") OR target_id IN ("+in+"))")
			args = append(append(args, ids...), ids...)
		}
	}
	switch {
	case q.SourceID != "" && q.TargetID != "" && dir == memory.DirectionBoth:
		conds = append(conds, "((source_id = ? AND target_id = ?) OR (source_id = ? AND target_id = ?))")
		args = append(args, q.SourceID, q.TargetID, q.TargetID, q.SourceID)
	case q.SourceID != "" || q.TargetID != "":
		if q.SourceID != "" {
			conds = append(conds, "source_id = ?")
			args = append(args, q.SourceID)
		}
		if q.TargetID != "" {
			conds = append(conds, "target_id = ?")
			args = append(args, q.TargetID)
		}
	}
	if len(conds) == 0 {
		return "", nil, memory.Invalidf("edge query", "empty", "edge ids, memory ids, or a source and/or target id")
	}
	if len(q.Relations) > 0 {
		conds = append(conds, "relation IN ("+placeholders(len(q.Relations))+")")
		for _, r := range q.Relations {
			args = append(args, string(r))
		}
	}
	if visible, vargs := visibleCond(ctx, "m"); vargs != nil {
		conds = append(conds, "NOT EXISTS (SELECT 1 FROM memories m WHERE m.id IN (edges.source_id, edges.target_id) AND NOT "+visible+")")
		args = append(args, vargs...)
	}
	return strings.Join(conds, " AND "), args, nil
}

// Edges lists the edges matching q, oldest first.
func (s *DB) Edges(ctx context.Context, q memory.EdgeQuery) ([]memory.Edge, error) {
	where, args, err := edgeWhere(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+storage.EdgeColumns+` FROM edges WHERE `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list edges: %w", err)
	}
	defer rows.Close()
	out, err := storage.ReadAll(rows, func() (memory.Edge, error) { return storage.ScanEdge(cursor{rows}) })
	if err != nil {
		return nil, fmt.Errorf("list edges: %w", err)
	}
	return out, nil
}

// DeleteEdges removes the edges matching q and returns their ids in order.
func (s *DB) DeleteEdges(ctx context.Context, q memory.EdgeQuery) ([]int64, error) {
	where, args, err := edgeWhere(ctx, q)
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM edges WHERE `+where+` RETURNING id`, args...)
		if err != nil {
			return fmt.Errorf("delete edges: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return errors.Join(rows.Err(), rows.Close())
	})
	if err != nil {
		return nil, err
	}
	sortInt64s(ids)
	return ids, nil
}
