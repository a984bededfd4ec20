package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	// The output's token starts 10 bytes before the 300 kept: cut first and
	// cleaned after, its start would stay.
	filler := strings.Repeat("lorem ipsum ", 24)[:290-len(" release v2 published with ")]
	return historytest.WritePrivateTranscript(t, root, filler)
}

func leaks(s string) []string { return historytest.Leaks(s, githubToken[:10]) }

func TestSecretsNeverReachTheIndexNorItsAnswers(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "projects")
	writePrivateTranscript(t, root)
	dir := t.TempDir()
	ix, err := Open(ctx, filepath.Join(dir, "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	if st := update(t, ix, root, Limits{}); st.Messages != 5 {
		t.Fatalf("indexed %+v, want the 5 messages", st)
	}

	// The words around each secret find their message, which shows the secret
	// redacted.
	for _, tc := range []struct{ query, uuid, marker string }{
		{"billing worker AWS key", "p-0001", "[REDACTED:"},
		{"release token", "p-0002", "[REDACTED:"},
		{"release published credential", "p-0003", "[result] lorem"},
		{"dashboard runs on Grafana", "p-0004", "[private]"},
	} {
		r := search(t, ix, Query{Text: tc.query, Context: 2})
		if r.TotalMatches == 0 || r.Results[0].Matched.UUID != tc.uuid {
			t.Errorf("%q: matches %v, want %s first", tc.query, matchedUUIDs(r), tc.uuid)
			continue
		}
		if !strings.Contains(r.Results[0].Matched.Content, tc.marker) {
			t.Errorf("%q: %q lacks %q", tc.query, r.Results[0].Matched.Content, tc.marker)
		}
		for _, v := range append(r.Results[0].Context, r.Results[0].Matched) {
			if l := leaks(v.Content); l != nil {
				t.Errorf("%q: %s shows %v: %q", tc.query, v.UUID, l, v.Content)
			}
		}
	}
	// The secrets themselves are not in the index.
	for _, q := range []string{awsKey, githubToken, privateWord, "vault passphrase"} {
		if r := search(t, ix, Query{Text: q}); r.TotalMatches != 0 {
			t.Errorf("%q found %v", q, matchedUUIDs(r))
		}
	}

	// Reading the conversation again shows it clean, window or whole.
	w, err := ix.Show(ctx, root, privateSession, "p-0003", 5, 5, "")
	if err != nil || len(w.Messages) != 5 {
		t.Fatalf("show: %v, %+v", err, w)
	}
	whole, err := ix.Show(ctx, root, privateSession, "", 0, 0, "")
	if err != nil || len(whole.Messages) != 5 {
		t.Fatalf("show the session: %v, %+v", err, whole)
	}
	around, _, err := ReadAround(root, privateSession, "p-0004", 1, 1)
	if err != nil || len(around) != 3 {
		t.Fatalf("read around: %v, %d messages", err, len(around))
	}
	for _, v := range append(w.Messages, whole.Messages...) {
		if l := leaks(v.Content); l != nil {
			t.Errorf("show: %s shows %v: %q", v.UUID, l, v.Content)
		}
	}
	if !strings.Contains(around[1].Text, "Grafana. [private] Keep") {
		t.Errorf("read around: the anchor is %q", around[1].Text)
	}
	for _, m := range around {
		if l := leaks(m.Text); l != nil {
			t.Errorf("read around: %s shows %v: %q", m.UUID, l, m.Text)
		}
	}
	if got := w.Messages[1].Content; !strings.Contains(got, "[Bash] export GITHUB_TOKEN=[REDACTED:") {
		t.Errorf("the tool call is not shown redacted: %q", got)
	}

	// Nor is any of them anywhere in the index's files.
	ix.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "history.db*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if l := leaks(string(b)); l != nil {
			t.Errorf("%s holds %v", filepath.Base(f), l)
		}
	}
}

// The index holds the text of every conversation: it is readable by its owner
// alone, like the memory database, and one an earlier version left readable
// to others is tightened when opened.
func TestIndexFileIsOwnerOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if ix, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("an index left 0644 is %v after opening, want 0600", fi.Mode().Perm())
	}
}

// A matched message longer than the room shown is cut around the words that
// matched, not before them.
func TestLongMatchedMessageIsCutAroundTheMatch(t *testing.T) {
	long := strings.Repeat("setting up the build and reading files. ", 100) + "Here the flaky checkout test failed on rounding. " + strings.Repeat("more unrelated text follows. ", 100)
	got := cutAround(long, "why did the checkout test fail", 2000)
	if !strings.Contains(got, "flaky checkout test failed") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || len(got) > 2000+2*len("…") {
		t.Errorf("cut %d bytes: %q…", len(got), got[:80])
	}
	if got := cutAround(long, "nothing matches here", 2000); !strings.HasPrefix(got, "setting up") {
		t.Errorf("without a match the beginning is kept: %q", got[:40])
	}
	if short := "short message about checkout"; cutAround(short, "checkout", 2000) != short {
		t.Error("a short message was changed")
	}
}
