package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// contradiction stores two memories linked by a contradicts edge.
func (e *env) contradiction(t *testing.T, a, b string, typ memory.Type) (string, string, int64) {
	t.Helper()
	ma := e.remember(t, memory.StoreRequest{Content: a, Type: typ})
	mb := e.remember(t, memory.StoreRequest{Content: b, Type: memory.TypePattern})
	id, err := e.db.InsertEdge(context.Background(), &memory.Edge{SourceID: ma.ID, TargetID: mb.ID, Relation: memory.RelationContradicts, Weight: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	return ma.ID, mb.ID, id
}

func TestResolveContradictionReplacesTheEdgeAndLogsBothSides(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	a, b, edge := e.contradiction(t, "Use tabs for indentation", "Use two spaces for indentation", memory.TypeDecision)
	res, err := e.svc.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edge, Resolution: memory.ResolveBSupersedesA, Reason: "the style guide changed", Source: memory.SourceViewer})
	if err != nil {
		t.Fatal(err)
	}
	if res.Message != b+" now supersedes "+a {
		t.Errorf("message %q", res.Message)
	}
	if es, _ := e.db.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{edge}}); len(es) != 1 {
		t.Errorf("the contradiction should stay on record beside the supersedes edge: %+v", es)
	}
	if es, _ := e.db.Edges(ctx, memory.EdgeQuery{SourceID: b, TargetID: a, Direction: memory.DirectionOutgoing, Relations: []memory.Relation{memory.RelationSupersedes}}); len(es) != 1 {
		t.Errorf("no supersedes edge %s -> %s: %+v", b, a, es)
	}
	for id, want := range map[string]memory.ChangeAction{a: memory.ChangeSupersededBy, b: memory.ChangeSupersede} {
		log, err := e.svc.Changes(ctx, id)
		if err != nil || len(log) == 0 || log[0].Action != want || log[0].Reason != "the style guide changed" || log[0].Source != memory.SourceViewer {
			t.Errorf("change log of %s: %+v, %v; want %s with the reason", id, log, err, want)
		}
	}

	// Both hold: relates_to takes the contradiction's place.
	c, d, edge2 := e.contradiction(t, "Tests run with -race in CI", "Benchmarks run without -race", memory.TypePattern)
	if _, err := e.svc.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edge2, Resolution: memory.ResolveBothHold}); err != nil {
		t.Fatal(err)
	}
	if es, _ := e.db.Edges(ctx, memory.EdgeQuery{SourceID: c, TargetID: d, Direction: memory.DirectionOutgoing}); len(es) != 1 || es[0].Relation != memory.RelationRelatesTo {
		t.Errorf("both_hold: edges %+v, want only relates_to", es)
	}
	if _, err := e.svc.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edge2, Resolution: memory.ResolveNotConflict}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("resolving a resolved contradiction: %v, want not found", err)
	}
}

func TestResolveContradictionKeepsTheRules(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	golden, other, edge := e.contradiction(t, "Never deploy on Fridays", "Deploy on Fridays is fine", memory.TypeGoldenRule)
	// A golden rule is superseded only with force; nothing is written without it.
	if _, err := e.svc.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edge, Resolution: memory.ResolveBSupersedesA}); !errors.Is(err, memory.ErrProtected) {
		t.Fatalf("superseding a golden rule without force: %v, want ErrProtected", err)
	}
	if es, _ := e.db.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{edge}}); len(es) != 1 {
		t.Fatalf("a refused resolution removed the contradiction")
	}
	if log, _ := e.svc.Changes(ctx, golden); len(log) != 0 {
		t.Errorf("a refused resolution was logged: %+v", log)
	}
	// memory_relate_tool and the viewer's edge form follow the same rule.
	_, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: other, TargetID: golden, Relation: memory.RelationSupersedes})
	if !errors.Is(err, memory.ErrProtected) || strings.Count(err.Error(), "force") != 1 {
		t.Fatalf("a supersedes edge onto a golden rule without force: %v, want ErrProtected saying force once", err)
	}
	if es, _ := e.db.Edges(ctx, memory.EdgeQuery{SourceID: other, TargetID: golden, Relations: []memory.Relation{memory.RelationSupersedes}}); len(es) != 0 {
		t.Fatalf("a refused supersedes edge was stored: %+v", es)
	}
	if _, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: other, TargetID: golden, Relation: memory.RelationRelatesTo}); err != nil {
		t.Errorf("relating to a golden rule needs no force: %v", err)
	}
	// No supersedes against one the other way round.
	if _, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: golden, TargetID: other, Relation: memory.RelationSupersedes}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edge, Resolution: memory.ResolveBSupersedesA, Force: true}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("a reverse supersedes through the review: %v, want ErrInvalid", err)
	}
	if _, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: other, TargetID: golden, Relation: memory.RelationSupersedes, Force: true}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("a reverse supersedes through memory_relate_tool: %v, want ErrInvalid", err)
	}
	// An unknown verdict says what is accepted.
	if _, err := e.svc.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edge, Resolution: "maybe"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("resolution maybe: %v, want ErrInvalid", err)
	}
}
