package viewer

import (
	"cmp"
	"database/sql"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// Each validation event is a point of the confidence chart that leads to its
// row in the event table, by mouse and by keyboard.
func TestBrowserChartPointsLinkToEvents(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	id := f.store(t, "Run the migrations before the tests", memory.TypePattern, "project:recall")
	for _, ok := range []bool{true, false, true} {
		if _, err := f.val.Validate(t.Context(), validation.ValidateRequest{MemoryID: id, Success: ok}); err != nil {
			t.Fatal(err)
		}
	}
	// The three events share one instant (quick clicks, a script): the
	// chart still draws them in the order they happened, their ids'.
	sameInstant(t, f.path, id)
	hist, err := f.val.History(t.Context(), validation.HistoryRequest{MemoryID: id})
	if err != nil || len(hist.Events) != 3 {
		t.Fatalf("history: %+v, %v", hist, err)
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+id)); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#confidence-chart .event-link`))); err != nil {
		t.Fatalf("the chart never showed: %v", err)
	}
	points, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#confidence-chart .event-link")].map((p) => p.dataset.event)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != len(hist.Events) {
		t.Fatalf("chart links %v, want one per event (%d)", points, len(hist.Events))
	}
	// Left to right by id, each at its confidence after the event.
	byID := slices.Clone(hist.Events)
	slices.SortFunc(byID, func(a, b memory.ValidationEvent) int { return cmp.Compare(a.ID, b.ID) })
	var want []string
	for _, ev := range byID {
		want = append(want, strconv.FormatInt(ev.ID, 10))
	}
	if !slices.Equal(points, want) {
		t.Errorf("chart points in the order %v, want by event id %v", points, want)
	}
	drawn, err := run(ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll("#confidence-chart .dot")].map((d) => Number(d.getAttribute("cy")))`))
	if err != nil {
		t.Fatal(err)
	}
	// y grows downwards: success, failure, success is up, down, up.
	if len(drawn) != 4 || !(drawn[1] < drawn[0] && drawn[2] > drawn[1] && drawn[3] < drawn[2]) {
		t.Errorf("chart dots at y %v, want start then up, down, up (confirm, refute, confirm)", drawn)
	}
	focused := `(() => { const a = document.activeElement; return a && a.classList.contains("target") ? a.id : ""; })()`
	for i, ev := range hist.Events {
		want := "event-" + strconv.FormatInt(ev.ID, 10)
		point := chromedp.CSS(`#confidence-chart .event-link[data-event="` + strconv.FormatInt(ev.ID, 10) + `"]`)
		var step chromedp.Action[chromedp.Void]
		if i%2 == 0 { // the mouse
			step = chromedp.Click(point)
		} else { // the keyboard: focus the point, then Enter
			step = chromedp.Steps(chromedp.Focus(point), chromedp.KeyEvent("\r"))
		}
		if err := within(ctx, 20*time.Second, step); err != nil {
			t.Fatalf("following event %d's point: %v", ev.ID, err)
		}
		got, err := run(ctx, chromedp.Evaluate[string](focused))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after event %d's point, the focused row is %q, want %q", ev.ID, got, want)
		}
		if i == 1 {
			screenshot(t, ctx, "chart-point-to-event")
		}
	}
}

// sameInstant gives every validation event of a memory the time of its first,
// as events recorded within one millisecond have.
func sameInstant(t *testing.T, path, memoryID string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE validation_events SET created_at = (SELECT MIN(created_at) FROM validation_events WHERE memory_id = ?) WHERE memory_id = ?`, memoryID, memoryID); err != nil {
		t.Fatal(err)
	}
}
