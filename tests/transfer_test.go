package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/internal/pyrecall"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// TestExportImportRoundTrip moves a database out with `recall export` and into
// an empty one with `recall import`, as a user leaving one machine for another
// does; exporting the new one gives the same records.
func TestExportImportRoundTrip(t *testing.T) {
	from := newCLIEnv(t)
	if err := pyrecall.Create(from.dbPath, pyrecall.Sample()); err != nil {
		t.Fatal(err)
	}
	from.store("Deploys MUST be tagged", "--type", "decision")
	file := filepath.Join(from.dir, "recall.jsonl")
	from.ok("export", "-o", file)

	to := newCLIEnv(t)
	out := to.ok("import", file)
	if !strings.Contains(out, "imported 8 memories, 4 edges, 3 validation events, 2 file activity rows from recall-export") {
		t.Errorf("import said: %s", out)
	}
	first, _ := os.ReadFile(file)
	again := to.ok("export")
	if stripHeader(again) != stripHeader(string(first)) {
		t.Errorf("export after import differs:\n%s\nwant:\n%s", again, first)
	}

	md := filepath.Join(to.dir, "record")
	to.ok("export", "--markdown", md)
	page, err := os.ReadFile(filepath.Join(md, "project-billing.md"))
	if err != nil || !strings.Contains(string(page), "> Use PostgreSQL for the billing service") {
		t.Errorf("markdown record: %v\n%s", err, page)
	}
}

// stripHeader drops the first line (it carries the export time).
func stripHeader(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

// TestImportReportsBadLinesByNumber imports a file with a broken line: the
// good lines are imported, the bad one named, and the exit code says so.
func TestImportReportsBadLinesByNumber(t *testing.T) {
	c := newCLIEnv(t)
	file := filepath.Join(c.dir, "memory.jsonl")
	os.WriteFile(file, []byte(`{"type":"entity","name":"Recall","entityType":"project","observations":["Written in Go","Stores memories in SQLite"]}
{"type":"entity","name":"Ollama","entityType":"service","observations":["Makes the embeddings"]}
{"type":"relation","from":"Recall","to":"Ollama","relationType":"depends_on"}
{"type":"entity","name":
`), 0o600)
	res := c.run("", "import", file)
	if res.code != 1 || !strings.Contains(res.stderr, "line 4:") || !strings.Contains(res.stdout, "imported 2 memories, 1 edge,") || !strings.Contains(res.stdout, "mapping:") {
		t.Fatalf("import with a bad line 4: exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	found := c.ok("search", "embeddings")
	if !strings.Contains(found, "Ollama (service)") {
		t.Errorf("the imported entity is not searchable: %s", found)
	}
	back := c.ok("export", "--format", "memory-jsonl")
	if !strings.Contains(back, `{"type":"relation","from":"Recall","to":"Ollama","relationType":"depends_on"}`) {
		t.Errorf("memory-jsonl export lacks the relation:\n%s", back)
	}
}

// TestImportShowsProgressOnATerminal runs an import under script(1), which
// gives it a terminal: the progress bar is drawn there. (Without a terminal,
// as in the tests above, stderr carries no bar.)
func TestImportShowsProgressOnATerminal(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: no terminal to draw on")
	}
	c := newCLIEnv(t)
	var b strings.Builder
	b.WriteString(`{"record":"header","format":"recall-export","version":1,"exported_at":"2026-01-01T00:00:00Z"}` + "\n")
	for i := range 1000 {
		fmt.Fprintf(&b, `{"record":"memory","id":"mem_%d_%08x","content":"Note %d: handlers SHOULD stay small.","memory_type":"pattern","namespace":"global","importance":0.5,"confidence":0.3,"created_at":"2025-01-01T00:00:00Z"}`+"\n", 1735689600000+i, i, i)
	}
	file := filepath.Join(c.dir, "notes.jsonl")
	os.WriteFile(file, []byte(b.String()), 0o600)
	cmd := exec.Command(scriptBin, "-qec", recallBin+" import "+file, "/dev/null")
	cmd.Env = os.Environ()
	for k, v := range c.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import under a terminal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "importing") || !strings.Contains(string(out), "(500/1000)") || !strings.Contains(string(out), "imported 1000 memories") {
		t.Errorf("no progress bar on the terminal:\n%q", out)
	}
}

// TestArchivedMemoryMovesMachines archives a memory (as the viewer does) and
// moves the database with `recall export` and `recall import`: the archived
// memory arrives in the trash, not in the store, and a second import of the
// same file adds nothing.
func TestArchivedMemoryMovesMachines(t *testing.T) {
	ctx := context.Background()
	from := newCLIEnv(t)
	from.store("Deploys MUST be tagged", "--type", "decision")
	old := from.store("Deploys went through the old FTP script", "--type", "decision")
	db, err := sqlite.Open(ctx, from.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	err = db.ArchiveMemory(ctx, old, true)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(from.dir, "recall.jsonl")
	if r := from.run("", "export", "-o", file); r.code != 0 || !strings.Contains(r.stderr, "exported the trash: 1 archived memory, 0 deleted memories") {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}

	to := newCLIEnv(t)
	out := to.ok("import", file)
	if !strings.Contains(out, "imported 1 memory, 0 edges") || !strings.Contains(out, "imported 1 archived memory into the trash") {
		t.Errorf("import said: %s", out)
	}
	if found := to.ok("search", "FTP script"); strings.Contains(found, old) {
		t.Errorf("the archived memory is searchable after the import: %s", found)
	}
	out = to.ok("import", file)
	if !strings.Contains(out, "imported 0 archived memories into the trash (restorable in the viewer); 1 already stored") {
		t.Errorf("second import said: %s", out)
	}
	db, err = sqlite.Open(ctx, to.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if items, err := db.Trash(ctx); err != nil || len(items) != 1 || !items[0].Archived || items[0].Memory.ID != old {
		t.Fatalf("trash after two imports = %+v, %v; want the archived memory once", items, err)
	}
	if _, err := db.RestoreMemory(ctx, old); err != nil {
		t.Errorf("restore: %v", err)
	}
}
