package sqlite

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestEdges(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a := mustInsert(t, db, newMemory("edge a", "global", memory.TypeDecision), nil)
	b := mustInsert(t, db, newMemory("edge b", "global", memory.TypeDecision), nil)
	c := mustInsert(t, db, newMemory("edge c", "global", memory.TypeDecision), nil)
	add := func(src, dst string, rel memory.Relation, w float64) int64 {
		t.Helper()
		id, err := db.InsertEdge(ctx, &memory.Edge{SourceID: src, TargetID: dst, Relation: rel, Weight: w, Metadata: map[string]any{"why": "test"}})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ab := add(a.ID, b.ID, memory.RelationRelatesTo, 0.5)
	bc := add(b.ID, c.ID, memory.RelationCausedBy, 1)
	ca := add(c.ID, a.ID, memory.RelationContradicts, 1)
	if again := add(a.ID, b.ID, memory.RelationRelatesTo, 0.9); again != ab {
		t.Errorf("the same triple again got id %d, want %d", again, ab)
	}
	list := func(q memory.EdgeQuery) []int64 {
		t.Helper()
		es, err := db.Edges(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, e := range es {
			ids = append(ids, e.ID)
		}
		return ids
	}
	es, _ := db.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{ab}})
	if len(es) != 1 || es[0].Weight != 0.9 || es[0].SourceID != a.ID || es[0].TargetID != b.ID ||
		es[0].Relation != memory.RelationRelatesTo || es[0].Metadata["why"] != "test" || es[0].CreatedAt.IsZero() {
		t.Errorf("edge read back = %+v", es)
	}
	for name, tc := range map[string]struct {
		q    memory.EdgeQuery
		want []int64
	}{
		"outgoing of b":    {memory.EdgeQuery{MemoryIDs: []string{b.ID}, Direction: memory.DirectionOutgoing}, []int64{bc}},
		"incoming of b":    {memory.EdgeQuery{MemoryIDs: []string{b.ID}, Direction: memory.DirectionIncoming}, []int64{ab}},
		"both of b":        {memory.EdgeQuery{MemoryIDs: []string{b.ID}}, []int64{ab, bc}},
		"a by relation":    {memory.EdgeQuery{MemoryIDs: []string{a.ID}, Relations: []memory.Relation{memory.RelationContradicts}}, []int64{ca}},
		"pair reversed":    {memory.EdgeQuery{SourceID: b.ID, TargetID: a.ID, Direction: memory.DirectionBoth}, []int64{ab}},
		"pair one way":     {memory.EdgeQuery{SourceID: b.ID, TargetID: a.ID, Direction: memory.DirectionOutgoing}, nil},
		"source only":      {memory.EdgeQuery{SourceID: c.ID}, []int64{ca}},
		"edge ids":         {memory.EdgeQuery{EdgeIDs: []int64{bc, ca}}, []int64{bc, ca}},
		"unknown memory":   {memory.EdgeQuery{MemoryIDs: []string{"mem_9_00000000"}}, nil},
		"two memories out": {memory.EdgeQuery{MemoryIDs: []string{a.ID, c.ID}, Direction: memory.DirectionOutgoing}, []int64{ab, ca}},
	} {
		if got := list(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
	if _, err := db.Edges(ctx, memory.EdgeQuery{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("empty edge query: %v, want ErrInvalid", err)
	}
	if _, err := db.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}, Direction: "sideways"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bad direction: %v, want ErrInvalid", err)
	}

	deleted, err := db.DeleteEdges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}})
	if err != nil || !slices.Equal(deleted, []int64{ab, ca}) {
		t.Errorf("DeleteEdges = %v, %v; want [%d %d]", deleted, err, ab, ca)
	}
	if got := list(memory.EdgeQuery{EdgeIDs: []int64{ab, bc, ca}}); !slices.Equal(got, []int64{bc}) {
		t.Errorf("left after delete: %v", got)
	}
	if _, err := db.DeleteEdges(ctx, memory.EdgeQuery{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("DeleteEdges with no selector must refuse, got %v", err)
	}
}

func TestInsertEdgeNamesMissingEnd(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a := mustInsert(t, db, newMemory("lonely", "global", memory.TypeDecision), nil)
	const ghost = "mem_5_0badc0de"
	for _, e := range []*memory.Edge{
		{SourceID: a.ID, TargetID: ghost, Relation: memory.RelationRelatesTo, Weight: 1},
		{SourceID: ghost, TargetID: a.ID, Relation: memory.RelationRelatesTo, Weight: 1},
	} {
		_, err := db.InsertEdge(ctx, e)
		if !errors.Is(err, memory.ErrNotFound) || !strings.Contains(err.Error(), ghost) {
			t.Errorf("InsertEdge with a missing end: %v, want ErrNotFound naming %s", err, ghost)
		}
	}
	_, err := db.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: a.ID, Relation: "likes", Weight: 1})
	if !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "relation") {
		t.Errorf("unknown relation: %v, want ErrInvalid naming the field", err)
	}
}
