package transfer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/internal/pyrecall"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

func openDB(t testing.TB, name string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sampleDB is a database with memories of every type, edges, validation
// events and file activity (the Python sample, migrated).
func sampleDB(t testing.TB) *sqlite.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recall.db")
	if err := pyrecall.Create(path, pyrecall.Sample()); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func export(t testing.TB, db *sqlite.DB) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := ExportJSONL(context.Background(), db, &buf, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestJSONLRoundTrip exports a database, imports the export into an empty
// one and exports that: the two exports are the same records.
func TestJSONLRoundTrip(t *testing.T) {
	src := sampleDB(t)
	// A summary row: 42 older touches of one file folded into one row.
	if _, err := src.SQL().Exec(`INSERT INTO file_activity (file_path, action, session_id, project_root, file_type, metadata, created_at, touches, summary)
		VALUES ('/src/billing/old.go', 'edit', '', '/src/billing', 'go', '{}', '2024-01-01T00:00:00.000000000Z', 42, 1)`); err != nil {
		t.Fatal(err)
	}
	first := export(t, src)
	if n := strings.Count(first, "\n"); n != 1+7+4+3+3 {
		t.Fatalf("export has %d lines, want a header and 17 records:\n%s", n, first)
	}
	if !strings.Contains(first, `"touches":42,"summary":true`) {
		t.Errorf("the summary row lost its touches:\n%s", first)
	}
	empty := openDB(t, "empty.db")
	rep, err := Import(context.Background(), empty, strings.NewReader(first), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.BadLines) != 0 || rep.Result.Memories != 7 || rep.Result.Edges != 4 || rep.Result.Events != 3 || rep.Result.Files != 3 {
		t.Fatalf("import report = %+v %+v", rep, rep.Result)
	}
	if second := export(t, empty); second != first {
		t.Errorf("export after import differs:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	// Importing the same file again adds nothing and says so.
	again, err := Import(context.Background(), empty, strings.NewReader(first), ImportOptions{})
	if err != nil || again.Result.Memories != 0 || again.Result.Existing != 7 || again.Result.Edges != 0 ||
		again.Result.Events != 0 || again.Result.Files != 0 || again.Result.Changes != 0 || again.Result.Projects != 0 {
		t.Errorf("second import = %+v, %v; want every record found existing", again.Result, err)
	}
	// Confidence and supersede decisions read the events: a second import
	// must leave the database as the first left it.
	if third := export(t, empty); third != first {
		t.Errorf("export after a second import differs:\nfirst:\n%s\nthird:\n%s", first, third)
	}
}

// TestImportReportsBadLinesAndKeepsTheGood mixes broken lines among good ones.
func TestImportReportsBadLinesAndKeepsTheGood(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(export(t, sampleDB(t))), "\n")
	broken := slices.Clone(lines[:3])                                                        // header and two memories
	broken = append(broken, `{"record": "memory", "id": "mem_1_ab", "content": `)            // line 4: cut short
	broken = append(broken, strings.Replace(lines[3], `"namespace":"`, `"namespace":"x`, 1)) // line 5: bad namespace
	broken = append(broken, `{"record": "vector", "id": 1}`)                                 // line 6: unknown kind
	broken = append(broken, lines[4])                                                        // line 7: good
	db := openDB(t, "target.db")
	rep, err := Import(context.Background(), db, strings.NewReader(strings.Join(broken, "\n")), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var nums []int
	for _, b := range rep.BadLines {
		nums = append(nums, b.Line)
	}
	if !slices.Equal(nums, []int{4, 5, 6}) || !strings.Contains(rep.BadLines[1].Err, "namespace") {
		t.Errorf("bad lines = %v, want lines 4, 5 and 6 (5 for its namespace)", rep.BadLines)
	}
	if rep.Result.Memories != 3 {
		t.Errorf("imported %d memories, want the 3 good ones", rep.Result.Memories)
	}
}

// TestImportIsAllOrNothing stops an import halfway through writing: nothing
// of it stays.
func TestImportIsAllOrNothing(t *testing.T) {
	src := export(t, sampleDB(t))
	db := openDB(t, "target.db")
	ctx, cancel := context.WithCancel(context.Background())
	// Progress is told once rows are written, inside the transaction: cancel there.
	opts := ImportOptions{Progress: func(done, total int) { cancel() }}
	_, err := Import(ctx, db, strings.NewReader(src), opts)
	// The cancellation reaches the commit as context.Canceled or as the
	// transaction already rolled back, whichever database/sql sees first.
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("import cancelled halfway: err = %v, want a failure saying nothing was written", err)
	}
	if st, _ := db.Stats(context.Background()); st.Memories != 0 || st.Edges != 0 {
		t.Errorf("after a failed import the database holds %d memories, %d edges; want none", st.Memories, st.Edges)
	}
}

// TestImportRefusesANewerVersion reads an export from a later recall.
func TestImportRefusesANewerVersion(t *testing.T) {
	_, err := Import(context.Background(), openDB(t, "x.db"), strings.NewReader(`{"record":"header","format":"recall-export","version":99}`), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "upgrade recall") {
		t.Errorf("newer export: %v, want a refusal saying to upgrade", err)
	}
}

const memoryServerFile = `{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish","Graduated in 2019"]}
{"type":"entity","name":"Anthropic","entityType":"organization","observations":["Makes Claude"]}
{"type":"relation","from":"John_Smith","to":"Anthropic","relationType":"works_at"}
`

// TestMemoryServerRoundTrip imports the MCP memory server's memory.jsonl and
// writes it back: the same entities and relations.
func TestMemoryServerRoundTrip(t *testing.T) {
	db := openDB(t, "recall.db")
	rep, err := Import(context.Background(), db, strings.NewReader(memoryServerFile+`{"type":"relation","from":"John_Smith","to":"Nobody","relationType":"knows"}`), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != FormatMemoryServer || rep.Result.Memories != 2 || rep.Result.Edges != 1 || len(rep.BadLines) != 1 || rep.BadLines[0].Line != 4 || rep.Mapping == "" {
		t.Fatalf("memory server import = %+v %+v", rep, rep.Result)
	}
	var buf bytes.Buffer
	if err := ExportMemoryServer(context.Background(), db, &buf); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := strings.Split(strings.TrimSpace(memoryServerFile), "\n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("memory server export:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMarkdownRecord writes the sample as markdown: a file per namespace,
// golden rules first, ids, confidence, dates and links across files; the
// same database gives the same files (a record kept in git shows real changes).
func TestMarkdownRecord(t *testing.T) {
	db := sampleDB(t)
	dir := t.TempDir()
	files, err := ExportMarkdown(context.Background(), db, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "global.md" || filepath.Base(files[1]) != "project-billing.md" {
		t.Fatalf("files = %v, want global.md and project-billing.md", files)
	}
	global := readFile(t, files[0])
	billing := readFile(t, files[1])
	for _, want := range []string{
		"# Memories of global",
		"## Golden rules\n\n<a id=\"0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f\"></a>\n> Never commit secrets to the repository",
		"confidence 0.95 · importance 1.00 · created 2025-01-01",
	} {
		if !strings.Contains(global, want) {
			t.Errorf("global.md lacks %q:\n%s", want, global)
		}
	}
	if strings.Index(global, "## Golden rules") > strings.Index(global, "## Preferences") {
		t.Errorf("golden rules are not first:\n%s", global)
	}
	if !strings.Contains(billing, "- caused_by [3f2b8c1e-5d4a-4b6f-9e8d-7c6b5a4f3e2d](project-billing.md#3f2b8c1e-5d4a-4b6f-9e8d-7c6b5a4f3e2d)") {
		t.Errorf("project-billing.md lacks the session's link to the decision it was caused by:\n%s", billing)
	}
	again := t.TempDir()
	files2, err := ExportMarkdown(context.Background(), db, again)
	if err != nil || readFile(t, files2[0]) != global || readFile(t, files2[1]) != billing {
		t.Errorf("a second export differs from the first")
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withProjects gives db the project bindings table (as the projects migration
// makes it) and returns db.
func withProjects(t testing.TB, db *sqlite.DB, rows ...[2]string) *sqlite.DB {
	t.Helper()
	if _, err := db.SQL().Exec(`CREATE TABLE IF NOT EXISTS project_roots (root TEXT PRIMARY KEY, namespace TEXT NOT NULL, created_at TEXT NOT NULL) STRICT`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, err := db.SQL().Exec(`INSERT INTO project_roots VALUES (?, ?, '2025-01-01T00:00:00.000000000Z')`, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestProjectsTravel exports project bindings and imports them back.
func TestProjectsTravel(t *testing.T) {
	src := withProjects(t, sampleDB(t), [2]string{"/src/billing", "project:billing"})
	first := export(t, src)
	if !strings.Contains(first, `{"created_at":"2025-01-01T00:00:00.000000000Z","namespace":"project:billing","record":"project","root":"/src/billing"}`) {
		t.Fatalf("export lacks the project binding:\n%s", first)
	}
	dst := withProjects(t, openDB(t, "dst.db"))
	rep, err := Import(context.Background(), dst, strings.NewReader(first), ImportOptions{})
	if err != nil || rep.Result.Projects != 1 {
		t.Fatalf("import = %+v, %v; want one project", rep, err)
	}
	if second := export(t, dst); second != first {
		t.Errorf("export after import differs:\n%s\nwant:\n%s", second, first)
	}
}

// TestMemoryServerEntitiesObeyTheRules refuses an entity too big to be a
// memory (by line) and a namespace Recall does not accept (before reading).
func TestMemoryServerEntitiesObeyTheRules(t *testing.T) {
	db := openDB(t, "recall.db")
	huge := `{"type":"entity","name":"Big","entityType":"blob","observations":["` + strings.Repeat("x", 70*1024) + `"]}`
	rep, err := Import(context.Background(), db, strings.NewReader(memoryServerFile+huge+"\n"), ImportOptions{})
	if err != nil || len(rep.BadLines) != 1 || rep.BadLines[0].Line != 4 || !strings.Contains(rep.BadLines[0].Err, "content") {
		t.Errorf("huge entity: %+v, %v; want line 4 refused for its content", rep, err)
	}
	if _, err := Import(context.Background(), db, strings.NewReader(memoryServerFile), ImportOptions{Namespace: "team"}); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("namespace team: %v, want a refusal naming the namespace", err)
	}
}

// TestArchivedMemoriesTravel exports a database with a live, a deleted and an
// archived memory: the archived one travels with its edges, events and change
// log and lands in the new database's trash, archived, at the same time and
// restorable; the deleted one lands there too, deleted at the same time
// (restorable until the trash lets it go). A second import changes nothing.
func TestArchivedMemoriesTravel(t *testing.T) {
	ctx := context.Background()
	src := openDB(t, "src.db")
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	add := func(content string) *memory.Memory {
		at = at.Add(time.Minute)
		m, _, err := src.InsertMemory(ctx, &memory.Memory{ID: memory.NewID(at), Content: content, Type: memory.TypeDecision,
			Namespace: "global", Importance: 0.5, Confidence: 0.3, CreatedAt: at, UpdatedAt: at, AccessedAt: at}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	live, deleted, archived := add("Builds run on the CI host"), add("A note deleted in the viewer"), add("Builds ran on the old Jenkins box")
	if _, err := src.InsertEdge(ctx, &memory.Edge{SourceID: live.ID, TargetID: archived.ID, Relation: memory.RelationRelatesTo, Weight: 1, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddEvent(ctx, &memory.ValidationEvent{MemoryID: archived.ID, EventType: memory.EventSucceeded, ConfidenceBefore: 0.3, ConfidenceAfter: 0.4, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if err := src.TrashMemory(ctx, deleted.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := src.ArchiveMemory(ctx, archived.ID, true); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := ExportJSONL(ctx, src, &buf, at)
	if err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	if n.Archived != 1 || !strings.Contains(file, `{"record":"archived_memory","archived_at":`) || !strings.Contains(file, archived.ID) {
		t.Fatalf("export counts %+v, want the archived memory:\n%s", n, file)
	}
	// Version 3: an older recall would leave the deleted, journal and vector
	// lines out and import the rest; the version makes it refuse the file and
	// say to upgrade.
	if !strings.HasPrefix(file, `{"record":"header","format":"recall-export","version":3,`) {
		t.Errorf("export header is not version 3:\n%s", file)
	}
	if n.Deleted != 1 || !strings.Contains(file, `{"record":"deleted_memory","deleted_at":`) {
		t.Errorf("export counts %+v, want the deleted memory %s:\n%s", n, deleted.ID, file)
	}

	dst := openDB(t, "dst.db")
	rep, err := Import(ctx, dst, strings.NewReader(file), ImportOptions{})
	if err != nil || len(rep.BadLines) != 0 || rep.Result.Memories != 1 || rep.Result.Archived != 1 || rep.Result.Deleted != 1 {
		t.Fatalf("import = %+v %+v, %v; want one live, one archived and one deleted memory", rep, rep.Result, err)
	}
	want, _ := src.Trash(ctx) // last deleted first: the archived one
	got, _ := dst.Trash(ctx)
	if len(want) != 2 || want[0].Memory.ID != archived.ID {
		t.Fatalf("source trash = %+v", want)
	}
	if len(got) != 2 || !got[0].Archived || got[0].Memory.ID != archived.ID || !got[0].DeletedAt.Equal(want[0].DeletedAt) ||
		len(got[0].Edges) != 1 || len(got[0].Events) != 1 ||
		got[1].Archived || got[1].Memory.ID != deleted.ID || !got[1].DeletedAt.Equal(want[1].DeletedAt) {
		t.Fatalf("trash after import = %+v, want %+v", got, want)
	}
	if again := export(t, dst); stripHeader(again) != stripHeader(file) {
		t.Errorf("export after import differs:\n%s\nwant:\n%s", again, file)
	}

	// The same file again: nothing new, the archived memory counted as there.
	rep, err = Import(ctx, dst, strings.NewReader(file), ImportOptions{})
	if err != nil || rep.Result.Memories != 0 || rep.Result.Edges != 0 || rep.Result.Events != 0 || rep.Result.Archived != 0 ||
		rep.Result.Deleted != 0 || rep.Result.ArchivedExisting != 2 {
		t.Fatalf("second import = %+v, %v; want nothing added and the trash found", rep.Result, err)
	}
	if again := export(t, dst); stripHeader(again) != stripHeader(file) {
		t.Errorf("export after a second import differs:\n%s\nwant:\n%s", again, file)
	}

	if _, err := dst.RestoreMemory(ctx, archived.ID); err != nil {
		t.Fatal(err)
	}
	if m, err := dst.GetMemory(ctx, archived.ID); err != nil || m.Content != archived.Content {
		t.Fatalf("restored memory = %+v, %v", m, err)
	}
	if edges, _ := dst.Edges(ctx, memory.EdgeQuery{TargetID: archived.ID}); len(edges) != 1 || edges[0].SourceID != live.ID {
		t.Errorf("restored edges = %+v", edges)
	}
	if evs, _ := dst.Events(ctx, archived.ID, "", 0); len(evs) != 1 || evs[0].ConfidenceAfter != 0.4 {
		t.Errorf("restored events = %+v", evs)
	}
	// Live now: the file's archived copy is left out, not put in the trash
	// (the deleted one is there still).
	rep, err = Import(ctx, dst, strings.NewReader(file), ImportOptions{})
	if items, _ := dst.Trash(ctx); err != nil || rep.Result.Archived != 0 || rep.Result.ArchivedExisting != 2 || len(items) != 1 || items[0].Memory.ID != deleted.ID {
		t.Errorf("import over the restored memory = %+v, %v, trash %+v; want it left out", rep.Result, err, items)
	}
}

func stripHeader(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}

// TestArchivedRecordsAreChecked refuses archived memories whose parts do not
// belong to them or that lack their archive time, by line; an unknown kind
// says an upgrade may read it.
func TestArchivedRecordsAreChecked(t *testing.T) {
	const mem = `"memory":{"id":"mem_1740787260000_c4d422bb","content":"Builds ran on Jenkins","memory_type":"decision","namespace":"global","importance":0.5,"confidence":0.3,"created_at":"2025-03-01T00:00:00Z"}`
	file := `{"record":"header","format":"recall-export","version":2}
{"record":"archived_memory","archived_at":"2025-03-02T00:00:00Z",` + mem + `,"edges":[],"validation_events":[{"id":1,"memory_id":"mem_1740787260000_aaaaaaaa","event_type":"succeeded","created_at":"2025-03-01T00:00:00Z"}],"changes":[]}
{"record":"archived_memory",` + mem + `,"edges":[],"validation_events":[],"changes":[]}
{"record":"archived_memory","archived_at":"2025-03-02T00:00:00Z",` + mem + `,"edges":[],"validation_events":[],"changes":[]}
{"record":"pinned_memory","id":"mem_1740787260000_c4d422bb"}`
	rep, err := Import(context.Background(), openDB(t, "x.db"), strings.NewReader(file), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.BadLines) != 3 || rep.BadLines[0].Line != 2 || !strings.Contains(rep.BadLines[0].Err, "validation event 1 is of memory") ||
		rep.BadLines[1].Line != 3 || !strings.Contains(rep.BadLines[1].Err, "archived_at") ||
		rep.BadLines[2].Line != 5 || !strings.Contains(rep.BadLines[2].Err, "upgrade recall") || rep.Result.Archived != 1 {
		t.Errorf("bad lines = %v, archived %d; want lines 2 (event), 3 (time) and 5 (kind) left out and line 4 archived", rep.BadLines, rep.Result.Archived)
	}
}

// An import is one more way in: a memory.jsonl or a Recall export holding a
// key or a <private> section is cleaned as a store would clean it.
func TestImportCleansSecretsAndPrivateSections(t *testing.T) {
	key := "AKIA" + "QZ3XW7PLM4RT6YHN"
	ms := `{"type":"entity","name":"deploy","entityType":"note","observations":["aws key ` + key + `","home <private>12 Elm Street</private> ok"]}` + "\n"
	export := `{"record":"header","format":"recall-export","version":2,"exported_at":"2026-01-02T03:04:05Z"}` + "\n" +
		`{"record":"memory","id":"mem_1767322800000_0a1b2c3d","content":"DB_PASSWORD=` + "Xy!9" + `#kL$2@pQ in the runbook <private>do not keep</private>","content_hash":"x","memory_type":"decision","namespace":"global","importance":0.5,"confidence":0.3,"metadata":{},"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","accessed_at":"2026-01-02T03:04:05Z","access_count":0}` + "\n"
	for name, file := range map[string]string{"memory server": ms, "recall export": export} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t, "recall.db")
			rep, err := Import(context.Background(), db, strings.NewReader(file), ImportOptions{})
			if err != nil || rep.Result.Memories != 1 {
				t.Fatalf("import = %+v, %v", rep, err)
			}
			all, err := db.ListMemories(context.Background(), memory.ListQuery{Limit: 10})
			if err != nil || len(all) != 1 {
				t.Fatalf("memories %v, %v", all, err)
			}
			c := all[0].Content
			for _, leaked := range []string{key, "Xy!9#kL$2@pQ", "Elm Street", "do not keep"} {
				if strings.Contains(c, leaked) {
					t.Errorf("import kept %q: %s", leaked, c)
				}
			}
			if !strings.Contains(c, "[REDACTED:") || !strings.Contains(c, "[private]") {
				t.Errorf("imported content %q lacks the markers of what was taken out", c)
			}
			if all[0].ContentHash != memory.ContentHash(c) {
				t.Errorf("hash %s is not the cleaned content's", all[0].ContentHash)
			}
		})
	}
}

// TestExportKeepsWhoAndHowAMemoryWasStored: an export carries each memory's
// author and source ("" when it was never recorded) and an import keeps them;
// a line without a source (an export before version 3) was imported.
func TestExportKeepsWhoAndHowAMemoryWasStored(t *testing.T) {
	ctx := context.Background()
	src := openDB(t, "src.db")
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	want := map[string][2]string{} // id -> author, source
	for i, c := range []struct{ author, source string }{{"ann", memory.SourceViewer}, {"", memory.SourceCLI}, {"", ""}} {
		m := &memory.Memory{ID: memory.NewID(at.Add(time.Duration(i) * time.Second)), Content: fmt.Sprintf("note %d about deploys", i),
			Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3, Author: c.author, Source: c.source,
			CreatedAt: at, UpdatedAt: at, AccessedAt: at}
		if _, _, err := src.InsertMemory(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		want[m.ID] = [2]string{c.author, c.source}
	}
	file := export(t, src)
	for _, s := range []string{`"author":"ann","source":"viewer"`, `"source":"cli"`, `"source":""`} {
		if !strings.Contains(file, s) {
			t.Errorf("export lacks %s:\n%s", s, file)
		}
	}
	dst := openDB(t, "dst.db")
	if _, err := Import(ctx, dst, strings.NewReader(file), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		m, err := dst.GetMemory(ctx, id)
		if err != nil || m.Author != w[0] || m.Source != w[1] {
			t.Errorf("imported %s: %+v, %v; want author %q, source %q", id, m, err, w[0], w[1])
		}
	}

	old := `{"record":"header","format":"recall-export","version":2,"exported_at":"2026-01-02T03:04:05Z"}
{"record":"memory","id":"mem_1767323045000_0a0b0c0d","content":"Written before sources were recorded","content_hash":"","memory_type":"decision","namespace":"global","importance":0.5,"confidence":0.3,"metadata":{},"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","accessed_at":"2026-01-02T03:04:05Z","access_count":0}`
	rep, err := Import(ctx, dst, strings.NewReader(old), ImportOptions{})
	if err != nil || len(rep.BadLines) != 0 || rep.Result.Memories != 1 {
		t.Fatalf("import of a version 2 file: %+v, %v", rep, err)
	}
	if m, err := dst.GetMemory(ctx, "mem_1767323045000_0a0b0c0d"); err != nil || m.Source != memory.SourceImport {
		t.Errorf("a memory of a version 2 file: %+v, %v; want source %q", m, err, memory.SourceImport)
	}
	bad := strings.Replace(strings.Split(file, "\n")[1], `"source":"`, `"source":"Not A Door`, 1)
	if rep, err := Import(ctx, openDB(t, "bad.db"), strings.NewReader(bad), ImportOptions{}); err != nil || len(rep.BadLines) != 1 || !strings.Contains(rep.BadLines[0].Err, "source") {
		t.Errorf("a bad source: %+v, %v; want the line refused for its source", rep, err)
	}
}

// TestAPersonsImportIsSignedWithTheirName imports a file whose rows name bob
// as their author: imported by alice it is alice's (nobody signs with another
// person's name by editing a file), imported by the administrator it keeps
// bob (a whole store moved, losslessly).
func TestAPersonsImportIsSignedWithTheirName(t *testing.T) {
	ctx := context.Background()
	src := openDB(t, "src.db")
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	var ids []string
	for i, text := range []string{"Deploys go out on Tuesdays", "Deploys never go out on Fridays"} {
		m := &memory.Memory{ID: memory.NewID(at.Add(time.Duration(i) * time.Second)), Content: text, Type: memory.TypeDecision,
			Namespace: "global", Importance: 0.5, Confidence: 0.3, Author: "bob", CreatedAt: at, UpdatedAt: at, AccessedAt: at}
		if _, _, err := src.InsertMemory(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	bobs := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	if _, err := src.InsertEdge(bobs, &memory.Edge{SourceID: ids[0], TargetID: ids[1], Relation: memory.RelationRelatesTo, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	file := export(t, src)
	if !strings.Contains(file, `"author":"bob"`) {
		t.Fatalf("the export names no author bob:\n%s", file)
	}

	for _, c := range []struct {
		who  memory.Principal
		want string
	}{{memory.Principal{Person: "alice"}, "alice"}, {memory.Principal{Admin: true}, "bob"}} {
		dst := openDB(t, "dst-"+c.want+".db")
		if _, err := Import(memory.WithPrincipal(ctx, c.who), dst, strings.NewReader(file), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if m, err := dst.GetMemory(ctx, id); err != nil || m.Author != c.want {
				t.Errorf("imported by %+v, %s: %+v, %v; want author %q", c.who, id, m, err, c.want)
			}
		}
		edges, err := dst.Edges(ctx, memory.EdgeQuery{SourceID: ids[0]})
		if err != nil || len(edges) != 1 || edges[0].Author != c.want {
			t.Errorf("imported by %+v, the edge: %+v, %v; want one by %q", c.who, edges, err, c.want)
		}
	}
}
