package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestRelateValidatesAndUpdatesWeight(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.remember(t, memory.StoreRequest{Content: "first note"}).ID
	b := e.remember(t, memory.StoreRequest{Content: "second note"}).ID
	missing := "mem_1700000000000_0badf00d"

	id, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo})
	if err != nil || id <= 0 {
		t.Fatalf("relate: %d, %v", id, err)
	}
	again, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo, Weight: ptr(0.25)})
	if err != nil || again != id {
		t.Fatalf("relating the same triple again returns the same edge: %d, %v (want %d)", again, err, id)
	}
	edges, err := e.db.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{id}})
	if err != nil || len(edges) != 1 || edges[0].Weight != 0.25 {
		t.Fatalf("edge %+v, %v: want weight updated to 0.25", edges, err)
	}

	_, err = e.svc.Relate(ctx, memory.RelateRequest{SourceID: missing, TargetID: b, Relation: memory.RelationRelatesTo})
	if !errors.Is(err, memory.ErrNotFound) || !strings.Contains(err.Error(), "source") {
		t.Fatalf("unknown source: %v", err)
	}
	_, err = e.svc.Relate(ctx, memory.RelateRequest{SourceID: a, TargetID: missing, Relation: memory.RelationRelatesTo})
	if !errors.Is(err, memory.ErrNotFound) || !strings.Contains(err.Error(), "target") {
		t.Fatalf("unknown target: %v", err)
	}
	bad := []struct {
		req   memory.RelateRequest
		field string
	}{
		{memory.RelateRequest{SourceID: a, TargetID: a, Relation: memory.RelationRelatesTo}, "target_id"},
		{memory.RelateRequest{SourceID: "x", TargetID: b, Relation: memory.RelationRelatesTo}, "source_id"},
		{memory.RelateRequest{SourceID: a, TargetID: "", Relation: memory.RelationRelatesTo}, "target_id"},
		{memory.RelateRequest{SourceID: a, TargetID: b, Relation: "loves"}, "relation"},
		{memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo, Weight: ptr(0.0)}, "weight"},
		{memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo, Weight: ptr(1.5)}, "weight"},
	}
	for _, c := range bad {
		_, err := e.svc.Relate(ctx, c.req)
		wantInvalid(t, err, c.field)
	}
}

func TestForgetEdgesBySelector(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.remember(t, memory.StoreRequest{Content: "node a"}).ID
	b := e.remember(t, memory.StoreRequest{Content: "node b"}).ID
	c := e.remember(t, memory.StoreRequest{Content: "node c"}).ID
	relate := func(s, tg string, r memory.Relation) int64 {
		id, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: s, TargetID: tg, Relation: r})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ab := relate(a, b, memory.RelationRelatesTo)
	abCause := relate(a, b, memory.RelationCausedBy)
	ba := relate(b, a, memory.RelationRelatesTo)
	ca := relate(c, a, memory.RelationRelatesTo)
	bc := relate(b, c, memory.RelationContradicts)

	forget := func(req memory.EdgeForgetRequest) []int64 {
		t.Helper()
		res, err := e.svc.ForgetEdges(ctx, req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		if res.DeletedCount != len(res.DeletedIDs) || res.DeletedIDs == nil {
			t.Fatalf("count %d ids %v", res.DeletedCount, res.DeletedIDs)
		}
		return res.DeletedIDs
	}
	sameSet := func(got []int64, want ...int64) bool {
		if len(got) != len(want) {
			return false
		}
		for _, w := range want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				return false
			}
		}
		return true
	}

	if got := forget(memory.EdgeForgetRequest{SourceID: a, TargetID: b, Relation: memory.RelationCausedBy}); !sameSet(got, abCause) {
		t.Fatalf("pair with relation: %v", got)
	}
	if got := forget(memory.EdgeForgetRequest{SourceID: a, TargetID: b}); !sameSet(got, ab) {
		t.Fatalf("pair a->b leaves b->a: %v", got)
	}
	if got := forget(memory.EdgeForgetRequest{MemoryID: a, Direction: memory.DirectionIncoming}); !sameSet(got, ba, ca) {
		t.Fatalf("incoming of a: %v", got)
	}
	if got := forget(memory.EdgeForgetRequest{EdgeID: ba}); len(got) != 0 {
		t.Fatalf("already deleted edge: %v", got)
	}
	if got := forget(memory.EdgeForgetRequest{EdgeID: bc}); !sameSet(got, bc) {
		t.Fatalf("by id: %v", got)
	}

	bad := []struct {
		req   memory.EdgeForgetRequest
		field string
	}{
		{memory.EdgeForgetRequest{}, "edge selector"},
		{memory.EdgeForgetRequest{EdgeID: 1, MemoryID: a}, "edge selector"},
		{memory.EdgeForgetRequest{SourceID: a}, "target_id"},
		{memory.EdgeForgetRequest{MemoryID: a, Direction: "sideways"}, "direction"},
		{memory.EdgeForgetRequest{MemoryID: a, Relation: "loves"}, "relation"},
		{memory.EdgeForgetRequest{EdgeID: -3}, "edge_id"},
	}
	for _, c := range bad {
		_, err := e.svc.ForgetEdges(ctx, c.req)
		wantInvalid(t, err, c.field)
	}
}

