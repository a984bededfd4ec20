package viewer

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// The list, a search and an export narrow by a confidence range and by the
// days memories were created on.
func TestListAndSearchByConfidenceAndDate(t *testing.T) {
	f := newFixture(t)
	old := f.storeOld(t, "Cache the orders list in Redis", memory.TypeDecision, "global", 40)
	trusted := f.store(t, "Cache the orders page for five minutes", memory.TypeDecision, "global")
	plain := f.store(t, "Cache nothing in the admin dashboard", memory.TypeDecision, "global")
	for range 3 {
		if _, err := f.val.Validate(t.Context(), validation.ValidateRequest{MemoryID: trusted, Success: true}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(target string) string {
		t.Helper()
		p := decode[page](t, f.do(t, "GET", target, "", nil), http.StatusOK)
		var out []string
		for _, m := range p.Memories {
			out = append(out, m.ID)
		}
		return strings.Join(out, " ")
	}
	today := time.Now().UTC().Format(dateLayout)
	weeksAgo := time.Now().UTC().AddDate(0, 0, -40).Format(dateLayout)
	for target, want := range map[string]string{
		"/api/memories?min_confidence=0.5":                         trusted,
		"/api/memories?max_confidence=0.35":                        plain + " " + old,
		"/api/memories?since=" + today:                             plain + " " + trusted,
		"/api/memories?until=" + weeksAgo:                          old,
		"/api/memories?since=" + weeksAgo + "&until=" + today:      plain + " " + trusted + " " + old,
		"/api/memories?q=cache+orders&min_confidence=0.5":          trusted,
		"/api/memories?q=cache+orders&until=" + weeksAgo:           old,
		"/api/memories?q=cache&max_confidence=0.35&since=" + today: plain,
	} {
		if got := ids(target); got != want {
			t.Errorf("GET %s: %s, want %s", target, got, want)
		}
	}
	if w := f.do(t, "GET", "/api/export?format=json&min_confidence=0.5", "", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), trusted) || strings.Contains(w.Body.String(), plain) {
		t.Errorf("export of the view above 0.5: %d %s", w.Code, w.Body)
	}
	for _, bad := range []string{"min_confidence=2", "max_confidence=x", "min_confidence=0.8&max_confidence=0.2", "since=23/11/2026", "since=" + today + "&until=" + weeksAgo} {
		if w := f.do(t, "GET", "/api/memories?"+bad, "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "accepted") {
			t.Errorf("%s: %d %s, want 400 saying what is accepted", bad, w.Code, w.Body)
		}
	}
}

// The list, a search, an export and a delete of a view narrow by who stored
// the memories; GET /api/authors offers who did, most first.
func TestListSearchAndExportByAuthor(t *testing.T) {
	f := newFixture(t)
	storeAs := func(person, content string) string {
		t.Helper()
		ctx := memory.WithPrincipal(t.Context(), memory.Principal{Person: person})
		res, err := f.mem.Remember(ctx, memory.StoreRequest{Content: content, Type: memory.TypeDecision, Namespace: "global"})
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	ann := storeAs("ann", "Deploy the shop on Fridays")
	ann2 := storeAs("ann", "Deploy the blog from main")
	bob := storeAs("bob", "Deploy only after the tests pass")
	local := f.store(t, "Deploy notes live in the wiki", memory.TypeDecision, "global")
	ids := func(target string) string {
		t.Helper()
		p := decode[page](t, f.do(t, "GET", target, "", nil), http.StatusOK)
		var out []string
		for _, m := range p.Memories {
			out = append(out, m.ID)
		}
		return strings.Join(out, " ")
	}
	for target, want := range map[string]string{
		"/api/memories?author=ann":             ann2 + " " + ann,
		"/api/memories?author=bob":             bob,
		"/api/memories?author=(none)":          local,
		"/api/memories?author=carol":           "",
		"/api/memories?q=deploy&author=bob":    bob,
		"/api/memories?q=deploy&author=(none)": local,
	} {
		if got := ids(target); got != want {
			t.Errorf("GET %s: %q, want %q", target, got, want)
		}
	}
	got := facets(decode[[]facetCount](t, f.do(t, "GET", "/api/authors", "", nil), http.StatusOK))
	if got != "ann 2, bob 1, (none) 1" {
		t.Errorf("GET /api/authors = %v, want people most first, then no one named", got)
	}
	exp := f.do(t, "GET", "/api/export?format=markdown&author=bob", "", nil)
	if body := exp.Body.String(); exp.Code != http.StatusOK || !strings.Contains(body, "1 memory, filtered by author=bob") || !strings.Contains(body, "Deploy only after") || strings.Contains(body, "Fridays") {
		t.Errorf("export of bob's memories: %d\n%s", exp.Code, body)
	}
	dry := f.do(t, "POST", "/api/memories/bulk", `{"action":"delete","view":{"author":"ann"},"dry_run":true}`, nil)
	if dry.Code != http.StatusOK || !strings.Contains(dry.Body.String(), ann) || strings.Contains(dry.Body.String(), bob) {
		t.Errorf("dry run of deleting ann's view: %d %s", dry.Code, dry.Body)
	}
	for _, bad := range []string{"Ann", "ann smith", "-x"} {
		if w := f.do(t, "GET", "/api/memories?author="+url.QueryEscape(bad), "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "accepted") {
			t.Errorf("author %q: %d %s, want 400 saying what is accepted", bad, w.Code, w.Body)
		}
	}
}

// facets writes GET /api/authors's or /api/sources's answer as "name n, ...".
func facets(fs []facetCount) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s%s %d", f.Author, f.Source, f.Memories))
	}
	return strings.Join(out, ", ")
}

