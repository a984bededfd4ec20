package viewer

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func TestBulkDeleteAndConfirm(t *testing.T) {
	f := newFixture(t)
	a := f.store(t, "Run migrations before the deploy", memory.TypeDecision, "project:alpha")
	b := f.store(t, "Prefer small commits", memory.TypePreference, "global")
	c := f.store(t, "Never push to main without review", memory.TypeGoldenRule, "global")
	d := f.store(t, "Keep the changelog current", memory.TypePattern, "global")

	// A dry run counts and previews, changing nothing.
	body := `{"action":"delete","ids":["` + a + `","` + b + `","` + c + `","` + a + `"],"dry_run":true}`
	dry := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", body, nil), http.StatusOK)
	if dry.Count != 3 || dry.Golden != 1 || dry.Done != 0 || len(dry.Items) != 3 || dry.Items[0].Preview != "Run migrations before the deploy" {
		t.Fatalf("dry run: %+v", dry)
	}
	for _, id := range []string{a, b, c} {
		if _, err := f.mem.Get(t.Context(), id); err != nil {
			t.Fatalf("dry run changed %s: %v", id, err)
		}
	}
	// A golden rule in the selection needs force: nothing goes without it.
	body = `{"action":"delete","ids":["` + a + `","` + b + `","` + c + `"]}`
	if w := f.do(t, "POST", "/api/memories/bulk", body, nil); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "1 of the 3 selected memories is a golden rule") {
		t.Fatalf("delete with a golden rule, no force: %d %s", w.Code, w.Body)
	}
	if _, err := f.mem.Get(t.Context(), a); err != nil {
		t.Fatalf("refused delete removed %s: %v", a, err)
	}
	// An unknown id refuses the whole selection.
	missing := memory.NewID(time.Now())
	if w := f.do(t, "POST", "/api/memories/bulk", `{"action":"delete","ids":["`+a+`","`+missing+`"]}`, nil); w.Code != http.StatusNotFound {
		t.Fatalf("delete with an unknown id: %d %s", w.Code, w.Body)
	}
	if _, err := f.mem.Get(t.Context(), a); err != nil {
		t.Fatalf("refused delete removed %s: %v", a, err)
	}

	// Confirm records a successful validation on each.
	conf := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", `{"action":"confirm","ids":["`+b+`","`+d+`"]}`, nil), http.StatusOK)
	if conf.Count != 2 || conf.Done != 2 || conf.Message != "confirmed 2 of 2 memories" {
		t.Fatalf("confirm: %+v", conf)
	}
	for _, id := range []string{b, d} {
		m, err := f.mem.Get(t.Context(), id)
		if err != nil || m.Confidence <= 0.3 {
			t.Fatalf("%s after confirm: %+v %v", id, m, err)
		}
	}
	// With force, all three go.
	body = `{"action":"delete","ids":["` + a + `","` + b + `","` + c + `"],"force":true}`
	del := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", body, nil), http.StatusOK)
	if del.Count != 3 || del.Done != 3 || del.Message != "deleted 3 of 3 memories" {
		t.Fatalf("forced delete: %+v", del)
	}
	for _, id := range []string{a, b, c} {
		if _, err := f.mem.Get(t.Context(), id); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("%s after delete: %v, want not found", id, err)
		}
	}
	if _, err := f.mem.Get(t.Context(), d); err != nil {
		t.Errorf("unselected %s: %v", d, err)
	}
	for _, bad := range []string{`{"action":"shred","ids":["` + d + `"]}`, `{"action":"delete","ids":[]}`, `{"action":"delete","ids":["` + d + `"],"x":1}`} {
		if w := f.do(t, "POST", "/api/memories/bulk", bad, nil); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, w.Code)
		}
	}
	if w := f.do(t, "POST", "/api/memories/bulk", `{"action":"shred","ids":["`+d+`"]}`, nil); !strings.Contains(w.Body.String(), `invalid action \"shred\": accepted delete, archive, confirm`) {
		t.Errorf("unknown action: %s, want it named with the accepted ones", w.Body)
	}
}

// A view's memories are deleted by the view's filters (not ticks): the dry
// run counts and previews them as for ticks; a view past 200 is refused until
// narrowed, and nothing is changed.
func TestBulkDeleteAView(t *testing.T) {
	f := newFixture(t)
	same := map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}
	var shop []string
	for _, c := range []string{"Shop uses Stripe", "Shop ships on Mondays", "Shop prices include VAT"} {
		shop = append(shop, f.store(t, c, memory.TypeDecision, "project:shop"))
	}
	keep := f.store(t, "Blog posts go out on Mondays", memory.TypeDecision, "project:blog")
	dry := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", `{"action": "delete", "view": {"namespace": "project:shop"}, "dry_run": true}`, same), http.StatusOK)
	if dry.Count != 3 || len(dry.Items) != 3 || dry.Done != 0 {
		t.Fatalf("dry run of the shop's view: %+v, want 3 previewed, none done", dry)
	}
	for _, id := range shop {
		if _, err := f.mem.Get(t.Context(), id); err != nil {
			t.Fatalf("the dry run deleted %s", id)
		}
	}
	done := decode[bulkResult](t, f.do(t, "POST", "/api/memories/bulk", `{"action": "delete", "view": {"namespace": "project:shop", "q": "Shop"}}`, same), http.StatusOK)
	if done.Done != 3 {
		t.Fatalf("deleting the shop's view: %+v", done)
	}
	if _, err := f.mem.Get(t.Context(), keep); err != nil {
		t.Errorf("a memory outside the view was deleted: %v", err)
	}
	for range maxBulk + 1 {
		if _, _, err := f.db.InsertMemory(t.Context(), newTestMemory(), nil); err != nil {
			t.Fatal(err)
		}
	}
	w := f.do(t, "POST", "/api/memories/bulk", `{"action": "delete", "view": {"namespace": "global"}, "dry_run": true}`, same)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "more than 200") || !strings.Contains(w.Body.String(), "narrow") {
		t.Errorf("a view of 201: %d %s, want 400 asking to narrow it", w.Code, w.Body)
	}
	for _, bad := range []string{`{"action": "delete", "view": {"limit": "3"}}`, `{"action": "delete", "view": {"namespace": "global"}, "ids": ["x"]}`, `{"action": "delete", "view": {"min_confidence": "2"}}`} {
		if w := f.do(t, "POST", "/api/memories/bulk", bad, same); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, w.Code, w.Body)
		}
	}
}
