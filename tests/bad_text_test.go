package tests

import (
	"strings"
	"testing"
)

// TestLookAlikeNamespacesAreRefused: a namespace that reads like another one
// (space around the name, zero-width or direction characters, control
// characters) is refused with the reason, so no memory can hide in one.
func TestLookAlikeNamespacesAreRefused(t *testing.T) {
	env, dbPath := recallEnv(t)
	cs, _ := startStdio(t, env)
	defer cs.Close()
	for ns, why := range map[string]string{
		"project:api ":                        "space",
		"project: api":                        "space",
		"project:a\u200bpi":                   "U+200B",
		"project:api\ufeff":                   "U+FEFF",
		"project:\u202eipa":                   "U+202E",
		"project:a\x00pi":                     "invisible character",
		"project:api\nglobal":                 "invisible character",
		"project:" + strings.Repeat("a", 300): "248 bytes",
	} {
		fails(t, cs, "memory_store_tool", map[string]any{"content": "Hidden memories MUST NOT exist.", "namespace": ns}, "namespace", why)
		fails(t, cs, "memory_recall_tool", map[string]any{"query": "hidden", "namespace": ns}, "namespace")
	}
	ok(t, cs, "memory_store_tool", map[string]any{"content": "Visible memories MAY exist.", "namespace": "project:api"})
	ok(t, cs, "memory_store_tool", map[string]any{"content": "Unicode names are fine.", "namespace": "project:café-日本"})
	cs.Close()
	if n := checkDatabase(t, dbPath); n != 2 {
		t.Errorf("database holds %d memories, want the 2 accepted", n)
	}
}

// TestControlCharactersInIdentifiersAreRefused: file paths, project roots,
// session ids and file types are one line of text; metadata has a size limit.
func TestControlCharactersInIdentifiersAreRefused(t *testing.T) {
	env, _ := recallEnv(t)
	cs, _ := startStdio(t, env)
	defer cs.Close()
	good := map[string]any{"file_path": "/repo/main.go", "action": "edit"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for k, v := range good {
			m[k] = v
		}
		m[k] = v
		return m
	}
	fails(t, cs, "file_activity_add", with("file_path", "/repo/ma\x00in.go"), "file_path", "NUL")
	fails(t, cs, "file_activity_add", with("file_path", "/repo/main.go\n/etc/passwd"), "file_path", "control")
	fails(t, cs, "file_activity_add", with("session_id", "s1\x1b[2J"), "session_id", "control")
	fails(t, cs, "file_activity_add", with("session_id", strings.Repeat("s", 300)), "session_id", "256 bytes")
	fails(t, cs, "file_activity_add", with("project_root", "/repo\r"), "project_root", "control")
	fails(t, cs, "file_activity_add", with("file_type", "go\tlang"), "file_type", "control")
	fails(t, cs, "file_activity_add", with("metadata", map[string]any{"blob": strings.Repeat("x", 20000)}), "metadata", "bytes")
	fails(t, cs, "file_activity_recent", map[string]any{"project_root": "/repo\x00"}, "project_root", "control")
	if r := ok(t, cs, "file_activity_recent", map[string]any{"project_root": "/repo"}); r["count"] != 0.0 {
		t.Errorf("a refused file activity was recorded: %v", r)
	}
	id := ok(t, cs, "memory_store_tool", map[string]any{"content": "Sessions are one line."})["id"].(string)
	fails(t, cs, "memory_apply_tool", map[string]any{"memory_id": id, "context": "x", "session_id": "a\nb"}, "session_id", "control")
	fails(t, cs, "memory_outcome_tool", map[string]any{"memory_id": id, "success": true, "session_id": "a\x00b"}, "session_id", "control")
	fails(t, cs, "memory_store_tool", map[string]any{"content": "big metadata", "metadata": map[string]any{"blob": strings.Repeat("x", 20000)}}, "metadata", "bytes")
	ok(t, cs, "file_activity_add", good)
}

// TestOverlongIDsAreRefusedWithoutEcho: an id of a megabyte is refused by its
// size, and the error does not repeat it.
func TestOverlongIDsAreRefusedWithoutEcho(t *testing.T) {
	env, _ := recallEnv(t)
	cs, _ := startStdio(t, env)
	defer cs.Close()
	huge := "mem_" + strings.Repeat("1", 1<<20) + "_abc"
	r := callTool(t, cs, "memory_inspect_graph_tool", map[string]any{"memory_id": huge})
	if !r.isError || !strings.Contains(r.text, "memory_id") || !strings.Contains(r.text, "64 bytes") {
		t.Errorf("a 1 MB id: error %v, text %.200q", r.isError, r.text)
	}
	if len(r.text) > 1000 {
		t.Errorf("the error repeats the id: %d characters", len(r.text))
	}
}