// The list, a search, an export and a delete of a view narrow by the door
// the memories came in through; GET /api/sources offers the doors, most
// first, the memories stored before it was recorded last.
func TestListSearchAndExportBySource(t *testing.T) {
	f := newFixture(t)
	storeVia := func(source, content string) string {
		t.Helper()
		res, err := f.mem.Remember(memory.WithSource(t.Context(), source), memory.StoreRequest{Content: content, Type: memory.TypeDecision, Namespace: "global"})
		if err != nil {
			t.Fatal(err)
		}
		return res.ID
	}
	tool := storeVia(memory.SourceMCP, "Deploy the shop on Fridays")
	tool2 := storeVia(memory.SourceMCP, "Deploy the blog from main")
	cli := storeVia(memory.SourceCLI, "Deploy only after the tests pass")
	old := f.store(t, "Deploy notes live in the wiki", memory.TypeDecision, "global")
	created := decode[memory.StoreResult](t, f.do(t, "POST", "/api/memories", `{"content":"Deploy windows are posted in the channel"}`, nil), http.StatusCreated)
	ids := func(target string) string {
		t.Helper()
		p := decode[page](t, f.do(t, "GET", target, "", nil), http.StatusOK)
		var out []string
		for _, m := range p.Memories {
			out = append(out, m.ID)
		}
		return strings.Join(out, " ")
	}
	for target, want := range map[string]string{
		"/api/memories?source=mcp":                tool2 + " " + tool,
		"/api/memories?source=cli":                cli,
		"/api/memories?source=viewer":             created.ID,
		"/api/memories?source=(unknown)":          old,
		"/api/memories?source=import":             "",
		"/api/memories?q=deploy&source=cli":       cli,
		"/api/memories?q=deploy&source=(unknown)": old,
	} {
		if got := ids(target); got != want {
			t.Errorf("GET %s: %q, want %q", target, got, want)
		}
	}
	if m := decode[Detail](t, f.do(t, "GET", "/api/memories/"+created.ID, "", nil), http.StatusOK).Memory; m.Source != memory.SourceViewer {
		t.Errorf("a memory written on the page has source %q, want viewer", m.Source)
	}
	if got := facets(decode[[]facetCount](t, f.do(t, "GET", "/api/sources", "", nil), http.StatusOK)); got != "mcp 2, cli 1, viewer 1, (unknown) 1" {
		t.Errorf("GET /api/sources = %s, want the doors most first, then the unrecorded", got)
	}
	exp := f.do(t, "GET", "/api/export?format=markdown&source=cli", "", nil)
	if body := exp.Body.String(); exp.Code != http.StatusOK || !strings.Contains(body, "1 memory, filtered by source=cli") || !strings.Contains(body, "Deploy only after") || strings.Contains(body, "Fridays") {
		t.Errorf("export of the CLI's memories: %d\n%s", exp.Code, body)
	}
	dry := f.do(t, "POST", "/api/memories/bulk", `{"action":"delete","view":{"source":"mcp"},"dry_run":true}`, nil)
	if dry.Code != http.StatusOK || !strings.Contains(dry.Body.String(), tool) || strings.Contains(dry.Body.String(), cli) {
		t.Errorf("dry run of deleting the MCP tools' view: %d %s", dry.Code, dry.Body)
	}
	for _, bad := range []string{"MCP", "carrier pigeon", "(none)"} {
		if w := f.do(t, "GET", "/api/memories?source="+url.QueryEscape(bad), "", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "accepted mcp, cli") {
			t.Errorf("source %q: %d %s, want 400 saying what is accepted", bad, w.Code, w.Body)
		}
	}
}
