package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// lockPair serializes the edge writes between two memories until tx ends,
// whichever way round they are named: the checks of one writer (an edge that
// already links them, a supersedes the other way round) then see what
// another wrote. An advisory lock, so that updates of the memories
// themselves never wait on it.
func lockPair(ctx context.Context, tx pgx.Tx, a, b string) error {
	if a > b {
		a, b = b, a
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 23))`, "edge pair "+a+" "+b); err != nil {
		return fmt.Errorf("lock the edges of %s and %s: %w", a, b, err)
	}
	return nil
}

// insertEdge writes e (its metadata encoded) inside tx; the same triple again
// updates the weight of the existing edge. The pair is locked and a reverse
// supersedes edge refused before (storage.Shared).
func insertEdge(ctx context.Context, tx pgx.Tx, e *memory.Edge, meta string) (int64, error) {
	// The ends are locked against a concurrent delete until the edge is in;
	// an end the asker may not see is not found.
	p := params{e.SourceID, e.TargetID}
	rows, err := tx.Query(ctx, `SELECT m.id FROM memories m WHERE m.id IN ($1, $2) AND `+visibleCond(ctx, "m", &p)+` FOR SHARE`, p...)
	if err != nil {
		return 0, fmt.Errorf("insert edge: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("insert edge: %w", err)
	}
	for _, end := range []struct{ field, id string }{{"source", e.SourceID}, {"target", e.TargetID}} {
		if !slices.Contains(found, end.id) {
			return 0, memory.NotFound(end.field+" memory", end.id)
		}
	}
	var id int64
	err = tx.QueryRow(ctx, `INSERT INTO edges (source_id, target_id, relation, weight, metadata, created_at, author)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (source_id, target_id, relation) DO UPDATE SET weight = excluded.weight
		RETURNING id`,
		e.SourceID, e.TargetID, string(e.Relation), e.Weight, meta, orNow(e.CreatedAt, time.Now()), memory.AuthorOr(ctx, e.Author)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert edge: %w", err)
	}
	return id, nil
}

func (t sharedTx) LockEdge(ctx context.Context, id int64) (bool, error) {
	err := t.tx.QueryRow(ctx, `SELECT id FROM edges WHERE id = $1 FOR UPDATE`, id).Scan(new(int64))
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// edgeWhere turns an edge query into SQL conditions on edges. At least one
// selector must be set.
func edgeWhere(ctx context.Context, q memory.EdgeQuery, p *params) (string, error) {
	var conds []string
	if len(q.EdgeIDs) > 0 {
		conds = append(conds, "id = ANY("+p.add(q.EdgeIDs)+")")
	}
	dir := q.Direction
	if dir == "" {
		dir = memory.DirectionBoth
	}
	if _, err := memory.ParseDirection(string(dir)); err != nil {
		return "", err
	}
	if len(q.MemoryIDs) > 0 {
		ids := p.add(q.MemoryIDs)
		switch dir {
		case memory.DirectionOutgoing:
			conds = append(conds, "source_id = ANY("+ids+")")
		case memory.DirectionIncoming:
			conds = append(conds, "target_id = ANY("+ids+")")
		default:
			conds = append(conds, "(source_id = ANY("+ids+") OR target_id = ANY("+ids+"))")
		}
	}
	switch {
	case q.SourceID != "" && q.TargetID != "" && dir == memory.DirectionBoth:
		a, b := p.add(q.SourceID), p.add(q.TargetID)
		conds = append(conds, "((source_id = "+a+" AND target_id = "+b+") OR (source_id = "+b+" AND target_id = "+a+"))")
	case q.SourceID != "" || q.TargetID != "":
		if q.SourceID != "" {
			conds = append(conds, "source_id = "+p.add(q.SourceID))
		}
		if q.TargetID != "" {
			conds = append(conds, "target_id = "+p.add(q.TargetID))
		}
	}
	if len(conds) == 0 {
		return "", memory.Invalidf("edge query", "empty", "edge ids, memory ids, or a source and/or target id")
	}
	if len(q.Relations) > 0 {
		rels := make([]string, len(q.Relations))
		for i, r := range q.Relations {
			rels[i] = string(r)
		}
		conds = append(conds, "relation = ANY("+p.add(rels)+")")
	}
	if memory.PrincipalFrom(ctx).Restricted() {
		// An edge touching a memory the asker may not see is not theirs either.
		conds = append(conds, "NOT EXISTS (SELECT 1 FROM memories m WHERE m.id IN (edges.source_id, edges.target_id) AND NOT "+visibleCond(ctx, "m", p)+")")
	}
	return strings.Join(conds, " AND "), nil
}

// Edges lists the edges matching q, oldest first.
func (s *DB) Edges(ctx context.Context, q memory.EdgeQuery) ([]memory.Edge, error) {
	var p params
	where, err := edgeWhere(ctx, q, &p)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+storage.EdgeColumns+` FROM edges WHERE `+where+` ORDER BY id`, p...)
	if err != nil {
		return nil, fmt.Errorf("list edges: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanEdge)
	if err != nil {
		return nil, fmt.Errorf("list edges: %w", err)
	}
	return out, nil
}

// DeleteEdges removes the edges matching q and returns their ids in order.
func (s *DB) DeleteEdges(ctx context.Context, q memory.EdgeQuery) ([]int64, error) {
	var p params
	where, err := edgeWhere(ctx, q, &p)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `DELETE FROM edges WHERE `+where+` RETURNING id`, p...)
	if err != nil {
		return nil, fmt.Errorf("delete edges: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("delete edges: %w", err)
	}
	if len(ids) > 0 {
		s.changed(ctx)
	}
	slices.Sort(ids)
	return ids, nil
}

func scanEdge(r pgx.CollectableRow) (memory.Edge, error) { return storage.ScanEdge(r) }
