package viewer

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// open navigates to the viewer (the first run starts the browser: no time
// limit on it) and waits for sel.
func open(t *testing.T, ctx context.Context, url, sel string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		t.Fatalf("%s never showed %s: %v", url, sel, err)
	}
}

func TestBrowserMemoryPageVersionsChartAndDelete(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	old := f.store(t, "Deploy with rsync to the single host", memory.TypeDecision, "project:recall")
	content := "Deploy with **container images**.\n\n- build in CI\n- <script>alert(1)</script> stays text\n\n" +
		"See [the runbook](https://example.com/runbook) but not [this](javascript:alert(1)).\n\n```\ndocker build .\n```"
	res, err := f.mem.Remember(t.Context(), memory.StoreRequest{
		Content: content,
		Type:    memory.TypeGoldenRule, Namespace: "project:recall",
		Metadata: map[string]any{"source": "retro 2026-03", "tags": []string{"deploy", "ci"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cur := res.ID
	if _, err := f.mem.Relate(t.Context(), memory.RelateRequest{SourceID: cur, TargetID: old, Relation: memory.RelationSupersedes}); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []bool{true, false, true, true} {
		if _, err := f.val.Validate(t.Context(), validation.ValidateRequest{MemoryID: cur, Success: ok}); err != nil {
			t.Fatal(err)
		}
	}
	srv := newLoopbackServer(t, f)

	// The old version's page says it is superseded and shows the chain.
	open(t, ctx, srv+"/#/m/"+old, "#superseded-notice")
	screenshot(t, ctx, "memory-superseded")

	open(t, ctx, srv+"/#/m/"+cur, "#confidence-chart")
	n, err := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#chain li").length`))
	if err != nil || n != 2 {
		t.Errorf("versions list has %d entries (%v), want 2", n, err)
	}
	dots, err := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#confidence-chart circle.dot").length`))
	if err != nil || dots != 5 {
		t.Errorf("chart has %d points (%v), want 5: the start and four events", dots, err)
	}
	scripts, _ := run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#memory script").length`))
	if scripts != 0 {
		t.Errorf("a memory's text became a script element")
	}
	// Markdown is rendered and sanitised: emphasis, lists, code and http(s)
	// links become elements; a javascript: link keeps only its text.
	md, err := run(ctx, chromedp.Evaluate[string](`(() => { const c = document.getElementById("memory-content"); return [
		c.querySelector("strong")?.textContent, c.querySelectorAll("ul li").length, c.querySelector("pre code")?.textContent.trim(),
		c.querySelector('a[href="https://example.com/runbook"]')?.textContent, c.querySelectorAll("a[href]").length,
		c.textContent.includes("<script>alert(1)</script>"), c.textContent.includes("but not this.") && !c.innerHTML.includes("javascript:")].join("|") })()`))
	if err != nil || md != "container images|2|docker build .|the runbook|1|true|true" {
		t.Errorf("rendered Markdown %q (%v), want bold, 2 items, code, one safe link, tags and the javascript: link as text", md, err)
	}
	screenshot(t, ctx, "memory-complete")
	// Plain text shows the memory exactly as stored.
	if err := within(ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#raw-toggle`)), chromedp.WaitVisible(chromedp.CSS(`#memory-raw`))); err != nil {
		t.Fatal(err)
	}
	raw, _ := run(ctx, chromedp.Evaluate[string](`document.getElementById("memory-raw").textContent`))
	if raw != content {
		t.Errorf("plain text %q, want the stored content", raw)
	}
	if err := within(ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#raw-toggle`))); err != nil {
		t.Fatal(err)
	}

	// Delete: the confirmation shows the text, and a golden rule needs force.
	if err := within(ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#delete`)), chromedp.WaitVisible(chromedp.CSS(`#delete-confirm`))); err != nil {
		t.Fatal(err)
	}
	shown, _ := run(ctx, chromedp.Text(chromedp.CSS(`#delete-content`)))
	disabled, _ := run(ctx, chromedp.Evaluate[bool](`document.getElementById("delete-confirm").disabled`))
	screenshot(t, ctx, "delete-confirm-golden")
	if !strings.Contains(shown, "Deploy with **container images**") || !disabled {
		t.Fatalf("confirmation shows %q, delete disabled %v; want the text and disabled until force", shown, disabled)
	}
	err = within(ctx, 10*time.Second,
		chromedp.Click(chromedp.CSS(`#delete-force`)),
		chromedp.Click(chromedp.CSS(`#delete-confirm`)),
		chromedp.WaitVisible(chromedp.CSS(`#list-view`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.getElementById("status").textContent.includes("deleted 1")`)); err != nil {
		t.Errorf("no deleted message after the delete: %v", err)
	}
	screenshot(t, ctx, "after-delete")
	if _, err := f.mem.Get(t.Context(), cur); err == nil {
		t.Errorf("the golden rule still exists after a forced delete from the page")
	}
}

func TestBrowserLiveUpdatesFromAnotherProcess(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	f.store(t, "Already here when the page opened", memory.TypeSession, "global")
	// A server whose listener can be closed and opened again on the same port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := &http.Server{Handler: f.h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	open(t, ctx, "http://"+addr+"/", "#memories li")
	if _, err := run(ctx, chromedp.Poll[bool](`document.getElementById("live-banner").hidden && document.body.dataset.live === "live"`)); err != nil {
		t.Fatalf("the page never went live: %v", err)
	}

	other := f.otherProcess(t)
	start := time.Now()
	res, err := other.Remember(t.Context(), memory.StoreRequest{Content: "Stored by a hook in another process", Type: memory.TypePattern})
	if err != nil {
		t.Fatal(err)
	}
	sel := `#memories li[data-id="` + res.ID + `"]`
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelector('`+sel+`') !== null`, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("the other process's memory never appeared: %v", err)
	}
	took := time.Since(start)
	t.Logf("memory from another process on the page after %v", took)
	screenshot(t, ctx, "live-new-memory")
	if took > time.Second {
		t.Errorf("the memory took %v to appear, want under 1s", took)
	}

	// The server goes away: the page says it is reconnecting; a memory stored
	// meanwhile shows once the server is back.
	srv.Close()
	if _, err := run(ctx, chromedp.Poll[bool](`!document.getElementById("live-banner").hidden`)); err != nil {
		t.Fatalf("no reconnecting banner after the server went away: %v", err)
	}
	screenshot(t, ctx, "live-reconnecting")
	missed, err := other.Remember(t.Context(), memory.StoreRequest{Content: "Stored while the viewer was down", Type: memory.TypeDecision})
	if err != nil {
		t.Fatal(err)
	}
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("could not listen on %s again: %v", addr, err)
	}
	srv2 := &http.Server{Handler: f.h}
	go srv2.Serve(ln2)
	t.Cleanup(func() { srv2.Close() })
	sel = `#memories li[data-id="` + missed.ID + `"]`
	if _, err := run(ctx, chromedp.Poll[bool](`document.getElementById("live-banner").hidden && document.querySelector('`+sel+`') !== null`)); err != nil {
		t.Fatalf("after reconnecting the page never showed the missed memory: %v", err)
	}
	screenshot(t, ctx, "live-reconnected")
}

func TestBrowserReviewQueueKeysAndHealth(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	a1, b1, _ := f.contradiction(t, "Use tabs for indentation in Go files", "Use four spaces for indentation everywhere", memory.TypeDecision)
	a2, b2, _ := f.contradiction(t, "Deploying on Fridays is fine with feature flags", "Never deploy on Fridays", memory.TypeGoldenRule)
	a3, b3, _ := f.contradiction(t, "Tests run with -race in CI", "Benchmarks run without -race", memory.TypePattern)
	srv := newLoopbackServer(t, f)
	edges := func(x, y string, rel memory.Relation) int {
		es, err := f.db.Edges(t.Context(), memory.EdgeQuery{SourceID: x, TargetID: y, Direction: memory.DirectionOutgoing, Relations: []memory.Relation{rel}})
		if err != nil {
			t.Fatal(err)
		}
		return len(es)
	}

	open(t, ctx, srv+"/#/review", "#pairs li.pair.selected")
	if _, err := run(ctx, chromedp.Poll[bool](`document.body.dataset.live === "live"`)); err != nil {
		t.Fatal(err)
	}
	// A contradiction another process finds joins the open queue.
	x, y := contradictionThrough(t, f.otherProcess(t), "Errors are wrapped with %w", "Errors are returned bare, never wrapped")
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#pairs li.pair").length === 4`)); err != nil {
		t.Fatalf("a contradiction from another process never joined the open queue: %v", err)
	}
	screenshot(t, ctx, "review-queue")
	// Side by side, the words that tell A and B apart are marked.
	marked, err := run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#pairs li.pair[data-edge] .side .diff")]
		.filter((e) => e.closest("li.pair").textContent.includes("four spaces")).map((e) => e.tagName + ":" + e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(marked, " "); got != "DEL:tabs DEL:in DEL:Go DEL:files INS:four INS:spaces INS:everywhere" {
		t.Errorf("words marked in the tabs/spaces pair: %q; want the differing words of each side", got)
	}
	// Key 2 on the first pair: B supersedes A.
	if err := within(ctx, 10*time.Second, chromedp.KeyEvent("2")); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#pairs li.pair").length === 3`)); err != nil {
		t.Fatalf("key 2 did not resolve the first pair: %v", err)
	}
	if edges(b1, a1, memory.RelationSupersedes) != 1 {
		t.Errorf("key 2: no supersedes edge from B to A")
	}
	// Key 1 on the golden pair without force is refused and says why.
	if err := within(ctx, 10*time.Second, chromedp.KeyEvent("1")); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.getElementById("status").textContent.includes("golden rule")`)); err != nil {
		t.Fatalf("superseding a golden rule without force gave no error: %v", err)
	}
	screenshot(t, ctx, "review-golden-refused")
	if edges(a2, b2, memory.RelationSupersedes) != 0 {
		t.Fatalf("a golden rule was superseded without force")
	}
	// j to the third pair, 3: both hold; then 4 on the one from the other
	// process, now selected: not a contradiction.
	if err := within(ctx, 10*time.Second, chromedp.KeyEvent("j"), chromedp.KeyEvent("3")); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#pairs li.pair").length === 2`)); err != nil {
		t.Fatalf("j then 3 did not resolve the third pair: %v", err)
	}
	if err := within(ctx, 10*time.Second, chromedp.KeyEvent("4")); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#pairs li.pair").length === 1`)); err != nil {
		t.Fatalf("4 did not resolve the last pair: %v", err)
	}
	if edges(x, y, memory.RelationContradicts) != 0 {
		t.Errorf("key 4: the contradicts edge is still there")
	}
	if edges(a3, b3, memory.RelationRelatesTo) != 1 || edges(a3, b3, memory.RelationContradicts) != 0 {
		t.Errorf("key 3: want the contradiction replaced by relates_to")
	}

	// The golden pair, with the force box ticked, at phone width.
	err = within(ctx, 10*time.Second,
		chromedp.EmulateViewport(390, 844),
		chromedp.Click(chromedp.CSS(`#pairs li.pair .force-box`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "review-phone-force")
	if err := within(ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#pairs li.pair button[data-resolution="a_supersedes_b"]`))); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#pairs li.pair").length === 0`)); err != nil {
		t.Fatalf("forced A supersedes B did not resolve: %v", err)
	}
	screenshot(t, ctx, "review-done-phone")
	if edges(a2, b2, memory.RelationSupersedes) != 1 {
		t.Errorf("forced a_supersedes_b: no supersedes edge")
	}

	// Health: the counts recall stats prints.
	err = within(ctx, 10*time.Second,
		chromedp.EmulateViewport(1200, 800),
		chromedp.Click(chromedp.CSS(`#nav a[data-view="health"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#health-memories`)))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := run(ctx, chromedp.Text(chromedp.CSS(`#health-memories`)))
	pending, _ := run(ctx, chromedp.Text(chromedp.CSS(`#health-pending`)))
	screenshot(t, ctx, "health")
	if n != "8" || !strings.Contains(pending, "pending") {
		t.Errorf("health shows %q memories, embeddings %q; want 8 and a pending count", n, pending)
	}

	// The list: j, j, Enter opens the second memory.
	err = within(ctx, 10*time.Second,
		chromedp.Click(chromedp.CSS(`#nav a[data-view="list"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#memories li`)),
		chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := run(ctx, chromedp.AttributeValue(chromedp.CSS(`#memories li:nth-child(2)`), "data-id"))
	if err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 10*time.Second, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`#memory-content`))); err != nil {
		t.Fatal(err)
	}
	if _, err := run(ctx, chromedp.Poll[bool](`location.hash === "#/m/`+second.Value+`"`)); err != nil {
		t.Errorf("Enter did not open the selected (second) memory %s: %v", second.Value, err)
	}
}
