package viewer

import (
	"net/http"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestCreateMemoryFromThePage(t *testing.T) {
	f := newFixture(t)
	same := map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}
	w := f.do(t, "POST", "/api/memories", `{"content": "Deploys need a second reviewer", "memory_type": "decision", "namespace": "project:shop", "importance": 0.8}`, same)
	res := decode[memory.StoreResult](t, w, http.StatusCreated)
	m, err := f.mem.Get(t.Context(), res.ID)
	if err != nil || m.Content != "Deploys need a second reviewer" || m.Type != memory.TypeDecision || m.Namespace != "project:shop" || m.Importance != 0.8 || m.Source != memory.SourceViewer {
		t.Fatalf("stored %+v, %v", m, err)
	}
	// The same text again is the same memory.
	again := decode[memory.StoreResult](t, f.do(t, "POST", "/api/memories", `{"content": "Deploys need a second reviewer", "namespace": "project:shop"}`, same), http.StatusOK)
	if !again.Duplicate || again.ID != res.ID {
		t.Errorf("storing it again: %+v, want the existing memory", again)
	}
	for _, bad := range []string{`{"content": ""}`, `{"content": "x", "memory_type": "rumour"}`, `{"content": "x", "namespace": "Bad Name"}`, `{"text": "x"}`, `not json`} {
		if w := f.do(t, "POST", "/api/memories", bad, same); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "accepted") {
			t.Errorf("%s: %d %s, want 400 saying what is accepted", bad, w.Code, w.Body)
		}
	}
	// Another site's page cannot store one.
	if w := f.do(t, "POST", "/api/memories", `{"content": "from elsewhere"}`, map[string]string{"Origin": "https://evil.example", "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}); w.Code != http.StatusForbidden {
		t.Errorf("a cross-origin store: %d, want 403", w.Code)
	}
}
