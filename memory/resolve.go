package memory

import (
	"context"
	"fmt"
	"strconv"
)

// Resolutions of a contradiction between A (the contradicts edge's source)
// and B (its target).
const (
	ResolveASupersedesB = "a_supersedes_b"    // a supersedes edge A -> B: B drops out of recall
	ResolveBSupersedesA = "b_supersedes_a"    // a supersedes edge B -> A
	ResolveBothHold     = "both_hold"         // the contradicts edge becomes relates_to
	ResolveNotConflict  = "not_contradiction" // the edge goes; the pair is not linked again
)

// ResolveRequest is a person's verdict on a contradicts edge.
type ResolveRequest struct {
	EdgeID     int64
	Resolution string
	Reason     string // optional; recorded with the outcome
	// Force lets a golden rule be superseded: never done automatically.
	Force  bool
	Source string // where the verdict came from (the viewer, say)
}

// ResolveResult says what a resolution did.
type ResolveResult struct {
	EdgeID     int64  `json:"edge_id"`
	Resolution string `json:"resolution"`
	Message    string `json:"message"`
}

// Resolution is what a store writes to resolve a contradiction, in one
// transaction: Add (when set) added or, when the same triple exists, its
// weight updated; the contradicts edge EdgeID removed when Remove; Changes
// written.
type Resolution struct {
	EdgeID  int64
	Add     *Edge
	Remove  bool
	Changes []Change
}

// ResolveContradiction records a person's verdict on a contradicts edge in one
// transaction: a supersedes edge either way (the contradiction stays on
// record; the superseded memory leaves recall and the queue), a relates_to
// edge in the contradiction's place (both hold), or the contradiction removed
// (not a contradiction); the outcome and reason go on both memories' change
// logs, and "not a contradiction" so keeps a later scan from linking the pair
// again. A golden rule is
// superseded only with Force, and never against a supersedes edge the other
// way round.
func (s *Service) ResolveContradiction(ctx context.Context, req ResolveRequest) (*ResolveResult, error) {
	if req.EdgeID < 1 {
		return nil, invalid("edge_id", strconv.FormatInt(req.EdgeID, 10), "a positive integer")
	}
	es, err := s.store.Edges(ctx, EdgeQuery{EdgeIDs: []int64{req.EdgeID}})
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, NotFound("edge", strconv.FormatInt(req.EdgeID, 10))
	}
	e := es[0]
	if e.Relation != RelationContradicts {
		return nil, fmt.Errorf("edge %d is %s, not contradicts: only a contradiction is resolved here: %w", req.EdgeID, e.Relation, ErrInvalid)
	}
	reason, err := optionalReason(req.Reason)
	if err != nil {
		return nil, err
	}
	a, b := e.SourceID, e.TargetID
	res := &ResolveResult{EdgeID: req.EdgeID, Resolution: req.Resolution}
	// What the resolution is on A's change log (B's gets the mirror image).
	var action, mirror ChangeAction
	var add *Edge
	remove := true
	switch req.Resolution {
	case ResolveASupersedesB, ResolveBSupersedesA:
		newer, older := a, b
		action, mirror = ChangeSupersede, ChangeSupersededBy
		if req.Resolution == ResolveBSupersedesA {
			newer, older = b, a
			action, mirror = ChangeSupersededBy, ChangeSupersede
		}
		if err := s.maySupersede(ctx, newer, older, req.Force); err != nil {
			return nil, err
		}
		add, remove = &Edge{SourceID: newer, TargetID: older, Relation: RelationSupersedes, Weight: DefaultEdgeWeight}, false
		res.Message = fmt.Sprintf("%s now supersedes %s", newer, older)
	case ResolveBothHold:
		// Both stay true (each in its own context): keep them linked.
		action, mirror = ChangeBothHold, ChangeBothHold
		add = &Edge{SourceID: a, TargetID: b, Relation: RelationRelatesTo, Weight: DefaultEdgeWeight}
		res.Message = "both hold: the contradiction became a relates_to edge"
	case ResolveNotConflict:
		action, mirror = ChangeNotContradiction, ChangeNotContradiction
		res.Message = "contradiction removed"
	default:
		return nil, fmt.Errorf("invalid resolution %q: accepted %s, %s, %s or %s: %w",
			req.Resolution, ResolveASupersedesB, ResolveBSupersedesA, ResolveBothHold, ResolveNotConflict, ErrInvalid)
	}
	ms, err := s.store.GetMemories(ctx, []string{a, b})
	if err != nil {
		return nil, err
	}
	for _, id := range []string{a, b} {
		if ms[id] == nil {
			return nil, NotFound("memory", id)
		}
	}
	now, source := s.now(), changeSource(req.Source)
	if add != nil {
		add.CreatedAt = now
	}
	err = s.store.ResolveContradiction(ctx, Resolution{EdgeID: req.EdgeID, Add: add, Remove: remove, Changes: []Change{
		{MemoryID: a, Namespace: ms[a].Namespace, At: now, Action: action, Source: source, Reason: reason, RelatedID: b},
		{MemoryID: b, Namespace: ms[b].Namespace, At: now, Action: mirror, Source: source, Reason: reason, RelatedID: a},
	}})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// maySupersede is the rule every door follows before newer supersedes older:
// a golden rule only with force, and never against an edge the other way
// round (two memories superseding each other would both drop out of recall).
func (s *Service) maySupersede(ctx context.Context, newer, older string, force bool) error {
	old, err := s.store.GetMemory(ctx, older)
	if err != nil {
		return err
	}
	if old.IsGolden() && !force {
		return fmt.Errorf("memory %s is a %w: superseding it needs force", older, ErrProtected)
	}
	return s.noReverseSupersedes(ctx, newer, older)
}

// noReverseSupersedes refuses newer supersedes older when older already
// supersedes newer: both would drop out of recall. Every door that adds a
// supersedes edge by hand (memory_relate_tool, the review queue) asks it.
func (s *Service) noReverseSupersedes(ctx context.Context, newer, older string) error {
	back, err := s.store.Edges(ctx, EdgeQuery{SourceID: older, TargetID: newer, Direction: DirectionOutgoing, Relations: []Relation{RelationSupersedes}})
	if err != nil {
		return err
	}
	if len(back) > 0 {
		return ReverseSupersedes(newer, older)
	}
	return nil
}

// ReverseSupersedes is the error of newer superseding older when older
// already supersedes newer; the stores give it too, where they check the rule
// inside the transaction that adds the edge.
func ReverseSupersedes(newer, older string) error {
	return fmt.Errorf("%s already supersedes %s: remove that edge first (two memories superseding each other would both leave recall): %w", older, newer, ErrInvalid)
}

// AlreadyResolved is the error of a verdict on a contradiction that was
// resolved meanwhile (a supersedes edge links the pair): the first verdict
// stands.
func AlreadyResolved(edgeID int64, newer, older string) error {
	return fmt.Errorf("contradiction %d was already resolved: %s supersedes %s (remove that supersedes edge to judge it again): %w", edgeID, newer, older, ErrInvalid)
}
