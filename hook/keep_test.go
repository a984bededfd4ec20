package hook_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// promptLine is a prompt the user typed, as Claude Code writes it in a
// transcript.
func promptLine(uuid, text string) string {
	return `{"type":"user","uuid":"` + uuid + `","message":{"role":"user","content":"` + text + `"}}` + "\n"
}

// A post-tool-use hook that keeps its tool call makes the entry and touch a
// written one has, secrets removed, without the database; applied later,
// after the user's next prompt reached the transcript, the call gets its
// project's namespace and the turn it ran in, not the next one.
func TestAKeptToolCallIsWrittenAsTheHookFoundIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "shop-api")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(dir, "transcript.jsonl")
	if err := os.WriteFile(transcript, []byte(promptLine("turn-1", "make the orders cache last five minutes")), 0o600); err != nil {
		t.Fatal(err)
	}
	orders := filepath.Join(root, "orders.go")
	const secret = "ghp_4fJ8kLm2Qx9Rt7Vw3Yz6Bn1Cd5Ef0Gh8Ij2K"
	raw, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": root, "transcript_path": transcript, "tool_name": "Edit", "tool_use_id": "toolu_1",
		"tool_input":    map[string]any{"file_path": orders, "old_string": "token := \"\"", "new_string": "token := \"" + secret + "\""},
		"tool_response": map[string]any{"filePath": orders, "success": true}})
	in, err := hook.ReadInput(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}

	// The hook: no database.
	var kept []*hook.KeptToolCall
	h := &hook.Handler{Memory: memory.NewService(nil, nil, memory.Options{}), Capture: &capture.Recorder{},
		KeepToolCalls: func(_ context.Context, k *hook.KeptToolCall) error { kept = append(kept, k); return nil }}
	if out, err := h.Handle(ctx, hook.PostToolUse, in); out != nil || err != nil {
		t.Fatalf("post-tool-use answered %+v, %v", out, err)
	}
	if len(kept) != 1 || kept[0].Entry == nil || kept[0].Activity == nil {
		t.Fatalf("kept %+v; want one tool call with its entry and file touch", kept)
	}
	k := kept[0]
	if strings.Contains(k.Entry.Body+k.Entry.Title, secret) || !strings.Contains(k.Entry.Body, "[REDACTED:") {
		t.Errorf("the kept entry holds the secret, or no redaction:\n%s", k.Entry.Body)
	}
	if k.Entry.Namespace != "" || k.Entry.TurnID != "" || k.Activity.ProjectRoot != root || k.Activity.FilePath != orders || k.Cwd != root {
		t.Errorf("kept entry namespace %q turn %q, touch %q in %q, cwd %q; want the database's parts left out and the rest as a written one", k.Entry.Namespace, k.Entry.TurnID, k.Activity.FilePath, k.Activity.ProjectRoot, k.Cwd)
	}

	// The next prompt reaches the transcript before the spool is applied.
	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(promptLine("turn-2", "now the customers cache"))
	f.Close()

	db, err := sqlite.OpenWith(ctx, filepath.Join(dir, "recall.db"), sqlite.Options{SpoolWhenBusy: true, ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	full := &hook.Handler{Memory: memory.NewService(db, nil, memory.Options{}), Projects: project.NewResolver(db, "", nil), Capture: &capture.Recorder{Store: db}, ToolCalls: db}
	db.ResolveKeptToolCalls(full.ResolveKeptToolCall)
	if _, err := spool.New(db.SpoolDir(), nil).AddUnsynced(sqlite.SpoolKeptToolCall, "", k); err != nil {
		t.Fatal(err)
	}
	if res, err := db.DrainSpool(ctx, spool.Budget{}); err != nil || res.Applied != 1 {
		t.Fatalf("DrainSpool = %+v, %v", res, err)
	}
	es, err := db.SessionEntries(ctx, "s1", 0, 10)
	if err != nil || len(es) != 1 {
		t.Fatalf("journal: %v, %v", es, err)
	}
	e := es[0]
	if e.Namespace != project.Candidates(root)[0] || e.TurnID != "turn-1" || e.AnchorID != "toolu_1" || e.ToolName != "Edit" {
		t.Errorf("written entry: namespace %q turn %q anchor %q tool %q; want %q, turn-1 (the hook's turn), toolu_1, Edit", e.Namespace, e.TurnID, e.AnchorID, e.ToolName, project.Candidates(root)[0])
	}
	files, err := db.RecentFiles(ctx, root, e.CreatedAt.Add(-1), 0)
	if err != nil || len(files) != 1 || files[0].FilePath != orders {
		t.Errorf("file touches: %+v, %v", files, err)
	}
}

// The process that applies a kept tool call has a working directory and a
// configuration of its own: the hook keeps its own working directory when
// the event named none, and the project its configuration pins.
func TestAKeptToolCallKeepsWhatTheHookKnowsOfItsProject(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "shop-api")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	in, err := hook.ReadInput(strings.NewReader(`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":"ok"}`))
	if err != nil {
		t.Fatal(err)
	}
	for pinned, want := range map[string]string{"": project.Candidates(root)[0], "project:billing": "project:billing"} {
		var kept *hook.KeptToolCall
		h := &hook.Handler{Memory: memory.NewService(nil, nil, memory.Options{}), Capture: &capture.Recorder{}, Projects: project.NewResolver(nil, pinned, nil),
			KeepToolCalls: func(_ context.Context, k *hook.KeptToolCall) error { kept = k; return nil }}
		if _, err := h.Handle(ctx, hook.PostToolUse, in); err != nil || kept == nil {
			t.Fatalf("post-tool-use (pinned %q): kept %v, %v", pinned, kept, err)
		}
		if kept.Cwd != root {
			t.Errorf("kept cwd %q, want the hook's own %q when the event names none", kept.Cwd, root)
		}

		// Applied by a process elsewhere, with nothing pinned.
		t.Chdir(dir)
		db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "recall.db"))
		if err != nil {
			t.Fatal(err)
		}
		applier := &hook.Handler{Projects: project.NewResolver(db, "", nil), Capture: &capture.Recorder{Store: db}}
		data, _ := json.Marshal(kept)
		e, _, err := applier.ResolveKeptToolCall(ctx, data, nil)
		db.Close()
		t.Chdir(root)
		if err != nil || e == nil || e.Namespace != want {
			t.Errorf("pinned %q: written in %v (%v), want %q", pinned, e, err, want)
		}
	}
}
