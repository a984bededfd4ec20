package viewer

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

func TestListPagesNewestFirstWithFilters(t *testing.T) {
	f := newFixture(t)
	var stored []string
	for i := range 5 {
		stored = append(stored, f.store(t, fmt.Sprintf("note number %d about topic %d", i, i), memory.TypeDecision, "project:alpha"))
	}
	other := f.store(t, "prefer tabs in Makefiles", memory.TypePreference, "global")

	all := decode[page](t, f.do(t, "GET", "/api/memories?limit=4", "", nil), http.StatusOK)
	if all.Total != 6 || len(all.Memories) != 4 || !all.HasMore {
		t.Fatalf("first page: total %d, %d memories, has_more %v; want 6, 4, true", all.Total, len(all.Memories), all.HasMore)
	}
	rest := decode[page](t, f.do(t, "GET", "/api/memories?limit=4&offset=4", "", nil), http.StatusOK)
	if len(rest.Memories) != 2 || rest.HasMore {
		t.Fatalf("second page: %d memories, has_more %v; want 2, false", len(rest.Memories), rest.HasMore)
	}
	seen := append(ids(all), ids(rest)...)
	slices.Sort(seen)
	want := append(slices.Clone(stored), other)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Errorf("pages hold %v, want every stored memory once: %v", seen, want)
	}

	byNS := decode[page](t, f.do(t, "GET", "/api/memories?namespace=global", "", nil), http.StatusOK)
	if got := ids(byNS); !slices.Equal(got, []string{other}) {
		t.Errorf("namespace=global: %v, want [%s]", got, other)
	}
	if w := f.do(t, "POST", "/api/memories/"+other+"/validate", `{"success": true}`, nil); w.Code != http.StatusOK {
		t.Fatalf("validate: %d %s", w.Code, w.Body)
	}
	byConfidence := decode[page](t, f.do(t, "GET", "/api/memories?order_by=confidence&limit=1", "", nil), http.StatusOK)
	if got := ids(byConfidence); !slices.Equal(got, []string{other}) {
		t.Errorf("order_by=confidence: %v, want the validated %s first", got, other)
	}
	byType := decode[page](t, f.do(t, "GET", "/api/memories?type=decision", "", nil), http.StatusOK)
	if byType.Total != 5 {
		t.Errorf("type=decision: total %d, want 5", byType.Total)
	}
}

func TestSearchNarrowsTheList(t *testing.T) {
	f := newFixture(t)
	want := f.store(t, "Use WAL journal mode for SQLite so readers never block the writer", memory.TypeDecision, "global")
	f.store(t, "Prefer table-driven tests in Go", memory.TypePreference, "global")
	f.store(t, "Release notes go in CHANGELOG.md", memory.TypePattern, "global")

	p := decode[page](t, f.do(t, "GET", "/api/memories?q=journal+mode", "", nil), http.StatusOK)
	if len(p.Memories) == 0 || p.Memories[0].ID != want {
		t.Fatalf("search journal mode: %v, want %s first", ids(p), want)
	}
	// Vector neighbours rank every memory, so the search narrows by order (the
	// match first) and by the filters, which apply to it as to the list.
	if p.Memories[0].Score == nil || p.Query != "journal mode" || p.SearchMode == "" {
		t.Errorf("search hit without score, query or mode: %+v", p)
	}

	// A person searching is not an agent using a memory: access counts stay.
	m, err := f.mem.Get(t.Context(), want)
	if err != nil || m.AccessCount != 0 {
		t.Errorf("after a viewer search: access count %v (%v), want 0", m.AccessCount, err)
	}

	patterns := decode[page](t, f.do(t, "GET", "/api/memories?q=journal+mode&type=pattern", "", nil), http.StatusOK)
	if len(patterns.Memories) != 1 || patterns.Memories[0].Type != memory.TypePattern {
		t.Errorf("search with type=pattern: %v, want the one pattern", ids(patterns))
	}
	one := decode[page](t, f.do(t, "GET", "/api/memories?q=journal+mode&limit=1", "", nil), http.StatusOK)
	if len(one.Memories) != 1 || one.Memories[0].ID != want || !one.HasMore {
		t.Errorf("search with limit=1: %v (has_more %v), want [%s] and more", ids(one), one.HasMore, want)
	}
}

