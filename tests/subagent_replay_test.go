package tests

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/history"
)

// A subagent's tool call as real Claude Code (2.1.197) made it: the hook
// payloads and transcripts of a `claude -p` session in which the model (a
// local stand-in of the Messages API) had a general-purpose subagent run a
// Bash command, recorded by a wrapper around each hook. They are replayed
// through the built binary's hooks in the order they fired, each with the
// main transcript as long as it was then. The subagent's PostToolUse names
// the main session's transcript (and agent_id); its tool call is in the
// subagent's own transcript, subagents/agent-<id>.jsonl beside it.
func TestRealSubagentToolCallLeadsToItsOwnMessage(t *testing.T) {
	const (
		session = "7898e081-c6d1-4884-a5e1-1f0cc272d734"
		agent   = "a0b4a459cbcc82d59"
		prompt  = "8ad7851e-fda1-4242-b539-146da69f17d6" // the prompt's line in the main transcript
	)
	c := newCLIEnv(t)
	root, _ := newProject(t, c, "shop")
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	dir := filepath.Join(projects, history.EscapeProject(root))
	c.vars["RECALL_HISTORY_DIR"] = projects
	data := filepath.Join("testdata", "claude-2.1.197-subagent")
	fill := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(strings.NewReplacer("{{HOME}}", home, "{{CWD}}", root, "{{PROJECT}}", history.EscapeProject(root)).Replace(string(b)))
	}
	write := func(path string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mainPath := filepath.Join(dir, session+".jsonl")
	mainLines := strings.SplitAfter(string(fill("main.jsonl")), "\n")
	write(filepath.Join(dir, session, "subagents", "agent-"+agent+".jsonl"), fill("agent.jsonl"))
	write(filepath.Join(dir, session, "subagents", "agent-"+agent+".meta.json"), fill("agent.meta.json"))

	sc := bufio.NewScanner(strings.NewReader(string(fill("hooks.jsonl"))))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var h struct {
			Event           string          `json:"event"`
			TranscriptLines int             `json:"transcript_lines"`
			Input           json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		if h.TranscriptLines > 0 {
			write(mainPath, []byte(strings.Join(mainLines[:h.TranscriptLines], "")))
		}
		if _, r := c.hook(h.Event, string(h.Input)); strings.Contains(r.stderr, "ERROR") {
			t.Errorf("hook %s: %s", h.Event, r.stderr)
		}
	}
	write(mainPath, []byte(strings.Join(mainLines, "")))

	// Every tool call is in the turn of the prompt, the subagent's too.
	calls := 0
	for _, e := range c.journal(session) {
		if e.Kind != "observation" {
			continue
		}
		calls++
		if e.TurnID != prompt {
			t.Errorf("tool call %s (%s) in turn %q, want %s", e.AnchorID, e.Title, e.TurnID, prompt)
		}
	}
	if calls != 3 {
		t.Fatalf("%d tool calls captured, want 3 (the subagent's Bash, the Agent call, the main agent's Bash)", calls)
	}

	found := c.call("recall_search", `{"query": "subagent-marker-7731", "project": "project:shop"}`)
	results, _ := found["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("the subagent's tool call is not found: %v", found)
	}
	id := results[0].(map[string]any)["id"].(string)
	details := c.call("recall_details", `{"ids": ["`+id+`"], "around": 1}`)
	rec := details["records"].([]any)[0].(map[string]any)
	var match, after string
	transcript, _ := rec["transcript"].([]any)
	for i, m := range transcript {
		m := m.(map[string]any)
		if m["is_match"] == true {
			match = m["role"].(string) + " " + m["content"].(string)
			if i+1 < len(transcript) {
				after = transcript[i+1].(map[string]any)["content"].(string)
			}
		}
	}
	if !strings.Contains(match, "assistant [Bash] echo subagent-marker-7731") || !strings.Contains(after, "subagent-marker-7731") {
		t.Errorf("details of %s (%s) lead to %q then %q, want the subagent's Bash call and its result: %v", id, rec["title"], match, after, rec)
	}

	// The next session's start lists this one.
	next := hookInput(t, "SessionStart", root, map[string]any{"session_id": "next-session", "source": "startup"})
	if a, r := c.hook("session-start", next); a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "MAINTASK: have a subagent run the marker command") {
		t.Errorf("the next session's start does not list the session: %+v\n%s", a, r.stderr)
	}
}
