package viewer

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestMemoryDetailHasTheSupersessionChain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	oldest := f.store(t, "Deploy with rsync", memory.TypeDecision, "global")
	middle := f.store(t, "Deploy with a tarball and a symlink switch", memory.TypeDecision, "global")
	newest := f.store(t, "Deploy with container images", memory.TypeDecision, "global")
	alone := f.store(t, "Unrelated note", memory.TypeSession, "global")
	for _, e := range [][2]string{{middle, oldest}, {newest, middle}} {
		if _, err := f.mem.Relate(ctx, memory.RelateRequest{SourceID: e[0], TargetID: e[1], Relation: memory.RelationSupersedes}); err != nil {
			t.Fatal(err)
		}
	}
	// A related memory is not a version: it stays out of the chain.
	if _, err := f.mem.Relate(ctx, memory.RelateRequest{SourceID: middle, TargetID: alone, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	chainIDs := func(d detail) []string {
		var out []string
		for _, n := range d.Chain {
			out = append(out, n.ID)
		}
		return out
	}
	want := []string{oldest, middle, newest}
	for _, id := range want {
		d := decode[detail](t, f.do(t, "GET", "/api/memories/"+id, "", nil), http.StatusOK)
		if got := chainIDs(d); !slices.Equal(got, want) {
			t.Errorf("chain seen from %s: %v, want oldest to newest %v", id, got, want)
		}
	}
	d := decode[detail](t, f.do(t, "GET", "/api/memories/"+alone, "", nil), http.StatusOK)
	if got := chainIDs(d); !slices.Equal(got, []string{alone}) {
		t.Errorf("chain of a memory without versions: %v, want itself only", got)
	}
}

func TestDeleteForgetsByIDAndKeepsGoldenRulesWithoutForce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	plain := f.store(t, "Temporary note about a flaky test", memory.TypeSession, "global")
	other := f.store(t, "The flaky test was a race in the cache", memory.TypePattern, "global")
	golden := f.store(t, "Never force-push to main", memory.TypeGoldenRule, "global")
	if _, err := f.mem.Relate(ctx, memory.RelateRequest{SourceID: plain, TargetID: other, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	same := map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}

	res := decode[memory.ForgetResult](t, f.do(t, "DELETE", "/api/memories/"+plain, `{}`, same), http.StatusOK)
	if res.DeletedCount != 1 || res.DeletedIDs[0] != plain {
		t.Errorf("delete: %+v, want %s deleted", res, plain)
	}
	if _, err := f.mem.Get(ctx, plain); err == nil {
		t.Errorf("%s still exists after delete", plain)
	}
	if _, err := f.mem.Get(ctx, other); err != nil {
		t.Errorf("the memory at the other end of an edge went too: %v", err)
	}

	refused := decode[errorBody](t, f.do(t, "DELETE", "/api/memories/"+golden, `{"force": false}`, same), http.StatusConflict)
	if _, err := f.mem.Get(ctx, golden); err != nil {
		t.Fatalf("a golden rule was deleted without force (%q): %v", refused.Error, err)
	}
	// Another site's page cannot delete, with or without force.
	if w := f.do(t, "DELETE", "/api/memories/"+golden, `{"force": true}`,
		map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); w.Code != http.StatusForbidden {
		t.Fatalf("cross-origin delete: status %d, want 403", w.Code)
	}
	decode[memory.ForgetResult](t, f.do(t, "DELETE", "/api/memories/"+golden, `{"force": true}`, same), http.StatusOK)
	if _, err := f.mem.Get(ctx, golden); err == nil {
		t.Errorf("golden rule %s survived a forced delete", golden)
	}
	decode[errorBody](t, f.do(t, "DELETE", "/api/memories/"+golden, `{}`, same), http.StatusNotFound)
	decode[errorBody](t, f.do(t, "DELETE", "/api/memories/"+other, `{"everything": true}`, same), http.StatusBadRequest)
}
