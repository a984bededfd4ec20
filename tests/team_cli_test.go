package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// serverMemory is a memory as the team server's own database holds it
// (read with the CLI on the server's machine, which sees everything).
func (ts *teamServer) memory(t *testing.T, id string) (m struct {
	Content    string  `json:"content"`
	Namespace  string  `json:"namespace"`
	Importance float64 `json:"importance"`
	Author     string  `json:"author"`
	Source     string  `json:"source"`
}, found bool) {
	t.Helper()
	r := ts.cli.run("", "show", "--json", id)
	if r.code != 0 {
		return m, false
	}
	var s struct {
		Memory *struct {
			Content    string  `json:"content"`
			Namespace  string  `json:"namespace"`
			Importance float64 `json:"importance"`
			Author     string  `json:"author"`
			Source     string  `json:"source"`
		} `json:"memory"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || s.Memory == nil {
		t.Fatalf("the server's recall show --json %s: %v\n%s", id, err, r.stdout)
	}
	m.Content, m.Namespace, m.Importance, m.Author, m.Source = s.Memory.Content, s.Memory.Namespace, s.Memory.Importance, s.Memory.Author, s.Memory.Source
	return m, true
}

var storedLine = regexp.MustCompile(`stored (mem_\S+) \((\w+), (\S+)\)`)

// added runs recall add on a laptop and returns the id and namespace it
// printed.
func added(t testing.TB, laptop *cliEnv, args ...string) (id, ns string) {
	t.Helper()
	out := laptop.ok(append([]string{"add"}, args...)...)
	m := storedLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("recall add %v printed no id: %q", args, out)
	}
	return m[1], m[3]
}

// Every command a person runs on a laptop in client mode goes through the
// team server with their token: what it prints, and what the server's
// database then holds; another person's private memory answers as a missing
// one through every command.
func TestClientModeCLIWritesAndReadsThroughTheServer(t *testing.T) {
	ts := startTeam(t)
	alice, bob := clientOf(t, ts, ts.alice), clientOf(t, ts, ts.bob)
	alice.cwd = clone(t, alice, "src/shop-api", "git@github.com:acme/shop-api.git")

	// add: in a clone, to the repository's project on the server, by alice.
	shared, ns := added(t, alice, "--type", "decision", "Orders MUST be cached in Redis for five minutes")
	if ns != "project:shop-api" {
		t.Errorf("recall add in alice's clone went to %s, want project:shop-api", ns)
	}
	if m, found := ts.memory(t, shared); !found || m.Namespace != "project:shop-api" || m.Author != "alice" || m.Source != "cli" {
		t.Errorf("the server holds %s as %+v (found %v), want project:shop-api by alice through the cli", shared, m, found)
	}
	private, ns := added(t, alice, "--namespace", "private", "Alice's own note: the cache key includes the tenant")
	if ns != "user:alice" {
		t.Errorf("recall add --namespace private went to %s", ns)
	}
	bobs, _ := added(t, bob, "--namespace", "private", "Bob's own note: the cache is flushed on deploy")
	if r := alice.run("", "add", "--type", "opinion", "x"); r.code != 1 || !strings.Contains(r.stderr, "memory_type") || !strings.Contains(r.stderr, "preference") {
		t.Errorf("a bad type through the server: exit %d, %q", r.code, r.stderr)
	}

	// Bob reaches alice's private memory through no command: each answers
	// as for a memory that does not exist.
	missing := missingLike(private)
	for _, cmd := range [][]string{{"show"}, {"edit", "--importance", "0.1"}, {"rm"}, {"forget"}, {"restore"}} {
		hidden := bob.run("", append(cmd, private)...)
		absent := bob.run("", append(cmd, missing)...)
		if hidden.code == 0 || hidden.code != absent.code || strings.ReplaceAll(hidden.stderr, private, "X") != strings.ReplaceAll(absent.stderr, missing, "X") {
			t.Errorf("bob's recall %s of alice's private memory: exit %d %q; of a missing one: exit %d %q", cmd[0], hidden.code, hidden.stderr, absent.code, absent.stderr)
		}
	}
	if m, _ := ts.memory(t, private); m.Importance != 0.5 {
		t.Errorf("bob's edit changed alice's private memory: %+v", m)
	}
	for _, cmd := range [][]string{{"list"}, {"search", "cache"}, {"restore"}, {"export"}, {"stats"}} {
		if out := bob.ok(cmd...); strings.Contains(out, private) || strings.Contains(out, "user:alice") {
			t.Errorf("bob's recall %s shows alice's private memory:\n%s", strings.Join(cmd, " "), out)
		}
	}
	if out := bob.ok("forget", "cache key tenant"); strings.Contains(out, private) {
		t.Errorf("bob's forget by query would delete alice's private memory:\n%s", out)
	}

	// show, edit: alice's change is on the server, recorded as hers.
	if out := alice.ok("show", shared); !strings.Contains(out, "Orders MUST be cached") || !strings.Contains(out, "project:shop-api") {
		t.Errorf("recall show through the server:\n%s", out)
	}
	if out := alice.ok("edit", shared, "--importance", "0.9"); !strings.Contains(out, "changed importance") {
		t.Errorf("recall edit through the server: %q", out)
	}
	if m, _ := ts.memory(t, shared); m.Importance != 0.9 {
		t.Errorf("after alice's edit the server holds importance %v", m.Importance)
	}
	if out := alice.ok("show", shared); !strings.Contains(out, "edit by alice (cli): importance 0.5 → 0.9") {
		t.Errorf("recall show does not list alice's edit:\n%s", out)
	}
	if r := alice.run("", "edit", shared, "--namespace", "user:bob"); r.code != 1 || !strings.Contains(r.stderr, "its person's alone") {
		t.Errorf("moving a memory into bob's namespace: exit %d, %q", r.code, r.stderr)
	}

	// rm, restore: into the server's trash and back.
	if out := alice.ok("rm", private); !strings.Contains(out, "deleted "+private) {
		t.Errorf("recall rm: %q", out)
	}
	if _, found := ts.memory(t, private); found {
		t.Errorf("after recall rm the server still holds %s", private)
	}
	if out := alice.ok("restore", "--json"); !regexp.MustCompile(`"action": "delete",\s*"source": "cli"`).MatchString(out) {
		t.Errorf("alice's rm is not recorded as the cli's in the trash:\n%s", out)
	}
	if out := alice.ok("restore"); !strings.Contains(out, private) {
		t.Errorf("alice's trash does not list %s:\n%s", private, out)
	}
	if out := bob.ok("restore"); strings.Contains(out, private) {
		t.Errorf("bob's trash lists alice's private memory:\n%s", out)
	}
	if out := alice.ok("restore", private); !strings.Contains(out, "restored "+private) {
		t.Errorf("recall restore: %q", out)
	}
	if m, found := ts.memory(t, private); !found || m.Namespace != "user:alice" {
		t.Errorf("after recall restore the server holds %+v (found %v)", m, found)
	}

	// stats, list and search with their filters.
	if out := alice.ok("stats"); !strings.Contains(out, "the team server "+ts.url) || !strings.Contains(out, "user:alice 1") || strings.Contains(out, "user:bob") {
		t.Errorf("recall stats through the server:\n%s", out)
	}
	today := time.Now().Format(time.DateOnly)
	if out := alice.ok("list", "--since", today, "--min-confidence", "0.1"); !strings.Contains(out, shared) || !strings.Contains(out, private) || strings.Contains(out, bobs) {
		t.Errorf("recall list --since today:\n%s", out)
	}
	if out := alice.ok("list", "--until", "2000-01-01"); !strings.Contains(out, "no memories") {
		t.Errorf("recall list --until 2000-01-01:\n%s", out)
	}
	if out := alice.ok("search", "--namespace", "private", "cache key"); !strings.Contains(out, private) || strings.Contains(out, shared) {
		t.Errorf("recall search --namespace private:\n%s", out)
	}

	// export: everything alice may see, never bob's; --markdown from it.
	exported := alice.ok("export")
	if !strings.Contains(exported, `"record":"header"`) || !strings.Contains(exported, private) || !strings.Contains(exported, shared) || strings.Contains(exported, bobs) {
		t.Errorf("recall export through the server:\n%s", exported)
	}
	md := filepath.Join(alice.dir, "md")
	alice.ok("export", "--markdown", md)
	if b, err := os.ReadFile(filepath.Join(md, "user-alice.md")); err != nil || !strings.Contains(string(b), "the cache key includes the tenant") {
		t.Errorf("recall export --markdown: %v %q", err, b)
	}

	// import: into alice's namespace; into bob's nothing is written.
	file := filepath.Join(alice.dir, "memory.jsonl")
	if err := os.WriteFile(file, []byte(`{"type":"entity","name":"Billing","entityType":"service","observations":["Billing retries three times"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := alice.ok("import", "--namespace", "private", file); !strings.Contains(out, "imported 1 memory") {
		t.Errorf("recall import --namespace private: %q", out)
	}
	if out := ts.cli.ok("list", "--namespace", "user:alice"); !strings.Contains(out, "Billing") {
		t.Errorf("the server's user:alice after alice's import:\n%s", out)
	}
	if out := alice.ok("import", "--namespace", "user:bob", file); !strings.Contains(out, "imported 0 memories") || !strings.Contains(out, "its person's alone") {
		t.Errorf("recall import --namespace user:bob: %q", out)
	}
	if out := ts.cli.ok("list", "--namespace", "user:bob"); strings.Contains(out, "Billing") {
		t.Errorf("alice's import wrote into bob's namespace:\n%s", out)
	}

	// forget: by query a dry run, then for good; by session her own alone.
	if out := alice.ok("forget", "Orders cached Redis"); !strings.Contains(out, "would delete "+shared) {
		t.Errorf("recall forget by query: %q", out)
	}
	if _, found := ts.memory(t, shared); !found {
		t.Errorf("the dry run deleted %s", shared)
	}
	alice.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", alice.cwd, map[string]any{"session_id": "alice-s1", "prompt": "Which cache do orders use?"}))
	if n := len(journalRows(t, ts.cli.dbPath)); n != 1 {
		t.Fatalf("the server's journal holds %d prompts, want alice's one", n)
	}
	if out := bob.ok("forget", "--session", "alice-s1", "--yes"); !strings.Contains(out, "deleted 0 captured entries") {
		t.Errorf("bob forgot alice's session: %q", out)
	}
	if out := alice.ok("forget", "--session", "alice-s1"); !strings.Contains(out, "would delete 1 captured entries") {
		t.Errorf("alice's forget --session, unconfirmed: %q", out)
	}
	if out := alice.ok("forget", "--session", "alice-s1", "--yes"); !strings.Contains(out, "deleted 1 captured entries") || len(journalRows(t, ts.cli.dbPath)) != 0 {
		t.Errorf("alice's forget --session --yes: %q", out)
	}
	golden, _ := added(t, alice, "--type", "golden_rule", "--namespace", "global", "Secrets MUST NOT be committed to git")
	if out := alice.ok("forget", "--yes", "secrets committed git"); !strings.Contains(out, "kept "+golden+": a golden rule") {
		t.Errorf("forget by query of a golden rule: %q", out)
	}
	if r := alice.run("", "forget", golden); r.code != 1 || !strings.Contains(r.stderr, golden+" is a golden rule: add --force") {
		t.Errorf("forget ID of a golden rule: exit %d, %q", r.code, r.stderr)
	}
	if out := alice.ok("forget", "--force", golden); !strings.Contains(out, "deleted "+golden) {
		t.Errorf("forget --force ID of a golden rule: %q", out)
	}
	if out := alice.ok("forget", shared); !strings.Contains(out, "deleted "+shared) {
		t.Errorf("recall forget ID: %q", out)
	}
	if _, found := ts.memory(t, shared); found {
		t.Errorf("after recall forget the server still holds %s", shared)
	}

	// projects: the server's, and what this directory sends.
	if out := alice.ok("projects"); !strings.Contains(out, "project:shop-api") || !strings.Contains(out, "git:github.com/acme/shop-api") {
		t.Errorf("recall projects through the server:\n%s", out)
	}

	// A wrong token, and the commands that run on the server's machine.
	wrong := clientOf(t, ts, "not-a-token-of-anyone-0123456789abcdef0123")
	for _, cmd := range [][]string{{"list"}, {"add", "x"}, {"forget", "x"}} {
		if r := wrong.run("", cmd...); r.code != 1 || !strings.Contains(r.stderr, "refused the token (RECALL_TOKEN)") {
			t.Errorf("recall %s with a wrong token: exit %d, %q", cmd[0], r.code, r.stderr)
		}
	}
	if out := alice.ok("doctor"); !strings.Contains(out, "alice's token") || strings.Contains(out, "database:") {
		t.Errorf("recall doctor on a laptop:\n%s", out)
	}
	if r := wrong.run("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, "refused the token") {
		t.Errorf("recall doctor with a wrong token: exit %d\n%s", r.code, r.stdout)
	}
	if r := alice.run("", "reindex"); r.code != 1 || !strings.Contains(r.stderr, "runs on the server's machine") {
		t.Errorf("recall reindex on a laptop: exit %d, %q", r.code, r.stderr)
	}
	if _, err := os.Stat(alice.dbPath); !os.IsNotExist(err) {
		t.Errorf("client mode made a database on the laptop at %s (%v)", alice.dbPath, err)
	}
}
