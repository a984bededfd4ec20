package viewer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// chromiumPath finds a Chromium to drive: RECALL_TEST_CHROMIUM, else Debian's
// chromium on PATH.
func chromiumPath() string {
	if p := os.Getenv("RECALL_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile and nothing in
// the background. The browser lives as long as the test, which fails if a page
// violates the Content-Security-Policy (see watchCSP).
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("no Chromium found: install it (apt-get install chromium) or set RECALL_TEST_CHROMIUM to run the browser tests")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // containers and CI run as root
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	watchCSP(t, ctx)
	return ctx
}

// within runs steps with a time limit, so a page that never gets there fails
// the test instead of hanging it. The browser must have run once on ctx.
func within(ctx context.Context, d time.Duration, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// run is within for one action with a value.
func run[T any](ctx context.Context, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// screenshot saves the page as PNG in the test's artifact folder (kept with
// go test -artifacts -outputdir DIR).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

func TestBrowserListSearchAndMemoryPage(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	want := f.store(t, "Use WAL journal mode for SQLite so readers never block the writer.\nCheckpoint on shutdown.", memory.TypeDecision, "project:recall")
	f.store(t, "Prefer table-driven tests in Go", memory.TypePreference, "global")
	f.store(t, "Release notes go in CHANGELOG.md, newest first", memory.TypePattern, "project:recall")
	// Agent-written text is shown as text: this must not become an element.
	hostile := f.store(t, `<img src=x id="injected"> <b>not bold</b>`, memory.TypeSession, "global")
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: want, TargetID: hostile, Relation: memory.RelationRelatesTo}); err != nil {
		t.Fatal(err)
	}
	srv := newLoopbackServer(t, f)

	// The first run starts the browser: no time limit on it (see chromedp.Run).
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/")); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#memories li`))); err != nil {
		t.Fatalf("the list never showed: %v", err)
	}
	count, err := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#memories li").length`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "list")
	if count != 4 {
		t.Fatalf("list shows %d memories, want 4", count)
	}

	// Search as you type: no Enter; the list is replaced after a pause.
	if err := within(ctx, 20*time.Second, chromedp.SendKeys(chromedp.CSS(`#q`), "journal mode")); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelector("#summary").textContent.includes("journal mode")`)); err != nil {
		t.Fatalf("the search never answered: %v", err)
	}
	first, err := run(ctx, chromedp.AttributeValue(chromedp.CSS(`#memories li`), "data-id"))
	if err != nil {
		t.Fatal(err)
	}
	summary, _ := run(ctx, chromedp.Text(chromedp.CSS(`#summary`)))
	screenshot(t, ctx, "search")
	if first.Value != want {
		t.Errorf("first hit %s, want %s (summary %q)", first.Value, want, summary)
	}

	// A memory's page, at phone width, through the edge to the hostile one.
	err = within(ctx, 20*time.Second,
		chromedp.EmulateViewport(390, 844),
		chromedp.Click(chromedp.CSS(`#memories li a`)),
		chromedp.WaitVisible(chromedp.CSS(`#edges`)),
	)
	if err != nil {
		t.Fatalf("the memory page never showed its edges: %v", err)
	}
	content, err := run(ctx, chromedp.Text(chromedp.CSS(`#memory-content`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "memory-phone-short")
	if !strings.HasPrefix(content, "Use WAL journal mode") {
		t.Errorf("memory page shows %q", content)
	}

	// Confirming from the page is a same-origin write: the cross-origin check
	// lets it through and the event is recorded.
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#events`)),
	)
	if err != nil {
		t.Fatalf("confirming from the page: %v", err)
	}
	screenshot(t, ctx, "memory-confirmed")
	hist, err := f.val.History(t.Context(), validation.HistoryRequest{MemoryID: want})
	if err != nil || len(hist.Events) != 1 || hist.Events[0].EventType != memory.EventSucceeded {
		t.Fatalf("after Confirm: %+v, %v; want one succeeded event", hist, err)
	}
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#edges a`)),
		chromedp.WaitVisible(chromedp.CSS(`#memory-content`)),
	)
	if err == nil {
		_, err = run(ctx, chromedp.Poll[bool](`document.querySelector("#memory-content")?.textContent.includes("not bold")`))
	}
	if err != nil {
		t.Fatalf("following the edge: %v", err)
	}
	injected, err := run(ctx, chromedp.Evaluate[bool](`document.getElementById("injected") !== null || document.querySelector("#memory-content b") !== null`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "memory-as-text")
	if injected {
		t.Errorf("a memory's text became HTML on the page")
	}
}
