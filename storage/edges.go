package storage

import (
	"context"
	"fmt"
	"strconv"

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
	// InsertEdge writes e (its metadata encoded), both ends checked
	// (missing or not the asker's to see: ErrNotFound); the same triple
	// again updates the existing edge's weight.
	InsertEdge(ctx context.Context, e *memory.Edge, meta string) (int64, error)
	// ReadEdge returns an edge's relation and ends; one with an end the
	// principal in ctx may not see is ErrNotFound, as a missing one.
	ReadEdge(ctx context.Context, id int64) (rel memory.Relation, source, target string, err error)
	// LockEdge locks an edge's row until the transaction ends (where the
	// engine locks rows) and reports whether it is still there.
	LockEdge(ctx context.Context, id int64) (bool, error)
	// DeleteEdge deletes an edge.
	DeleteEdge(ctx context.Context, id int64) error
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
		id, err = insertEdge(ctx, tx, e, meta)
		return err
	})
	return id, err
}

// insertEdge writes e with its pair locked; a supersedes edge against one
// the other way round is refused.
func insertEdge(ctx context.Context, tx Tx, e *memory.Edge, meta string) (int64, error) {
	if err := tx.LockPair(ctx, e.SourceID, e.TargetID); err != nil {
		return 0, err
	}
	if e.Relation == memory.RelationSupersedes {
		back, err := tx.EdgeBetween(ctx, e.TargetID, e.SourceID, memory.RelationSupersedes, false)
		if err != nil {
			return 0, fmt.Errorf("insert edge: %w", err)
		}
		if back != 0 {
			return 0, memory.ReverseSupersedes(e.SourceID, e.TargetID)
		}
	}
	return tx.InsertEdge(ctx, e, meta)
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
		if id, err = insertEdge(ctx, tx, e, meta); err != nil {
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

// ResolveContradiction writes a verdict on the contradicts edge r.EdgeID in
// one transaction: r.Add added (or its triple's weight updated), the edge
// removed when r.Remove, r.Changes written. A crash leaves the contradiction
// whole or the verdict whole, never half of it. The new edge is written
// before the old one goes, so it never takes the old one's id. The pair is
// locked first, then the edge: two people resolving the same contradiction
// at once resolve it once. An edge to a memory the asker may not see is not
// found.
func (s Shared) ResolveContradiction(ctx context.Context, r memory.Resolution) error {
	var meta string
	if r.Add != nil {
		var err error
		if meta, err = memory.EdgeMetadata(r.Add); err != nil {
			return err
		}
	}
	notFound := memory.NotFound("edge", strconv.FormatInt(r.EdgeID, 10))
	return s.Tx.Write(ctx, func(tx Tx) error {
		rel, a, b, err := tx.ReadEdge(ctx, r.EdgeID)
		if err != nil {
			return err
		}
		if rel != memory.RelationContradicts {
			return fmt.Errorf("edge %d is %s, not contradicts: only a contradiction is resolved here: %w", r.EdgeID, rel, memory.ErrInvalid)
		}
		// Two verdicts on the pair at once: the second waits here and then
		// finds the edge gone or the pair already resolved.
		if err := tx.LockPair(ctx, a, b); err != nil {
			return err
		}
		if there, err := tx.LockEdge(ctx, r.EdgeID); err != nil {
			return fmt.Errorf("resolve contradiction: %w", err)
		} else if !there {
			return notFound
		}
		// A verdict given meanwhile (a supersedes edge either way) stands.
		if id, err := tx.EdgeBetween(ctx, a, b, memory.RelationSupersedes, true); err != nil {
			return fmt.Errorf("resolve contradiction: %w", err)
		} else if id != 0 {
			_, newer, older, err := tx.ReadEdge(ctx, id)
			if err != nil {
				return fmt.Errorf("resolve contradiction: %w", err)
			}
			return memory.AlreadyResolved(r.EdgeID, newer, older)
		}
		if r.Add != nil {
			if _, err := insertEdge(ctx, tx, r.Add, meta); err != nil {
				return err
			}
		}
		if r.Remove {
			if err := tx.DeleteEdge(ctx, r.EdgeID); err != nil {
				return fmt.Errorf("resolve contradiction: %w", err)
			}
		}
		for i := range r.Changes {
			if _, err := tx.AddChange(ctx, &r.Changes[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
