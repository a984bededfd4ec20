package viewer

import (
	"net/http"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func TestTrashListsAndRestoresADeletedMemory(t *testing.T) {
	f := newFixture(t)
	a := f.store(t, "Run migrations before the deploy", memory.TypeDecision, "global")
	b := f.store(t, "Deploys happen on Tuesdays", memory.TypePattern, "global")
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: a, TargetID: b, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	if w := f.do(t, "POST", "/api/memories/"+a+"/validate", `{"success": true}`, nil); w.Code != http.StatusOK {
		t.Fatalf("validate: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "DELETE", "/api/memories/"+a, `{}`, nil); w.Code != http.StatusOK {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	type listing struct {
		Memories []trashItem `json:"memories"`
		KeepDays int         `json:"keep_days"`
	}
	got := decode[listing](t, f.do(t, "GET", "/api/trash", "", nil), http.StatusOK)
	if len(got.Memories) != 1 || got.Memories[0].Memory.ID != a || len(got.Memories[0].Edges) != 1 || len(got.Memories[0].Events) != 1 || got.KeepDays != 30 {
		t.Fatalf("trash: %+v", got)
	}
	if it := got.Memories[0]; it.PurgeAt == nil || it.PurgeAt.Sub(it.DeletedAt) != 30*24*time.Hour {
		t.Errorf("purge_at %v for deleted_at %v, want 30 days later", it.PurgeAt, it.DeletedAt)
	}
	if w := f.do(t, "POST", "/api/trash/"+a+"/restore", "", nil); w.Code != http.StatusOK {
		t.Fatalf("restore: %d %s", w.Code, w.Body)
	}
	d := decode[Detail](t, f.do(t, "GET", "/api/memories/"+a, "", nil), http.StatusOK)
	if d.Memory.Content != "Run migrations before the deploy" || len(d.Edges) != 1 || d.History == nil || len(d.History.Events) != 1 {
		t.Fatalf("restored memory: %+v edges %d", d.Memory, len(d.Edges))
	}
	if got := decode[listing](t, f.do(t, "GET", "/api/trash", "", nil), http.StatusOK); len(got.Memories) != 0 {
		t.Errorf("trash after the restore: %+v", got)
	}
	if w := f.do(t, "POST", "/api/trash/"+a+"/restore", "", nil); w.Code != http.StatusNotFound {
		t.Errorf("second restore: %d %s, want 404", w.Code, w.Body)
	}
}
