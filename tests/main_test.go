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
	dropRecallSettings()
	return m.Run()
}

// dropRecallSettings unsets the recall settings of the shell the suite runs
// in: a test's recall uses the stores the test gives it, never the
// developer's own (a RECALL_DATABASE_URL or RECALL_SERVER_URL left in the
// environment made tests that set only RECALL_SQLITE_PATH store into that
// database, or that team server). The suite's own settings stay: the
// PostgreSQL tests' RECALL_TEST_DATABASE_URL, the benchmarks' RECALL_BENCH_*,
// RECALL_E2E_*. A RECALL_DATABASE_URL alone still names the PostgreSQL
// server of the PostgreSQL tests, as it does for the storage tests: each test
// then gets a schema of its own there.
func dropRecallSettings() {
	if u := os.Getenv("RECALL_DATABASE_URL"); u != "" && os.Getenv("RECALL_TEST_DATABASE_URL") == "" {
		os.Setenv("RECALL_TEST_DATABASE_URL", u)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "RECALL_") {
			continue
		}
		if strings.HasPrefix(name, "RECALL_TEST_") || strings.HasPrefix(name, "RECALL_BENCH_") || strings.HasPrefix(name, "RECALL_E2E_") {
			continue
		}
		os.Unsetenv(name)
	}
}
