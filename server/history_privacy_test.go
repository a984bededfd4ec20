package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/history/historytest"
)

// The private transcript fixture, shared with the other tests of history
// and its tools (historytest).
const (
	privateSession = historytest.Session
	awsKey         = historytest.AWSKey
	githubToken    = historytest.GitHubToken
	privateWord    = historytest.PrivateWord
)

func writePrivateTranscript(t testing.TB, root string) string {
	t.Helper()
	return historytest.WritePrivateTranscript(t, root, "lorem ipsum")
}

func leaked(s string) []string { return historytest.Leaks(s) }

// privateFixture serves a history index of the private transcript.
func privateFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "projects")
	writePrivateTranscript(t, root)
	f := newFixture(t)
	dbPath := filepath.Join(t.TempDir(), "history.db")
	ix, err := history.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(context.Background(), history.UpdateOptions{Root: root}); err != nil {
		t.Fatal(err)
	}
	hs := &history.Service{Index: ix, Root: root, Project: "/home/dev/vault"}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.srv = New(Deps{Memory: f.mem, Curation: f.cur, Capture: f.reader, History: hs, Version: "test", Logger: log})
	return f, dbPath
}

func TestHistoryToolsNeverShowSecrets(t *testing.T) {
	f, dbPath := privateFixture(t)
	cs := f.connect(t)
	for _, q := range []string{"billing worker AWS key", "release token", "dashboard runs on Grafana"} {
		for _, tool := range []string{"search_project_history", "search_global_history"} {
			out := call(t, cs, tool, map[string]any{"query": q})
			b, _ := json.Marshal(out)
			if out["total_matches"] == 0.0 {
				t.Errorf("%s %q found nothing", tool, q)
			}
			if l := leaked(string(b)); l != nil {
				t.Errorf("%s %q shows %v: %s", tool, q, l, b)
			}
		}
	}
	for _, q := range []string{awsKey, githubToken, privateWord} {
		if out := call(t, cs, "search_global_history", map[string]any{"query": q}); out["total_matches"] != 0.0 {
			t.Errorf("the secret %q is searchable: %v", q, out)
		}
	}

	out := call(t, cs, "read_history", map[string]any{"session_id": privateSession})
	b, _ := json.Marshal(out)
	if l := leaked(string(b)); l != nil {
		t.Errorf("read_history shows %v: %s", l, b)
	}
	for _, want := range []string{"the AWS key [REDACTED:", "GITHUB_TOKEN=[REDACTED:", "Grafana. [private] Keep"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("read_history lacks %q: %s", want, b)
		}
	}

	paths, _ := filepath.Glob(dbPath + "*")
	for _, p := range paths {
		if b, _ := os.ReadFile(p); leaked(string(b)) != nil {
			t.Errorf("%s holds %v", filepath.Base(p), leaked(string(b)))
		}
	}
}
