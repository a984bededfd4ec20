package capture

import (
	"strings"
	"testing"
)

func TestOwnToolsAreNotCaptured(t *testing.T) {
	for name, want := range map[string]bool{
		"mcp__recall__recall_search":                   true,
		"mcp__plugin_recall_recall__memory_store_tool": true,
		"Bash":                    false,
		"mcp__github__get_issue":  false,
		"recall_search_unrelated": false,
	} {
		if OwnTool(name) != want {
			t.Errorf("OwnTool(%q) = %v", name, !want)
		}
	}
}

func TestKeepTrimsAndRedactsAcrossTheCut(t *testing.T) {
	token := "ghp_" + "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"
	// The token straddles the cut: it must not be kept in part.
	s := strings.Repeat("x", 4090) + token + strings.Repeat("\nmore", 1000)
	kept, dropped := keep(s, 4096)
	if strings.Contains(kept, "ghp_") || dropped == 0 || !strings.Contains(kept, "bytes not kept") {
		t.Fatalf("kept %q… (dropped %d)", kept[len(kept)-80:], dropped)
	}
	if len(kept) > 4096+64 {
		t.Fatalf("kept %d bytes", len(kept))
	}
}

func TestResponseTextPicksTheTextFields(t *testing.T) {
	cases := map[string]struct {
		text   string
		isText bool
	}{
		`{"stdout": "ok", "stderr": "warn", "interrupted": false}`: {"warn\nok", true},
		`"plain text"`: {"plain text", true},
		`{"type": "text", "file": {"filePath": "a.go", "content": "package a"}}`: {"package a", true},
		`{"filenames": ["a.go"], "numFiles": 1}`:                                 {`{"filenames": ["a.go"], "numFiles": 1}`, false},
		`[1, 2]`:                                                                 {`[1, 2]`, false},
	}
	for raw, want := range cases {
		if text, isText := responseText([]byte(raw)); text != want.text || isText != want.isText {
			t.Errorf("responseText(%s) = %q, %v; want %q, %v", raw, text, isText, want.text, want.isText)
		}
	}
}
