package viewer

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// withRecords is the fixture's viewer with the store's export and import and
// the project resolver, as recall serve wires it for client machines.
func withRecords(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.h = New(Deps{Memory: f.mem, Validation: f.val, DB: f.db, Journal: f.journal(), Records: f.db,
		Projects: project.NewResolver(f.db, "", nil)})
	return f
}

func TestImportRefusesABadFileInWordsAndWritesNothing(t *testing.T) {
	f := withRecords(t)
	// A newer export's header: the file's fault, 400 with what to do.
	w := f.do(t, "POST", "/api/import", `{"record":"header","format":"recall-export","version":99}`+"\n", nil)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "upgrade recall") {
		t.Errorf("a newer export: %d %s", w.Code, w.Body)
	}
	w = f.do(t, "POST", "/api/import?namespace=nope", "", nil)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "namespace") {
		t.Errorf("a bad namespace: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "POST", "/api/import?limit=3", "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "unknown parameter") {
		t.Errorf("an unknown parameter: %d %s", w.Code, w.Body)
	}
	n, err := f.mem.Count(t.Context(), memory.CountRequest{})
	if err != nil || n != 0 {
		t.Errorf("after refused imports the store holds %d memories (%v)", n, err)
	}
	w = f.do(t, "POST", "/api/import?namespace=project:shop", `{"type":"entity","name":"Billing","entityType":"service","observations":["retries thrice"]}`+"\n", nil)
	rep := decode[struct {
		Result struct{ Memories int } `json:"result"`
	}](t, w, http.StatusOK)
	if rep.Result.Memories != 1 {
		t.Errorf("a memory server file imported %d memories", rep.Result.Memories)
	}
}

func TestExportOfEverythingTakesNoFilters(t *testing.T) {
	f := withRecords(t)
	id := f.store(t, "Deploys MUST be tagged", memory.TypeDecision, "global")
	w := f.do(t, "GET", "/api/export?format=jsonl", "", nil)
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), `{"record":"header"`) || !strings.Contains(w.Body.String(), id) {
		t.Errorf("export jsonl: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "GET", "/api/export?format=jsonl&namespace=global", "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "takes no filters") {
		t.Errorf("export jsonl with a filter: %d %s", w.Code, w.Body)
	}
	// Without the store's records (a viewer wired without them) it says so.
	plain := newFixture(t)
	if w := plain.do(t, "GET", "/api/export?format=jsonl", "", nil); w.Code != http.StatusNotFound {
		t.Errorf("export jsonl without records: %d %s", w.Code, w.Body)
	}
}

func TestCreateWithAClientsProjectGoesToItsNamespace(t *testing.T) {
	f := withRecords(t)
	hdr := map[string]string{project.Header: project.Client{Root: "git:github.com/acme/shop"}.Encode(), memory.SourceHeader: memory.SourceCLI}
	res := decode[memory.StoreResult](t, f.do(t, "POST", "/api/memories", `{"content": "Carts expire after a day"}`, hdr), http.StatusCreated)
	if res.Namespace != "project:shop" {
		t.Errorf("a memory from a client in git:github.com/acme/shop went to %s", res.Namespace)
	}
	m, err := f.mem.Get(t.Context(), res.ID)
	if err != nil || m.Source != memory.SourceCLI {
		t.Errorf("the CLI's memory records its source as %q (%v)", m.Source, err)
	}
	// A namespace given wins; a malformed header is refused in words.
	res = decode[memory.StoreResult](t, f.do(t, "POST", "/api/memories", `{"content": "Global note", "namespace": "global"}`, hdr), http.StatusCreated)
	if res.Namespace != "global" {
		t.Errorf("with a namespace given: %s", res.Namespace)
	}
	w := f.do(t, "POST", "/api/memories", `{"content": "x"}`, map[string]string{project.Header: "%zz"})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), project.Header) {
		t.Errorf("a malformed %s: %d %s", project.Header, w.Code, w.Body)
	}
}

func TestForgetJournalCountsUnlessConfirmed(t *testing.T) {
	f := newFixture(t)
	var asked struct {
		session string
		confirm bool
	}
	f.h = New(Deps{Memory: f.mem, Validation: f.val, DB: f.db, Journal: f.journal(),
		ForgetCaptured: func(_ context.Context, session string, _ time.Time, confirm bool) (*capture.ForgetResult, error) {
			asked.session, asked.confirm = session, confirm
			return &capture.ForgetResult{Entries: 3}, nil
		}})
	got := decode[forgottenCaptured](t, f.do(t, "POST", "/api/journal/forget", `{"session": "s1"}`, nil), http.StatusOK)
	if !got.DryRun || got.Entries != 3 || asked.session != "s1" || asked.confirm {
		t.Errorf("unconfirmed forget: %+v, asked %+v", got, asked)
	}
	for _, body := range []string{`{}`, `{"before": "yesterday"}`, `{"session": "s1", "sure": true}`} {
		if w := f.do(t, "POST", "/api/journal/forget", body, nil); w.Code != http.StatusBadRequest {
			t.Errorf("forget %s: %d %s", body, w.Code, w.Body)
		}
	}
}
