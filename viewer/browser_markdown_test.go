package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recall-mcp/recall/memory"
)

// An agent-written memory with Markdown and with everything that must never
// run or load: the page renders the Markdown, keeps the HTML as text, and
// leaves no script, image, event handler or unsafe link in the DOM.
func TestBrowserMarkdownSanitised(t *testing.T) {
	ctx := newBrowser(t)
	f := newFixture(t)
	content := strings.Join([]string{
		"# WAL notes",
		"Use **WAL** so readers never block the writer.",
		"",
		`<script>window.pwned = "script"</script>`,
		"",
		`An image <img src=x onerror="window.pwned = 'img'"> inside a sentence.`,
		"",
		"[click me](javascript:alert(1)) [ftp](ftp://example.com/file) [the docs](https://sqlite.org/wal.html) ![logo](https://example.com/logo.png)",
		"",
		"| setting | value |",
		"|---|---|",
		"| journal_mode | WAL |",
		"",
		"```go",
		`db.Exec("PRAGMA journal_mode=WAL")`,
		"```",
	}, "\n")
	id := f.store(t, content, memory.TypeDecision, "project:recall")
	srv := newLoopbackServer(t, f)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv+"/#/m/"+id)); err != nil {
		t.Fatal(err)
	}
	if err := within(ctx, 20*time.Second, chromedp.WaitVisible(chromedp.CSS(`#memory-content table`))); err != nil {
		t.Fatalf("the memory's table never showed: %v", err)
	}
	type rendered struct {
		Heading, Cell, Code, Text string
		Executable                []string
		Links                     [][3]string // href, rel, target
		Pwned                     bool
	}
	got, err := run(ctx, chromedp.Evaluate[rendered](`(() => {
		const box = document.querySelector("#memory-content");
		const executable = [];
		for (const e of box.querySelectorAll("*")) {
			if (["SCRIPT", "IMG", "IFRAME", "OBJECT", "EMBED", "STYLE", "FORM", "INPUT"].includes(e.tagName)) executable.push(e.tagName);
			for (const a of e.attributes) if (a.name.startsWith("on") || a.name === "style" || a.name === "src") executable.push(e.tagName + " " + a.name);
		}
		return {
			heading: box.querySelector("h3")?.textContent ?? "",
			cell: box.querySelector("table td")?.textContent ?? "",
			code: box.querySelector("pre code")?.textContent ?? "",
			text: box.textContent,
			executable,
			links: [...box.querySelectorAll("a[href]")].map((a) => [a.getAttribute("href"), a.rel, a.target]),
			pwned: window.pwned !== undefined,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "memory-markdown")
	if got.Heading != "WAL notes" || got.Cell != "journal_mode" || !strings.Contains(got.Code, `PRAGMA journal_mode=WAL`) {
		t.Errorf("Markdown not rendered: heading %q, first cell %q, code %q", got.Heading, got.Cell, got.Code)
	}
	if len(got.Executable) > 0 || got.Pwned {
		t.Errorf("executable content on the page: %v (script ran: %v)", got.Executable, got.Pwned)
	}
	if !strings.Contains(got.Text, `<script>window.pwned = "script"</script>`) || !strings.Contains(got.Text, "click me") {
		t.Errorf("the memory's HTML and unsafe link should stay visible as text; the page shows %q", got.Text)
	}
	want := [][3]string{
		{"https://sqlite.org/wal.html", "noopener noreferrer nofollow", "_blank"},
		{"https://example.com/logo.png", "noopener noreferrer nofollow", "_blank"}, // the image, as a link
	}
	if len(got.Links) != len(want) || got.Links[0] != want[0] || got.Links[1] != want[1] {
		t.Errorf("links on the page %q, want only %q", got.Links, want)
	}

	// The plain-text switch shows the text exactly as stored.
	err = within(ctx, 20*time.Second,
		chromedp.Click(chromedp.CSS(`#raw-toggle`)),
		chromedp.WaitVisible(chromedp.CSS(`#memory-raw`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := run(ctx, chromedp.Evaluate[string](`document.querySelector("#memory-raw").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "memory-markdown-plain")
	if raw != content {
		t.Errorf("plain text shows %q, want the stored %q", raw, content)
	}
}
