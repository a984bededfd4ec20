package viewer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
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
	chainIDs := func(d Detail) []string {
		var out []string
		for _, n := range d.Chain {
			out = append(out, n.ID)
		}
		return out
	}
	want := []string{oldest, middle, newest}
	for _, id := range want {
		d := decode[Detail](t, f.do(t, "GET", "/api/memories/"+id, "", nil), http.StatusOK)
		if got := chainIDs(d); !slices.Equal(got, want) {
			t.Errorf("chain seen from %s: %v, want oldest to newest %v", id, got, want)
		}
	}
	d := decode[Detail](t, f.do(t, "GET", "/api/memories/"+alone, "", nil), http.StatusOK)
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

// contradiction stores two memories with a contradicts edge between them, as
// memory_detect_contradictions leaves them, and returns their ids and the edge.
func (f *fixture) contradiction(t *testing.T, a, b string, bType memory.Type) (string, string, int64) {
	t.Helper()
	ida := f.store(t, a, memory.TypeDecision, "global")
	idb := f.store(t, b, bType, "global")
	e, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: ida, TargetID: idb, Relation: memory.RelationContradicts})
	if err != nil {
		t.Fatal(err)
	}
	return ida, idb, e
}

// contradictionThrough stores a and b through svc (another process, say) and
// relates them as contradicting; it returns their ids.
func contradictionThrough(t *testing.T, svc *memory.Service, a, b string) (string, string) {
	t.Helper()
	x, err := svc.Remember(t.Context(), memory.StoreRequest{Content: a})
	if err != nil {
		t.Fatal(err)
	}
	y, err := svc.Remember(t.Context(), memory.StoreRequest{Content: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Relate(t.Context(), memory.RelateRequest{SourceID: x.ID, TargetID: y.ID, Relation: memory.RelationContradicts}); err != nil {
		t.Fatal(err)
	}
	return x.ID, y.ID
}

func TestReviewQueueListsContradictionsAndResolvesThem(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	same := map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}
	a1, b1, e1 := f.contradiction(t, "Use tabs for indentation", "Use two spaces for indentation", memory.TypeDecision)
	a2, b2, e2 := f.contradiction(t, "Deploy on Fridays is fine", "Never deploy on Fridays", memory.TypeGoldenRule)
	a3, b3, e3 := f.contradiction(t, "Tests run with -race in CI", "Benchmarks run without -race", memory.TypePattern)
	_, _, e4 := f.contradiction(t, "The cache lives in Redis", "The cache lives in memory", memory.TypePattern)

	q := decode[contradictionQueue](t, f.do(t, "GET", "/api/review/contradictions", "", nil), http.StatusOK)
	if q.Total != 4 || len(q.Pairs) != 4 {
		t.Fatalf("queue: total %d, %d pairs; want 4", q.Total, len(q.Pairs))
	}
	for _, p := range q.Pairs {
		if p.A == nil || p.B == nil || p.A.Content == "" || p.B.Content == "" {
			t.Fatalf("pair %d without both memories in full: %+v", p.EdgeID, p)
		}
	}
	resolve := func(edge int64, body string, want int) *httptest.ResponseRecorder {
		t.Helper()
		w := f.do(t, "POST", "/api/review/contradictions/"+itoa(edge), body, same)
		if w.Code != want {
			t.Fatalf("resolve %d with %s: %d %s, want %d", edge, body, w.Code, w.Body, want)
		}
		return w
	}
	edgesBetween := func(x, y string, rel memory.Relation) int {
		es, err := f.db.Edges(ctx, memory.EdgeQuery{SourceID: x, TargetID: y, Direction: memory.DirectionOutgoing, Relations: []memory.Relation{rel}})
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}

	// B supersedes A: a supersedes edge from B to A, and A leaves the list.
	resolve(e1, `{"resolution": "b_supersedes_a"}`, http.StatusOK)
	if edgesBetween(b1, a1, memory.RelationSupersedes) != 1 {
		t.Errorf("b_supersedes_a left no supersedes edge %s -> %s", b1, a1)
	}
	// A golden rule is superseded only with force.
	resolve(e2, `{"resolution": "a_supersedes_b"}`, http.StatusConflict)
	if edgesBetween(a2, b2, memory.RelationSupersedes) != 0 {
		t.Fatalf("a golden rule was superseded without force")
	}
	resolve(e2, `{"resolution": "a_supersedes_b", "force": true}`, http.StatusOK)
	if edgesBetween(a2, b2, memory.RelationSupersedes) != 1 {
		t.Errorf("forced a_supersedes_b left no supersedes edge")
	}
	// Both hold: the contradiction becomes relates_to.
	resolve(e3, `{"resolution": "both_hold"}`, http.StatusOK)
	if edgesBetween(a3, b3, memory.RelationContradicts) != 0 || edgesBetween(a3, b3, memory.RelationRelatesTo) != 1 {
		t.Errorf("both_hold: want the contradicts edge replaced by relates_to")
	}
	// Not a contradiction: the edge goes, nothing else.
	resolve(e4, `{"resolution": "not_contradiction"}`, http.StatusOK)
	resolve(e4, `{"resolution": "not_contradiction"}`, http.StatusNotFound)
	resolve(e3, `{"resolution": "maybe"}`, http.StatusNotFound) // e3 is gone already
	q = decode[contradictionQueue](t, f.do(t, "GET", "/api/review/contradictions", "", nil), http.StatusOK)
	if q.Total != 0 || len(q.Pairs) != 0 {
		t.Errorf("queue after resolving all: total %d, pairs %+v; want empty", q.Total, q.Pairs)
	}

	_, _, e5 := f.contradiction(t, "Logs go to stderr", "Logs go to a file", memory.TypePattern)
	resolve(e5, `{"resolution": "maybe"}`, http.StatusBadRequest)
	if w := f.do(t, "POST", "/api/review/contradictions/"+itoa(e5), `{"resolution": "not_contradiction"}`,
		map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); w.Code != http.StatusForbidden {
		t.Errorf("cross-origin resolve: %d, want 403", w.Code)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestHealthPanelHasStatsAndTheHealthReport(t *testing.T) {
	f := newFixture(t)
	f.contradiction(t, "Ship on green CI only", "Ship whenever the author is confident", memory.TypeDecision)
	f.store(t, "A third memory", memory.TypeSession, "project:recall")
	p := decode[healthPanel](t, f.do(t, "GET", "/api/health", "", nil), http.StatusOK)
	want, err := f.db.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if p.Stats == nil || p.Stats.Memories != 3 || p.Stats.Edges != 1 || p.Stats.PendingEmbeddings != want.PendingEmbeddings || p.Stats.PendingJobs != want.PendingJobs {
		t.Errorf("stats %+v, want what recall stats reads: %+v", p.Stats, want)
	}
	if p.Stats.ByNamespace["project:recall"] != 1 {
		t.Errorf("by namespace %v, want project:recall 1", p.Stats.ByNamespace)
	}
	if p.Report == nil || p.Report.Counts.Contradictions != 1 || p.Report.Counts.Memories != 3 {
		t.Errorf("report %+v, want 3 memories and 1 contradiction", p.Report)
	}
	if !p.Vector.Usable {
		t.Errorf("vectors unusable with a working embedder: %s", p.Vector.Reason)
	}
	decode[errorBody](t, f.do(t, "GET", "/api/health?namespace=nope:x", "", nil), http.StatusBadRequest)
}