func TestInspectGraph(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	hit, a, b, c := graphFixture(t, e)

	res, err := e.svc.Inspect(ctx, memory.InspectRequest{MemoryID: hit, IncludeScores: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Origin != hit || res.Stats.NodeCount != 4 || res.Stats.EdgeCount != 3 || res.Stats.MaxDepthReached != 2 {
		t.Fatalf("stats %+v", res.Stats)
	}
	if res.Stats.RelationCounts[memory.RelationCausedBy] != 1 || res.Mermaid != "" {
		t.Fatalf("relation counts %v, mermaid %q", res.Stats.RelationCounts, res.Mermaid)
	}
	depth := map[string]int{}
	for _, n := range res.Nodes {
		depth[n.ID] = n.Depth
	}
	if depth[hit] != 0 || depth[a] != 1 || depth[c] != 1 || depth[b] != 2 {
		t.Fatalf("depths %v", depth)
	}
	paths := map[string]memory.GraphPath{}
	for _, p := range res.Paths {
		paths[p.NodeIDs[len(p.NodeIDs)-1]] = p
	}
	pb := paths[b]
	if len(res.Paths) != 3 || strings.Join(pb.NodeIDs, ",") != hit+","+a+","+b ||
		len(pb.Relations) != 2 || pb.Relations[1] != memory.RelationCausedBy {
		t.Fatalf("path to b %+v (paths %d)", pb, len(res.Paths))
	}
	if want := 1.0 * 0.5 * 0.7 * 0.7; pb.Relevance < want-1e-9 || pb.Relevance > want+1e-9 {
		t.Fatalf("relevance of b = %v, want %v", pb.Relevance, want)
	}

	// Outgoing only, depth 1: just a.
	res, err = e.svc.Inspect(ctx, memory.InspectRequest{MemoryID: hit, Direction: memory.DirectionOutgoing, MaxDepth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.NodeCount != 2 || res.Nodes[1].ID != a || res.Paths[0].Relevance != 0 {
		t.Fatalf("outgoing depth 1 without scores: %+v %+v", res.Nodes, res.Paths)
	}
	// Edge types narrow the walk.
	res, err = e.svc.Inspect(ctx, memory.InspectRequest{MemoryID: hit, EdgeTypes: []memory.Relation{memory.RelationContradicts}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.NodeCount != 2 || res.Nodes[1].ID != c {
		t.Fatalf("contradicts only: %+v", res.Nodes)
	}
}

func TestInspectMermaidEscapesLabels(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.remember(t, memory.StoreRequest{Content: `Quote "this" [and] {that} (x) <y> a|b #1`}).ID
	b := e.remember(t, memory.StoreRequest{Content: "plain\nmulti-line note"}).ID
	if _, err := e.svc.Relate(ctx, memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationCausedBy, Weight: ptr(0.5)}); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Inspect(ctx, memory.InspectRequest{MemoryID: a, OutputFormat: "mermaid"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(res.Mermaid), "\n")
	if lines[0] != "graph LR" || len(res.Nodes) != 2 {
		t.Fatalf("mermaid:\n%s", res.Mermaid)
	}
	want := `    n0["session: Quote #quot;this#quot; #91;and#93; #123;that#125; #40;x#41; #lt;y#gt; a#124;b #35;1"]`
	if lines[1] != want {
		t.Fatalf("node line\n got %s\nwant %s", lines[1], want)
	}
	if lines[2] != `    n1["session: plain multi-line note"]` || lines[3] != "    n0 -->|caused_by 0.5| n1" {
		t.Fatalf("mermaid:\n%s", res.Mermaid)
	}
}

func TestInspectRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.remember(t, memory.StoreRequest{Content: "lonely"}).ID
	_, err := e.svc.Inspect(ctx, memory.InspectRequest{MemoryID: "mem_1700000000000_0badf00d"})
	if !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	bad := []struct {
		req   memory.InspectRequest
		field string
	}{
		{memory.InspectRequest{MemoryID: "nope"}, "memory_id"},
		{memory.InspectRequest{MemoryID: a, MaxDepth: 6}, "max_depth"},
		{memory.InspectRequest{MemoryID: a, MaxDepth: -1}, "max_depth"},
		{memory.InspectRequest{MemoryID: a, Direction: "up"}, "direction"},
		{memory.InspectRequest{MemoryID: a, EdgeTypes: []memory.Relation{"x"}}, "edge_types"},
		{memory.InspectRequest{MemoryID: a, OutputFormat: "dot"}, "output_format"},
		{memory.InspectRequest{MemoryID: a, DecayFactor: -0.5}, "decay_factor"},
	}
	for _, c := range bad {
		_, err := e.svc.Inspect(ctx, c.req)
		wantInvalid(t, err, c.field)
	}
	res, err := e.svc.Inspect(ctx, memory.InspectRequest{MemoryID: a, OutputFormat: "mermaid"})
	if err != nil || res.Stats.NodeCount != 1 || len(res.Paths) != 0 || !strings.HasPrefix(res.Mermaid, "graph LR\n    n0[") {
		t.Fatalf("a memory without edges: %+v, %v", res, err)
	}
}
