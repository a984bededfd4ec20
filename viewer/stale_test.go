package viewer

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// storeOld saves a memory as if written days ago (never validated since).
func (f *fixture) storeOld(t testing.TB, content string, typ memory.Type, ns string, days int) string {
	t.Helper()
	at := time.Now().UTC().Add(-time.Duration(days) * 24 * time.Hour)
	m := &memory.Memory{ID: memory.NewID(at), Content: content, Type: typ, Namespace: ns,
		Importance: memory.DefaultImportance, Confidence: memory.DefaultConfidence, CreatedAt: at, UpdatedAt: at, AccessedAt: at}
	if _, _, err := f.db.InsertMemory(t.Context(), m, nil); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// The stale review lists what nobody validated for the chosen days; re-validating
// takes a memory off the list, archiving takes it out of the store into the
// trash, kept until restored.
func TestStaleReviewRevalidateAndArchive(t *testing.T) {
	f := newFixture(t)
	oldest := f.storeOld(t, "Deploy with the old Makefile target", memory.TypeDecision, "project:shop", 90)
	old := f.storeOld(t, "Use tabs in the Makefile", memory.TypePattern, "project:shop", 45)
	rule := f.storeOld(t, "Never push to main", memory.TypeGoldenRule, "project:shop", 60)
	fresh := f.store(t, "Prefer short commit titles", memory.TypePreference, "project:shop")

	list := func(query string) validation.StaleReport {
		t.Helper()
		return decode[validation.StaleReport](t, f.do(t, "GET", "/api/review/stale"+query, "", nil), http.StatusOK)
	}
	ids := func(rep validation.StaleReport) string {
		var out []string
		for _, m := range rep.Memories {
			out = append(out, m.ID)
		}
		return strings.Join(out, " ")
	}
	rep := list("?namespace=project:shop&days=30")
	if want := oldest + " " + rule + " " + old; ids(rep) != want || rep.Total != 3 || rep.Memories[0].DaysSinceCheck != 90 {
		t.Fatalf("stale for 30 days: %s (total %d), want %s, the longest unchecked first", ids(rep), rep.Total, want)
	}
	if rep := list("?namespace=project:shop&days=50"); ids(rep) != oldest+" "+rule {
		t.Errorf("stale for 50 days: %s", ids(rep))
	}
	if rep := list("?namespace=project:shop&days=365&below=0.5"); rep.Total != 4 || !strings.Contains(ids(rep), fresh) {
		t.Errorf("under 0.5: %s (total %d), want all four (confidence 0.3)", ids(rep), rep.Total)
	}

	// Re-validate: a successful validation each, and they leave the list.
	conf := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", `{"action":"confirm","ids":["`+old+`"]}`, nil), http.StatusOK)
	if conf.Done != 1 {
		t.Fatalf("re-validate: %+v", conf)
	}
	if rep := list("?namespace=project:shop&days=30"); ids(rep) != oldest+" "+rule {
		t.Errorf("after re-validating %s: %s", old, ids(rep))
	}

	// Archive: a golden rule needs force; the dry run counts first.
	body := `{"action":"archive","ids":["` + oldest + `","` + rule + `"]}`
	if w := f.do(t, "POST", "/api/memories/bulk", body, nil); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "tick force to archive them too; nothing was changed") {
		t.Fatalf("archive with a golden rule, no force: %d %s", w.Code, w.Body)
	}
	arch := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", `{"action":"archive","ids":["`+oldest+`"]}`, nil), http.StatusOK)
	if arch.Done != 1 || arch.Message != "archived 1 of 1 memories" {
		t.Fatalf("archive: %+v", arch)
	}
	if _, err := f.mem.Get(t.Context(), oldest); err == nil {
		t.Fatalf("%s is still in the store after the archive", oldest)
	}
	trash := decode[struct {
		Memories []trashItem `json:"memories"`
	}](t, f.do(t, "GET", "/api/trash", "", nil), http.StatusOK)
	if len(trash.Memories) != 1 || trash.Memories[0].Memory.ID != oldest || !trash.Memories[0].Archived || trash.Memories[0].PurgeAt != nil {
		t.Fatalf("trash after the archive: %+v", trash.Memories)
	}
	decode[map[string]any](t, f.do(t, "POST", "/api/trash/"+oldest+"/restore", "", nil), http.StatusOK)
	if _, err := f.mem.Get(t.Context(), oldest); err != nil {
		t.Fatalf("restore of an archived memory: %v", err)
	}

	for _, bad := range []string{"?days=0", "?days=x", "?below=2", "?limit=501", "?since=3", "?namespace=proj:x"} {
		if w := f.do(t, "GET", "/api/review/stale"+bad, "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "accepted") {
			t.Errorf("%s: %d %s, want 400 saying what is accepted", bad, w.Code, w.Body)
		}
	}
}

// Restoring a memory whose text was stored again since it was archived joins
// its record to that copy instead of failing.
func TestRestoreOverACopyStoredSince(t *testing.T) {
	f := newFixture(t)
	old := f.storeOld(t, "Deploy with the old Makefile target", memory.TypeDecision, "project:shop", 90)
	decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", `{"action":"archive","ids":["`+old+`"]}`, nil), http.StatusOK)
	again := f.store(t, "Deploy with the old Makefile target", memory.TypeDecision, "project:shop")
	if again == old {
		t.Fatalf("the text stored again kept the archived id %s", old)
	}
	res := decode[map[string]any](t, f.do(t, "POST", "/api/trash/"+old+"/restore", "", nil), http.StatusOK)
	if res["restored_id"] != again {
		t.Fatalf("restore over a copy: %v, want restored_id %s", res, again)
	}
	changes, err := f.mem.Changes(t.Context(), again)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 || changes[0].Action != memory.ChangeRestore || changes[0].RelatedID != old {
		t.Errorf("the copy's change log: %+v, want the restore newest, naming %s", changes, old)
	}
	if w := f.do(t, "GET", "/api/trash", "", nil); strings.Contains(w.Body.String(), old) {
		t.Errorf("the restored record is still in the trash: %s", w.Body)
	}
}
