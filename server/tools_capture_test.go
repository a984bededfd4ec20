package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/capture"
)

// topics of the fixture session, each with the words a question about it uses
// and the fact its tool calls established.
var topics = []struct{ name, fact string }{
	{"redis cache", "order list cached in Redis with a five minute TTL"},
	{"billing export", "billing export skips cancelled invoices"},
	{"jwt auth", "JWT signing key rotated every thirty days"},
	{"rate limiting", "rate limiting allows one hundred requests per minute"},
	{"database migration", "database migration adds an index on orders.created_at"},
	{"flaky test", "flaky test fixed by freezing the clock"},
	{"structured logging", "structured logging moved to log/slog"},
	{"docker build", "docker build uses a distroless base image"},
	{"feature flag", "feature flag new-checkout defaults to off"},
	{"pagination", "pagination switched to cursors on the orders endpoint"},
}

// seedSession writes a realistic captured session: per topic a prompt, six tool
// calls with a kilobyte or two of output each, and a summary.
func seedSession(t testing.TB, f *fixture) {
	t.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	rec := &capture.Recorder{Store: f.db, Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}
	a := capture.Anchor{Namespace: "project:shop", SessionID: "sess-1", TranscriptPath: "/home/u/.claude/projects/shop/sess-1.jsonl"}
	for i, tp := range topics {
		a.TurnID = fmt.Sprintf("turn-%d", i)
		if _, err := rec.Prompt(ctx, a, "Let's work on the "+tp.name+" of the shop service"); err != nil {
			t.Fatal(err)
		}
		for j, tool := range []string{"Read", "Grep", "Edit", "Bash", "Edit", "Bash"} {
			file := fmt.Sprintf("internal/%s/file%d.go", strings.ReplaceAll(tp.name, " ", "_"), j)
			output := strings.Repeat(fmt.Sprintf("line of %s output for %s step %d\n", tool, tp.name, j), 40)
			if j == 5 {
				output = "PASS: " + tp.fact + "\n" + output
			}
			in, _ := json.Marshal(map[string]any{"file_path": file, "command": "go test ./internal/... # " + tp.name})
			resp, _ := json.Marshal(map[string]any{"stdout": output})
			if _, err := rec.Observation(ctx, a, capture.Tool{Name: tool, Input: in, Response: resp, Cwd: "/src/shop"}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := f.db.RecordSummary(ctx, &capture.Entry{Kind: capture.KindSummary, Namespace: a.Namespace, SessionID: a.SessionID,
			TurnID: a.TurnID, Title: "Worked on the " + tp.name + ": " + tp.fact,
			Body: "- " + tp.fact + "\n- six tool calls on the " + tp.name + " code\n- tests pass", CreatedAt: clock}, 0, true)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// callText calls a tool and returns the text the model reads.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s(%v): %v %s", tool, args, err, ContentText(res))
	}
	return ContentText(res)
}

func resultIDs(t testing.TB, text string) []string {
	t.Helper()
	var out struct{ Results []capture.IndexItem }
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range out.Results {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestProgressiveDisclosureSavesTokens answers ten "what did we do about X"
// questions twice: index then details of the two best ids, against the full
// records of every index result at once. Tokens are estimated at four
// characters of the text the model reads.
func TestProgressiveDisclosureSavesTokens(t *testing.T) {
	f := newFixture(t)
	seedSession(t, f)
	cs := f.connect(t)
	var stepwise, allAtOnce, indexTokens, indexResults int
	for _, tp := range topics {
		q := "what did we do about the " + tp.name
		index := callText(t, cs, "recall_search", map[string]any{"query": q, "project": "project:shop"})
		ids := resultIDs(t, index)
		if len(ids) < 3 {
			t.Fatalf("%q: %d results", q, len(ids))
		}
		details := callText(t, cs, "recall_details", map[string]any{"ids": ids[:2]})
		if !strings.Contains(details, tp.fact) {
			t.Errorf("%q: the two best records do not hold %q:\n%s", q, tp.fact, index)
		}
		full := callText(t, cs, "recall_details", map[string]any{"ids": ids})
		indexTokens += (len(index) + 3) / 4
		indexResults += len(ids)
		stepwise += (len(index) + len(details) + 3) / 4
		allAtOnce += (len(full) + 3) / 4
	}
	ratio := float64(allAtOnce) / float64(stepwise)
	t.Logf("ten questions: index then details %d tokens, full records at once %d tokens, ratio %.1fx; index %.0f tokens a result",
		stepwise, allAtOnce, ratio, float64(indexTokens)/float64(indexResults))
	if ratio < 2 {
		t.Errorf("progressive disclosure saves too little: %.1fx", ratio)
	}
}

func TestCaptureToolsTimelineAndErrors(t *testing.T) {
	f := newFixture(t)
	seedSession(t, f)
	cs := f.connect(t)
	ids := resultIDs(t, callText(t, cs, "recall_search", map[string]any{"query": "flaky test clock", "limit": 3}))
	if len(ids) == 0 || !strings.HasPrefix(ids[0], "j") {
		t.Fatalf("search ids %v", ids)
	}
	tl := resultIDs(t, callText(t, cs, "recall_timeline", map[string]any{"id": ids[0], "before": 2, "after": 1}))
	if len(tl) != 4 || tl[2] != ids[0] {
		t.Fatalf("timeline of %s: %v", ids[0], tl)
	}
	mem := store(t, cs, map[string]any{"content": "Pagination MUST use cursors", "memory_type": "decision", "namespace": "project:shop"})
	// A memory's timeline is its project's journal around the moment it was
	// stored (after the whole fixture session), with the memory itself.
	mtl := resultIDs(t, callText(t, cs, "recall_timeline", map[string]any{"id": mem, "before": 2, "after": 2}))
	if len(mtl) != 3 || mtl[2] != mem || !strings.HasPrefix(mtl[0], "j") {
		t.Fatalf("timeline of memory %s: %v", mem, mtl)
	}
	// A global memory may come from a session of any project; the memories
	// stored before and after it in its namespace are part of its timeline.
	first := store(t, cs, map[string]any{"content": "Commit messages MUST be in the imperative mood", "memory_type": "preference"})
	global := store(t, cs, map[string]any{"content": "Code review MUST happen before merging", "memory_type": "preference"})
	last := store(t, cs, map[string]any{"content": "Branches SHOULD be short-lived", "memory_type": "preference"})
	gtl := resultIDs(t, callText(t, cs, "recall_timeline", map[string]any{"id": global, "before": 2, "after": 1}))
	if len(gtl) != 4 || !strings.HasPrefix(gtl[0], "j") || gtl[1] != first || gtl[2] != global || gtl[3] != last {
		t.Fatalf("timeline of global memory %s: %v, want a journal entry, %s, itself, %s", global, gtl, first, last)
	}
	recs := call(t, cs, "recall_details", map[string]any{"ids": []string{mem, ids[0], "j999999"}})
	if n := len(recs["records"].([]any)); n != 2 || fmt.Sprint(recs["missing"]) != "[j999999]" {
		t.Fatalf("details: %v", recs)
	}
	callErr(t, cs, "recall_details", map[string]any{"ids": []string{}}, "ids", "1 to 20")
	callErr(t, cs, "recall_timeline", map[string]any{"id": "j424242"}, "j424242", "search")
	callErr(t, cs, "recall_search", map[string]any{"query": "x", "limit": 500}, "limit", "1 to 50")
}
