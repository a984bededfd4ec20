package storage

import (
	"context"

	"github.com/recall-mcp/recall/memory"
)

// An EdgeTx is an engine's write transaction as the edge writes use it.
type EdgeTx interface {
	// LockPair serializes the edge writes between two memories until the
	// transaction ends, whichever way round they are named (a no-op where
	// a write transaction holds the whole database).
	LockPair(ctx context.Context, a, b string) error
	// NotContradiction reports whether a person judged a and b not to
	// contradict each other.
	NotContradiction(ctx context.Context, a, b string) (bool, error)
	// EdgeBetween returns the id of an edge of rel from source to target,
	// or either way round when both; 0 when none.
	EdgeBetween(ctx context.Context, source, target string, rel memory.Relation, both bool) (int64, error)
	// InsertEdge writes e (its metadata encoded), both ends checked; the
	// same triple again updates the existing edge's weight. A supersedes
	// edge against one the other way round is refused.
	InsertEdge(ctx context.Context, e *memory.Edge, meta string) (int64, error)
}

// InsertEdge adds an edge, or updates the weight of the same (source,
// target, relation) and returns its id. A missing end is an error wrapping
// ErrNotFound that names it.
func (s Shared) InsertEdge(ctx context.Context, e *memory.Edge) (int64, error) {
	meta, err := memory.EdgeMetadata(e)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.Tx.Write(ctx, func(tx Tx) error {
		id, err = tx.InsertEdge(ctx, e, meta)
		return err
	})
	return id, err
}

// LinkOnce adds e unless an edge of its relation already links its two
// memories either way, or, for a contradiction, a person judged the two not
// to contradict; see memory.Graph. Check and write are one transaction with
// the pair locked, so two processes judging the same pair leave one edge.
func (s Shared) LinkOnce(ctx context.Context, e *memory.Edge) (int64, bool, error) {
	meta, err := memory.EdgeMetadata(e)
	if err != nil {
		return 0, false, err
	}
	var id int64
	var created bool
	err = s.Tx.Write(ctx, func(tx Tx) error {
		id, created = 0, false // a transaction may run again
		if err := tx.LockPair(ctx, e.SourceID, e.TargetID); err != nil {
			return err
		}
		if e.Relation == memory.RelationContradicts {
			dismissed, err := tx.NotContradiction(ctx, e.SourceID, e.TargetID)
			if err != nil || dismissed {
				return err
			}
		}
		existing, err := tx.EdgeBetween(ctx, e.SourceID, e.TargetID, e.Relation, true)
		if err != nil || existing != 0 {
			id = existing
			return err
		}
		if id, err = tx.InsertEdge(ctx, e, meta); err != nil {
			return err
		}
		created = true
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	return id, created, nil
}
