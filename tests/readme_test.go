package tests

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/config"
)

// TestREADMENamesExist reads README.md and checks that every tool, RECALL_*
// variable and recall command it cites exists, and that the Go version it
// asks for is go.mod's: a newcomer copies these names.
func TestREADMENamesExist(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)

	// History on (over an empty directory): its tools are listed too.
	env, _ := recallEnv(t, "RECALL_HISTORY=on", "RECALL_HISTORY_DIR="+t.TempDir())
	cs, _ := startStdio(t, env)
	defer cs.Close()
	tools := map[string]bool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = true
	}
	// A tool is a backticked name ending in _tool, or one of the names the
	// tool families use; the others are parameters, fields and record kinds.
	toolName := regexp.MustCompile("`((?:memory|recall|file_activity|validation|search|read)_[a-z_]+)`")
	params := map[string]bool{"memory_type": true, "memory_id": true, "validation_event": true, "search_mode": true}
	cited := 0
	for _, m := range toolName.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if params[name] {
			continue
		}
		cited++
		if !tools[name] {
			t.Errorf("README cites the tool %s; the server has no such tool", name)
		}
	}
	if cited < 15 {
		t.Errorf("found only %d tool names in README: is the pattern still right?", cited)
	}

	// Variables: the configuration's, and those the code reads itself (the
	// benchmarks' switches).
	known := map[string]bool{}
	for _, s := range config.Settings() {
		known[s.Name] = true
	}
	readByCode := regexp.MustCompile(`Getenv\("(RECALL_[A-Z_]+)"\)|LookupEnv\("(RECALL_[A-Z_]+)"\)`)
	filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, _ := os.ReadFile(path)
		for _, m := range readByCode.FindAllStringSubmatch(string(src), -1) {
			known[m[1]+m[2]] = true
		}
		return nil
	})
	for _, name := range slices.Compact(slices.Sorted(slices.Values(regexp.MustCompile(`RECALL_[A-Z][A-Z_]*[A-Z]`).FindAllString(text, -1)))) {
		if !known[name] {
			t.Errorf("README cites %s; recall reads no such variable", name)
		}
	}

	// Commands: `recall NAME ...` in backticks or code blocks.
	c := newCLIEnv(t)
	for _, m := range regexp.MustCompile("(?m)(?:`|^)recall ([a-z][a-z-]*)").FindAllStringSubmatch(text, -1) {
		if r := c.run("", m[1], "--help"); r.code != 0 {
			t.Errorf("README cites `recall %s`; recall %s --help exits %d: %s", m[1], m[1], r.code, r.stderr)
		}
	}

	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)`).FindStringSubmatch(string(gomod))[1]
	if !strings.Contains(text, "Go "+goVersion+" or later") {
		t.Errorf("README should ask for Go %s or later, as go.mod does", goVersion)
	}
}
