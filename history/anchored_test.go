package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A tool call a subagent made is in the subagent's transcript, not in the
// session's the hook named: it is found there.
func TestReadAnchoredFindsASubagentsToolCall(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "-src-shop")
	sub := filepath.Join(dir, "s1", "subagents")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	main := `{"type":"user","uuid":"p-1","sessionId":"s1","message":{"role":"user","content":"find the rounding code"}}` + "\n" +
		`{"type":"assistant","uuid":"a-1","sessionId":"s1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_task","name":"Task","input":{"prompt":"find it"}}]}}` + "\n"
	agent := `{"type":"user","uuid":"sp-1","sessionId":"s1","agentId":"x1","isSidechain":true,"message":{"role":"user","content":"find it"}}` + "\n" +
		`{"type":"assistant","uuid":"sa-1","sessionId":"s1","agentId":"x1","isSidechain":true,"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_grep","name":"Grep","input":{"pattern":"roundCents"}}]}}` + "\n"
	os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(main), 0o600)
	os.WriteFile(filepath.Join(sub, "agent-x1.jsonl"), []byte(agent), 0o600)

	a := Anchor{ToolUseID: "toolu_grep", Offset: int64(len(main))}
	if _, _, err := (Reader{}).AroundAnchor(filepath.Join(dir, "s1.jsonl"), a, 1, 1); err == nil {
		t.Fatal("the subagent's call was found in the session's own transcript")
	}
	msgs, anchor, err := ReadAnchored(root, "s1", a, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := uuids(msgs); !slices.Equal(got, []string{"sp-1", "sa-1"}) || msgs[anchor].UUID != "sa-1" {
		t.Fatalf("window %v, anchor %d", got, anchor)
	}
	// The session's own calls are found too (its transcript comes last).
	if msgs, anchor, err := ReadAnchored(root, "s1", Anchor{ToolUseID: "toolu_task"}, 0, 0); err != nil || msgs[anchor].UUID != "a-1" {
		t.Fatalf("the session's own call: %v, %v", msgs, err)
	}
}
