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
)

// Secrets of the history package's private transcript fixture, built here so
// that no secret scanner mistakes the repository for a leak.
const (
	privateSession = "c0ffee00-0000-4000-8000-00000000000a"
	awsKey         = "AKIA" + "QZ3XW7PLM4RT6YHN"
	githubToken    = "ghp_" + "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"
	privateWord    = "zq7xkw"
)

// writePrivateTranscript writes the private fixture (an AWS key, a GitHub
// token, a <private> section) under root and returns its path.
func writePrivateTranscript(t testing.TB, root string) string {
	t.Helper()
	b, err := os.ReadFile("../history/testdata/private.jsonl.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("@AWS_KEY@", awsKey, "@GITHUB_TOKEN@", githubToken, "@FILLER@", "lorem ipsum").Replace(string(b))
	path := filepath.Join(root, "-home-dev-vault", privateSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// leaked names the fixture's secrets that s holds, in any case.
func leaked(s string) []string {
	low := strings.ToLower(s)
	var out []string
	for _, secret := range []string{awsKey[:16], githubToken[4:], privateWord, "passphrase"} {
		if strings.Contains(low, strings.ToLower(secret)) {
			out = append(out, secret)
		}
	}
	return out
}

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
