// Package tests is the end-to-end suite: it builds the recall binary once and
// drives it the way its users do (an MCP client, Claude Code's hooks, a person at
// a shell).
package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recallBin is the path of the binary built for this test run.
var recallBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "recall-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "create build directory:", err)
		return 1
	}
	defer os.RemoveAll(dir)

	recallBin = filepath.Join(dir, "recall")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", recallBin, "../cmd/recall")
	// The binary under test is built as users build it, even when CI turns on
	// the race detector for the tests through GOFLAGS.
	build.Env = append(os.Environ(), "GOFLAGS="+strings.Join(slices.DeleteFunc(strings.Fields(os.Getenv("GOFLAGS")), func(f string) bool { return f == "-race" }), " "))
	build.Stdout = os.Stderr
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build recall:", err)
		return 1
	}
	return m.Run()
}