func TestMemoryDetailHasEdgesAndValidationEvents(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a := f.store(t, "Run migrations before starting the server", memory.TypeDecision, "global")
	b := f.store(t, "The server refuses to start on an old schema", memory.TypePattern, "global")
	if _, err := f.mem.Relate(ctx, memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationCausedBy}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.val.Validate(ctx, validation.ValidateRequest{MemoryID: a, Success: true}); err != nil {
		t.Fatal(err)
	}

	d := decode[Detail](t, f.do(t, "GET", "/api/memories/"+a, "", nil), http.StatusOK)
	if d.Memory.ID != a || !strings.HasPrefix(d.Memory.Content, "Run migrations") {
		t.Errorf("memory %+v, want %s", d.Memory, a)
	}
	if len(d.Edges) != 1 || d.Edges[0].TargetID != b || d.Edges[0].Relation != memory.RelationCausedBy {
		t.Errorf("edges %+v, want one caused_by to %s", d.Edges, b)
	}
	if len(d.Neighbors) != 1 || d.Neighbors[0].ID != b {
		t.Errorf("neighbors %+v, want %s", d.Neighbors, b)
	}
	if d.History == nil || len(d.History.Events) != 1 || d.History.Events[0].EventType != memory.EventSucceeded {
		t.Errorf("validation %+v, want one succeeded event", d.History)
	}

	// The edge shows on the other end too, pointing in.
	db := decode[Detail](t, f.do(t, "GET", "/api/memories/"+b, "", nil), http.StatusOK)
	if len(db.Edges) != 1 || db.Edges[0].SourceID != a {
		t.Errorf("edges of %s: %+v, want the one from %s", b, db.Edges, a)
	}
}

func TestValidateRecordsAnEvent(t *testing.T) {
	f := newFixture(t)
	id := f.store(t, "Keep functions short", memory.TypePreference, "global")
	w := f.do(t, "POST", "/api/memories/"+id+"/validate", `{"success": true}`,
		map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"})
	res := decode[validation.ValidateResult](t, w, http.StatusOK)
	if res.NewConfidence <= res.OldConfidence {
		t.Errorf("confidence %v -> %v, want a rise", res.OldConfidence, res.NewConfidence)
	}
	h, err := f.val.History(context.Background(), validation.HistoryRequest{MemoryID: id})
	if err != nil || len(h.Events) != 1 {
		t.Fatalf("history after validate: %+v, %v; want one event", h, err)
	}
}

func TestBadInputNamesTheParameter(t *testing.T) {
	f := newFixture(t)
	id := f.store(t, "something", memory.TypeSession, "global")
	cases := []struct {
		method, target, body string
		status               int
		mention              string
	}{
		{"GET", "/api/memories?limit=0", "", http.StatusBadRequest, "limit"},
		{"GET", "/api/memories?limit=abc", "", http.StatusBadRequest, "limit"},
		{"GET", "/api/memories?offset=-1", "", http.StatusBadRequest, "offset"},
		{"GET", "/api/memories?type=opinion", "", http.StatusBadRequest, "memory_type"},
		{"GET", "/api/memories?namespace=team%3Ax", "", http.StatusBadRequest, "namespace"},
		{"GET", "/api/memories?sort=new", "", http.StatusBadRequest, `unknown parameter "sort"`},
		{"GET", "/api/memories?q=x&offset=100", "", http.StatusBadRequest, "offset"},
		{"GET", "/api/memories?order_by=size", "", http.StatusBadRequest, "order_by"},
		{"GET", "/api/memories?q=x&order_by=confidence", "", http.StatusBadRequest, "order_by"},
		{"GET", "/api/memories/not-an-id", "", http.StatusBadRequest, "memory_id"},
		{"GET", "/api/memories/mem_1_abcdef12", "", http.StatusNotFound, "not found"},
		{"POST", "/api/memories/" + id + "/validate", `{"ok": 1}`, http.StatusBadRequest, "success"},
		{"GET", "/api/nothing", "", http.StatusNotFound, "no API route"},
	}
	for _, c := range cases {
		w := f.do(t, c.method, c.target, c.body, nil)
		body := decode[errorBody](t, w, c.status)
		if !strings.Contains(body.Error, c.mention) {
			t.Errorf("%s %s: error %q does not mention %q", c.method, c.target, body.Error, c.mention)
		}
	}
}
