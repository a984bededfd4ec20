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
