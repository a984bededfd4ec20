package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

func TestBrowserMemoryPageShowsTheAccessAndChangeLog(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	id := f.store(t, "The build uses bazel.", memory.TypeDecision, "project:shop")
	other := f.store(t, "The build uses make.", memory.TypeDecision, "project:shop")
	imp, content := 0.8, "The build uses make, not bazel."
	if _, err := f.mem.Update(t.Context(), memory.UpdateRequest{MemoryID: id, Importance: &imp, By: memory.SourceCLI}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.mem.Update(t.Context(), memory.UpdateRequest{MemoryID: id, Content: &content, By: memory.SourceViewer}); err != nil {
		t.Fatal(err)
	}
	if err := f.mem.RecordResolution(t.Context(), memory.ResolutionRequest{MemoryID: id, RelatedID: other,
		Action: memory.ChangeBothHold, Reason: "make wraps bazel", Source: memory.SourceViewer}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.TouchMemories(t.Context(), []string{id, id}, time.Now()); err != nil {
		t.Fatal(err)
	}
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+id)); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#changes li`)),
		chromedp.ScrollIntoView(chromedp.CSS(`#change-log`)),
	)
	if err != nil {
		t.Fatalf("opening the memory: %v", err)
	}
	screenshot(t, ctx, "memory-change-log")
	// Each line as read, its Undo button apart: both edits are still in
	// effect (each changed its own field), so both offer one.
	lines, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#changes li.change")].map((li) => li.innerText.replace("Undo this edit", "").replace(/\s+/g, " ").trim())`))
	if err != nil {
		t.Fatal(err)
	}
	undos, err := run(ctx, chromedp.Evaluate[[]bool](`[...document.querySelectorAll("#changes li.change")].map((li) => li.querySelector("button.undo") !== null)`))
	if err != nil || len(undos) != 3 || undos[0] || !undos[1] || !undos[2] {
		t.Errorf("Undo offered on %v (%v), want on the two edits, not on the contradiction", undos, err)
	}
	want := []string{
		"Contradiction with The build uses make. resolved: both hold in the viewer Why: make wraps bazel",
		"Edited content in the viewer content: The build uses bazel. → The build uses make, not bazel.",
		"Edited importance from the CLI importance: 0.50 → 0.80",
	}
	if len(lines) != len(want) {
		t.Fatalf("log lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		// The time leads each line (its format is the browser's locale).
		if !strings.HasSuffix(lines[i], want[i]) {
			t.Errorf("line %d: %q, want it to end with %q", i, lines[i], want[i])
		}
	}
	access, err := run(ctx, chromedp.Evaluate[string](`document.querySelector("#access-summary").textContent`))
	if err != nil || !strings.HasPrefix(access, "Read once by agents, last on ") {
		t.Errorf("access summary %q (%v)", access, err)
	}
}

func TestBrowserPromoteWithAReasonAndTheAuditTrail(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	squash := f.store(t, "Squash-merge feature branches.", memory.TypePattern, "project:web")
	rebase := f.store(t, "Rebase on main before opening a pull request.", memory.TypePreference, "project:web")
	srv := newLoopbackServer(t, f)

	// From the memory page: Promote stays off until a reason is written.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+squash)); err != nil {
		t.Fatal(err)
	}
	err := within(ctx, 20*time.Second,
		chromedp.WaitVisible(chromedp.CSS(`#promote`)),
		chromedp.Click(chromedp.CSS(`#promote`)),
		chromedp.WaitVisible(chromedp.CSS(`#promote-reason`)),
	)
	if err != nil {
		t.Fatalf("opening the promote form: %v", err)
	}
	if disabled, err := run(ctx, chromedp.Evaluate[bool](`document.querySelector("#promote-confirm").disabled`)); err != nil || !disabled {
		t.Fatalf("Promote enabled without a reason (%v)", err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.SendKeys(chromedp.CSS(`#promote-reason`), "the team agreed in review"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "memory-promote-form")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#promote-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#changes li[data-action="promote"]`)),
	)
	if err != nil {
		t.Fatalf("promoting: %v", err)
	}
	if m, err := f.mem.Get(t.Context(), squash); err != nil || !m.IsGolden() || m.Metadata["promoted_from"] != "pattern" {
		t.Errorf("after promoting from the memory page: %+v, %v", m, err)
	}

	// From the golden rules page: a candidate of the project.
	err = within(ctx, 20*time.Second,
		chromedp.Navigate(srv+"/#/golden/web"),
		chromedp.WaitVisible(chromedp.CSS(`#golden-candidates li[data-id="`+rebase+`"] button.promote`)),
		chromedp.Click(chromedp.CSS(`#golden-candidates li[data-id="`+rebase+`"] button.promote`)),
		chromedp.WaitVisible(chromedp.CSS(`#promote-reason`)),
		chromedp.SendKeys(chromedp.CSS(`#promote-reason`), "every pull request needs it"),
		chromedp.Click(chromedp.CSS(`#promote-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#golden-rules li[data-id="`+rebase+`"]`)),
		chromedp.ScrollIntoView(chromedp.CSS(`#golden-audit`)),
	)
	if err != nil {
		t.Fatalf("promoting from the golden rules page: %v", err)
	}
	screenshot(t, ctx, "golden-audit-trail")
	lines, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#golden-audit li.change")].map((li) => li.innerText.replace(/\s+/g, " "))`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Promoted to golden rule (was preference) in the viewer: Rebase on main before opening a pull request. Why: every pull request needs it",
		"Promoted to golden rule (was pattern) in the viewer: Squash-merge feature branches. Why: the team agreed in review",
	}
	if len(lines) != len(want) {
		t.Fatalf("audit trail\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasSuffix(lines[i], want[i]) {
			t.Errorf("audit line %d: %q, want it to end with %q", i, lines[i], want[i])
		}
	}
}

func TestBrowserResolutionReasonIsRecorded(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a, b, edge := f.contradiction(t, "Tests run with -race in CI", "Benchmarks run without -race", memory.TypePattern)
	srv := newLoopbackServer(t, f)
	open(t, ctx, srv+"/#/review", `#pairs li.pair[data-edge="`+itoa(edge)+`"] .reason-box`)
	card := `#pairs li.pair[data-edge="` + itoa(edge) + `"]`
	// Keys typed into the reason are text, not resolution keys.
	err := within(ctx, 20*time.Second,
		chromedp.SendKeys(chromedp.CSS(card+` .reason-box`), "one is about tests, 1 about benchmarks"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "review-reason")
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(card+` button[data-resolution="not_contradiction"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(card)),
	)
	if err != nil {
		t.Fatalf("resolving: %v", err)
	}
	for _, id := range []string{a, b} {
		log, err := f.mem.Changes(t.Context(), id)
		if err != nil || len(log) != 1 || log[0].Action != memory.ChangeNotContradiction || log[0].Reason != "one is about tests, 1 about benchmarks" {
			t.Errorf("log of %s: %+v, %v; want the verdict with the typed reason", id, log, err)
		}
	}
	open(t, ctx, srv+"/#/m/"+a, `#changes li[data-action="not_contradiction"]`)
	screenshot(t, ctx, "memory-not-contradiction")
	line, err := run(ctx, chromedp.Evaluate[string](`document.querySelector("#changes li").innerText.replace(/\s+/g, " ")`))
	if want := "Judged not a contradiction with Benchmarks run without -race in the viewer Why: one is about tests, 1 about benchmarks"; err != nil || !strings.HasSuffix(line, want) {
		t.Errorf("log line %q (%v), want it to end with %q", line, err, want)
	}
}
