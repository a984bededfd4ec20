package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// openTest opens a fresh database file in the test's temporary directory.
func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "data", "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var testClock = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// notWaiting is the deadline of a call that must not wait for another
// connection's write lock: a call that waited would sit out the busy timeout
// (10 s), one that does not answers within milliseconds, or a good part of a
// second on a busy machine.
const notWaiting = 2 * time.Second

// newMemory builds a memory the way the service would before storing it.
func newMemory(content, namespace string, typ memory.Type) *memory.Memory {
	testClock = testClock.Add(time.Second)
	return &memory.Memory{
		ID:          memory.NewID(testClock),
		Content:     content,
		ContentHash: memory.ContentHash(content),
		Type:        typ,
		Namespace:   namespace,
		Importance:  memory.DefaultImportance,
		Confidence:  memory.DefaultConfidence,
		CreatedAt:   testClock,
		UpdatedAt:   testClock,
		AccessedAt:  testClock,
	}
}

// mustInsert stores a new memory and fails the test unless it was created.
func mustInsert(t testing.TB, db *DB, m *memory.Memory, vec []float32) *memory.Memory {
	t.Helper()
	got, created, err := db.InsertMemory(context.Background(), m, vec)
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Fatalf("InsertMemory(%q): not created, got existing %s", m.Content, got.ID)
	}
	return got
}

// unitVector is a random vector of length 1.
func unitVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

func hitIDs(hits []memory.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// undoJobsTable turns the one job table back into the two queues of earlier
// schemas (curation_jobs with run_after when withRunAfter, and summary_jobs),
// for tests that take a database back to an older version.
func undoJobsTable(withRunAfter bool) []string {
	runAfter := ""
	if withRunAfter {
		runAfter = ", run_after TEXT NOT NULL DEFAULT ''"
	}
	return []string{
		`DROP TRIGGER jobs_memory_delete`,
		`DROP TABLE jobs`,
		`ALTER TABLE capture_sessions DROP COLUMN draft_memory_id`,
		`CREATE TABLE curation_jobs (id INTEGER PRIMARY KEY, memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
			kind TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT NOT NULL DEFAULT '',
			leased_until TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL` + runAfter + `, UNIQUE (memory_id, kind)) STRICT`,
		`CREATE TABLE summary_jobs (session_id TEXT PRIMARY KEY, reason TEXT NOT NULL, turn_id TEXT NOT NULL DEFAULT '',
			attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT NOT NULL DEFAULT '', leased_until TEXT NOT NULL DEFAULT '',
			created_at TEXT NOT NULL) STRICT`,
	}
}

// GetSession reads a session back, or an error wrapping ErrNotFound. Nothing
// in Recall reads sessions one by one; the tests do.
func (s *DB) GetSession(ctx context.Context, id string) (*memory.Session, error) {
	var sess memory.Session
	var started, ended string
	err := s.db.QueryRowContext(ctx, `SELECT id, namespace, cwd, started_at, ended_at, end_reason
		FROM sessions WHERE id = ?`, id).Scan(&sess.ID, &sess.Namespace, &sess.Cwd, &started, &ended, &sess.EndReason)
	if err == sql.ErrNoRows {
		return nil, memory.NotFound("session", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	if sess.StartedAt, err = parseTime(started); err != nil {
		return nil, err
	}
	if ended != "" {
		t, err := parseTime(ended)
		if err != nil {
			return nil, err
		}
		sess.EndedAt = &t
	}
	return &sess, nil
}

// undoJournalKeywords takes the journal's keyword index back to before
// journal_keywords.sql (unstemmed, no search_words), for tests that take a
// database back to an older version.
func undoJournalKeywords() []string {
	return []string{
		`DROP TRIGGER journal_fts_insert`,
		`DROP TRIGGER journal_fts_delete`,
		`DROP TRIGGER journal_fts_update`,
		`DROP TABLE journal_fts`,
		`ALTER TABLE journal DROP COLUMN search_words`,
		`CREATE VIRTUAL TABLE journal_fts USING fts5 (title, body, content = 'journal', content_rowid = 'id',
			tokenize = 'unicode61 remove_diacritics 2')`,
		`CREATE TRIGGER journal_fts_insert AFTER INSERT ON journal BEGIN
			INSERT INTO journal_fts (rowid, title, body) VALUES (new.id, new.title, new.body); END`,
		`CREATE TRIGGER journal_fts_delete AFTER DELETE ON journal BEGIN
			INSERT INTO journal_fts (journal_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body); END`,
		`INSERT INTO journal_fts (journal_fts) VALUES ('rebuild')`,
	}
}
