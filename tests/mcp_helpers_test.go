package tests

import (
	"context"
	"database/sql"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/embedding/ollamatest"
)

// recallEnv is the environment of a recall process using a fresh database in
// t.TempDir() and a fake Ollama; extra entries are appended.
func recallEnv(t testing.TB, extra ...string) (env []string, dbPath string) {
	t.Helper()
	dbPath = filepath.Join(dataDir(t), "recall.db")
	ol := ollamatest.New(t)
	env = append(os.Environ(),
		"RECALL_SQLITE_PATH="+dbPath,
		"RECALL_OLLAMA_HOST="+ol.URL(),
		"RECALL_LOG_LEVEL=WARN",
		"RECALL_HISTORY=off",   // no background indexer reading the machine's transcripts
		"RECALL_DATABASE_URL=", // the SQLite file above, whatever the machine's setting
	)
	return append(env, extra...), dbPath
}

// startStdio starts `recall` (serve is the default command) as an MCP client
// does and returns the session and the process.
func startStdio(t testing.TB, env []string, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(recallBin, args...)
	cmd.Env = env
	cmd.Stderr = stderrFile(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("start recall: %v", err)
	}
	return cs, cmd
}

// result is a tool's answer: its structured result or its error text.
type result struct {
	isError bool
	text    string
	out     map[string]any
}

func callTool(t testing.TB, cs *mcp.ClientSession, tool string, args any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	var r result
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r.out); err != nil {
			t.Fatalf("%s: structured result %s: %v", tool, b, err)
		}
	}
	return r
}

// ok calls a tool that must succeed with success: true.
func ok(t testing.TB, cs *mcp.ClientSession, tool string, args any) map[string]any {
	t.Helper()
	r := callTool(t, cs, tool, args)
	if r.isError || r.out["success"] != true {
		t.Fatalf("%s(%v): %s", tool, args, r.text)
	}
	return r.out
}

// fails calls a tool that must fail with a tool error mentioning every want.
func fails(t testing.TB, cs *mcp.ClientSession, tool string, args any, wants ...string) {
	t.Helper()
	r := callTool(t, cs, tool, args)
	if !r.isError {
		t.Errorf("%s(%v) succeeded with %s, want a tool error", tool, args, r.text)
		return
	}
	for _, w := range wants {
		if !strings.Contains(r.text, w) {
			t.Errorf("%s(%v): error %q does not mention %q", tool, args, r.text, w)
		}
	}
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// checkDatabase opens the database file directly and checks that SQLite finds
// it intact, returning how many memories it holds.
func checkDatabase(t testing.TB, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check of %s: %q, %v", path, integrity, err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM memories").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// stderrFile is where a recall process writes its log; the test shows it
// when it fails.
func stderrFile(t testing.TB) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr-*.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		if t.Failed() {
			if b, err := os.ReadFile(f.Name()); err == nil && len(b) > 0 {
				t.Logf("recall stderr:\n%s", b)
			}
		}
	})
	return f
}
