package viewer

import (
	"net/http"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestEditThroughTheService(t *testing.T) {
	f := newFixture(t)
	id := f.store(t, "the build uses bazel", memory.TypeDecision, "project:recall")

	res := decode[memory.UpdateResult](t, f.do(t, "PATCH", "/api/memories/"+id,
		`{"content": "the build uses make", "memory_type": "pattern", "importance": 0.9}`, nil), http.StatusOK)
	if res.Memory.Content != "the build uses make" || res.Memory.Type != memory.TypePattern || res.Memory.Importance != 0.9 {
		t.Fatalf("after edit: %+v", res.Memory)
	}
	m, err := f.mem.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if log, err := f.mem.Changes(t.Context(), id); err != nil || len(log) != 1 || log[0].Source != "viewer" || len(log[0].Fields) != 3 {
		t.Errorf("edit recorded as %+v (%v), want one by the viewer with three fields", log, err)
	}
	if m.ContentHash != memory.ContentHash("the build uses make") {
		t.Errorf("content hash not the new content's")
	}

	for _, c := range []struct{ body, why string }{
		{`{}`, "nothing to change"},
		{`{"importance": 2}`, "importance out of range"},
		{`{"memory_type": "note"}`, "unknown type"},
		{`{"content": ""}`, "empty content"},
		{`{"confidence": 1}`, "confidence is the validation loop's"},
	} {
		if w := f.do(t, "PATCH", "/api/memories/"+id, c.body, nil); w.Code != http.StatusBadRequest {
			t.Errorf("%s (%s): status %d, want 400", c.body, c.why, w.Code)
		}
	}
	if w := f.do(t, "PATCH", "/api/memories/"+id, `{"importance": 0.1}`, map[string]string{"Origin": "https://evil.example"}); w.Code != http.StatusForbidden {
		t.Errorf("cross-origin edit: status %d, want 403", w.Code)
	}
}

func TestDemoteNeedsAReason(t *testing.T) {
	f := newFixture(t)
	id := f.store(t, "never force-push main", memory.TypeGoldenRule, "project:recall")
	if w := f.do(t, "PATCH", "/api/memories/"+id, `{"memory_type": "pattern"}`, nil); w.Code != http.StatusConflict {
		t.Errorf("type change of a golden rule by edit: status %d, want 409", w.Code)
	}
	if w := f.do(t, "POST", "/api/memories/"+id+"/demote", `{"reason": "  "}`, nil); w.Code != http.StatusBadRequest {
		t.Errorf("demote without a reason: status %d, want 400", w.Code)
	}
	m := decode[memory.Memory](t, f.do(t, "POST", "/api/memories/"+id+"/demote", `{"reason": "release branches are force-pushed"}`, nil), http.StatusOK)
	if m.Type == memory.TypeGoldenRule || m.Metadata["demoted_reason"] != "release branches are force-pushed" || m.Metadata["demoted_by"] != "viewer" {
		t.Errorf("after demote: %+v", m)
	}
}
