package viewer

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestExportTheFilteredView(t *testing.T) {
	f := newFixture(t)
	a := f.store(t, "Use WAL journal mode for SQLite.", memory.TypeDecision, "project:recall")
	b := f.store(t, "Release notes go in CHANGELOG.md\n# not a heading", memory.TypePattern, "project:recall")
	other := f.store(t, "Prefer table-driven tests in Go", memory.TypePreference, "global")

	w := f.do(t, "GET", "/api/export?format=json&namespace=project:recall", "", nil)
	ex := decode[exportFile](t, w, http.StatusOK)
	if ex.Count != 2 || len(ex.Memories) != 2 || ex.Filters["namespace"] != "project:recall" {
		t.Fatalf("json export: %+v", ex)
	}
	for _, m := range ex.Memories {
		if m.ID == other {
			t.Errorf("a memory outside the filter was exported")
		}
	}
	if cd := w.Header().Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Errorf("Content-Disposition %q, want an attachment", cd)
	}

	w = f.do(t, "GET", "/api/export?format=markdown&namespace=project:recall&type=pattern", "", nil)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown") {
		t.Fatalf("markdown export: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	md := w.Body.String()
	if !strings.Contains(md, b) || strings.Contains(md, a) || !strings.Contains(md, "> # not a heading") || !strings.Contains(md, "type=pattern") {
		t.Errorf("markdown export:\n%s", md)
	}

	// A search exports its hits, ranked.
	w = f.do(t, "GET", "/api/export?format=json&q=journal+mode&type=decision", "", nil)
	var hits exportFile
	if err := json.Unmarshal(w.Body.Bytes(), &hits); err != nil || hits.Count != 1 || hits.Memories[0].ID != a {
		t.Errorf("search export: %s (%v)", w.Body, err)
	}
	// An export is a look, not a use.
	if m, _ := f.mem.Get(t.Context(), a); m.AccessCount != 0 {
		t.Errorf("export counted %d accesses", m.AccessCount)
	}
	for _, bad := range []string{"format=csv", "", "format=json&q=x&order_by=confidence", "format=json&limit=3"} {
		if w := f.do(t, "GET", "/api/export?"+bad, "", nil); w.Code != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", bad, w.Code)
		}
	}
}

func TestExportPagesThroughTheWholeList(t *testing.T) {
	f := newFixture(t)
	for range memory.MaxListLimit + 3 {
		if _, _, err := f.db.InsertMemory(t.Context(), newTestMemory(), nil); err != nil {
			t.Fatal(err)
		}
	}
	ex := decode[exportFile](t, f.do(t, "GET", "/api/export?format=json", "", nil), http.StatusOK)
	if ex.Count != memory.MaxListLimit+3 {
		t.Errorf("exported %d, want every one of %d", ex.Count, memory.MaxListLimit+3)
	}
}

// An export of a view bounded by confidence and dates, superseded memories
// shown, names every one of those filters in its header, JSON and Markdown.
func TestExportHeaderNamesEveryFilter(t *testing.T) {
	f := newFixture(t)
	old := f.store(t, "The API listens on port 8080", memory.TypeDecision, "global")
	cur := f.store(t, "The API listens on port 9090", memory.TypeDecision, "global")
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: cur, TargetID: old, Relation: memory.RelationSupersedes}); err != nil {
		t.Fatal(err)
	}
	q := "min_confidence=0.2&max_confidence=0.8&since=2020-01-01&until=2099-12-31&include_superseded=true"
	ex := decode[exportFile](t, f.do(t, "GET", "/api/export?format=json&"+q, "", nil), http.StatusOK)
	want := map[string]string{"min_confidence": "0.2", "max_confidence": "0.8", "since": "2020-01-01", "until": "2099-12-31", "include_superseded": "true"}
	for k, v := range want {
		if ex.Filters[k] != v {
			t.Errorf("JSON export's filters %v: %s is %q, want %q", ex.Filters, k, ex.Filters[k], v)
		}
	}
	if ex.Count != 2 {
		t.Errorf("exported %d memories, want both versions (superseded shown)", ex.Count)
	}
	md := f.do(t, "GET", "/api/export?format=markdown&"+q, "", nil).Body.String()
	for k, v := range want {
		if !strings.Contains(md, k+"="+v) {
			t.Errorf("Markdown export's header leaves out %s=%s:\n%s", k, v, md[:min(len(md), 400)])
		}
	}
	// Without include_superseded the list and the export leave the old version out.
	p := decode[page](t, f.do(t, "GET", "/api/memories", "", nil), http.StatusOK)
	if len(p.Memories) != 1 || p.Memories[0].ID != cur {
		t.Errorf("list without superseded: %v, want only %s", ids(p), cur)
	}
	p = decode[page](t, f.do(t, "GET", "/api/memories?include_superseded=true", "", nil), http.StatusOK)
	if len(p.Memories) != 2 {
		t.Errorf("list with superseded: %v, want both", ids(p))
	}
	if w := f.do(t, "GET", "/api/memories?include_superseded=maybe", "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "true or false") {
		t.Errorf("include_superseded=maybe: %d %s, want 400 saying what is accepted", w.Code, w.Body)
	}
}
