package viewer

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestGraphIsANeighbourhoodWithACap(t *testing.T) {
	f := newFixture(t)
	hub := f.store(t, "hub memory about the build", memory.TypeDecision, "global")
	near := f.store(t, "one hop away", memory.TypePattern, "global")
	far := f.store(t, "two hops away", memory.TypePattern, "global")
	relate := func(a, b string, rel memory.Relation) {
		t.Helper()
		if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: rel}); err != nil {
			t.Fatal(err)
		}
	}
	relate(hub, near, memory.RelationRelatesTo)
	relate(far, near, memory.RelationSupersedes)

	one := decode[graphView](t, f.do(t, "GET", "/api/memories/"+hub+"/graph", "", nil), http.StatusOK)
	if one.Depth != 1 || len(one.Nodes) != 2 || len(one.Edges) != 1 || one.Nodes[0].ID != hub {
		t.Fatalf("depth 1: %+v; want the hub and its one neighbour", one)
	}
	two := decode[graphView](t, f.do(t, "GET", "/api/memories/"+hub+"/graph?depth=2", "", nil), http.StatusOK)
	if len(two.Nodes) != 3 || len(two.Edges) != 2 || two.Truncated {
		t.Fatalf("depth 2: %+v; want 3 nodes, 2 edges", two)
	}
	if two.Edges[1].Relation != memory.RelationSupersedes {
		t.Errorf("edges %+v: want the relation carried", two.Edges)
	}
	for _, bad := range []string{"depth=0", "depth=4", "depth=x", "deep=2"} {
		if w := f.do(t, "GET", "/api/memories/"+hub+"/graph?"+bad, "", nil); w.Code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, w.Code)
		}
	}
	if w := f.do(t, "GET", "/api/memories/mem_1_abcdef12/graph", "", nil); w.Code != http.StatusNotFound {
		t.Errorf("unknown memory: status %d, want 404", w.Code)
	}

	// A star larger than the cap is cut, and the edges to nodes left out go too.
	for i := range maxGraphNodes + 5 {
		relate(hub, f.store(t, fmt.Sprintf("spoke %d", i), memory.TypeSession, "global"), memory.RelationCausedBy)
	}
	big := decode[graphView](t, f.do(t, "GET", "/api/memories/"+hub+"/graph", "", nil), http.StatusOK)
	if len(big.Nodes) != maxGraphNodes || !big.Truncated || big.Total != maxGraphNodes+7 {
		t.Fatalf("star: %d nodes of %d, truncated %v; want %d of %d, truncated", len(big.Nodes), big.Total, big.Truncated, maxGraphNodes, maxGraphNodes+7)
	}
	kept := map[string]bool{}
	for _, n := range big.Nodes {
		kept[n.ID] = true
	}
	for _, e := range big.Edges {
		if !kept[e.SourceID] || !kept[e.TargetID] {
			t.Errorf("edge %d reaches a node left out", e.ID)
		}
	}
	if len(big.Edges) != maxGraphNodes-1 {
		t.Errorf("star: %d edges, want %d", len(big.Edges), maxGraphNodes-1)
	}
}
