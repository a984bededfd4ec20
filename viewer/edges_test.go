package viewer

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestAddAndRemoveAnEdge(t *testing.T) {
	f := newFixture(t)
	same := map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}
	a := f.store(t, "Use WAL journal mode", memory.TypeDecision, "global")
	b := f.store(t, "Readers blocked the writer", memory.TypeSession, "global")
	res := decode[map[string]int64](t, f.do(t, "POST", "/api/memories/"+a+"/edges", `{"target_id": "`+b+`", "relation": "caused_by"}`, same), http.StatusCreated)
	g, err := f.mem.Inspect(t.Context(), memory.InspectRequest{MemoryID: a, MaxDepth: 1})
	if err != nil || len(g.Edges) != 1 || g.Edges[0].ID != res["edge_id"] || g.Edges[0].Relation != memory.RelationCausedBy || g.Edges[0].TargetID != b {
		t.Fatalf("after adding: %+v, %v", g, err)
	}
	for _, bad := range []string{`{"target_id": "` + b + `", "relation": "likes"}`, `{"target_id": "mem_0_nothing", "relation": "relates_to"}`, `{}`} {
		if w := f.do(t, "POST", "/api/memories/"+a+"/edges", bad, same); w.Code != http.StatusBadRequest && w.Code != http.StatusNotFound {
			t.Errorf("%s: %d %s, want 400 or 404", bad, w.Code, w.Body)
		}
	}
	edge := fmt.Sprint(res["edge_id"])
	if w := f.do(t, "DELETE", "/api/edges/"+edge, "", same); w.Code != http.StatusOK {
		t.Fatalf("removing: %d %s", w.Code, w.Body)
	}
	if g, _ := f.mem.Inspect(t.Context(), memory.InspectRequest{MemoryID: a, MaxDepth: 1}); len(g.Edges) != 0 {
		t.Errorf("after removing: %+v", g.Edges)
	}
	if _, err := f.mem.Get(t.Context(), b); err != nil {
		t.Errorf("removing the edge removed a memory: %v", err)
	}
	if w := f.do(t, "DELETE", "/api/edges/"+edge, "", same); w.Code != http.StatusNotFound {
		t.Errorf("removing it again: %d, want 404", w.Code)
	}
	if w := f.do(t, "DELETE", "/api/edges/x", "", same); w.Code != http.StatusBadRequest {
		t.Errorf("edge x: %d, want 400", w.Code)
	}
}

// TestSupersedingAGoldenRuleNeedsForce: the edge form keeps the service's rule
// (409 naming force once), and force lets it through.
func TestSupersedingAGoldenRuleNeedsForce(t *testing.T) {
	f := newFixture(t)
	same := map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}
	newer := f.store(t, "Deploys on Fridays are fine before noon", memory.TypeDecision, "global")
	golden := f.store(t, "Never deploy on Fridays", memory.TypeGoldenRule, "global")
	w := f.do(t, "POST", "/api/memories/"+newer+"/edges", `{"target_id": "`+golden+`", "relation": "supersedes"}`, same)
	if w.Code != http.StatusConflict || strings.Count(w.Body.String(), "force") != 1 {
		t.Fatalf("without force: %d %s, want 409 saying force once", w.Code, w.Body)
	}
	decode[map[string]int64](t, f.do(t, "POST", "/api/memories/"+newer+"/edges", `{"target_id": "`+golden+`", "relation": "supersedes", "force": true}`, same), http.StatusCreated)
}
