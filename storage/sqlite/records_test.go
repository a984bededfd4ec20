package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func TestEvents(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("validated", "global", memory.TypePattern), nil)
	t0 := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	var ids []int64
	for i, typ := range []memory.EventType{memory.EventApplied, memory.EventSucceeded, memory.EventFailed, memory.EventSucceeded} {
		id, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: m.ID, EventType: typ, Context: "ctx", SessionID: "s1",
			ConfidenceBefore: 0.3, ConfidenceAfter: 0.4, CreatedAt: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	all, err := db.Events(ctx, m.ID, "", 0)
	if err != nil || len(all) != 4 || all[0].ID != ids[3] || all[3].ID != ids[0] {
		t.Fatalf("Events = %+v, %v; want 4 newest first", all, err)
	}
	if e := all[3]; e.EventType != memory.EventApplied || e.Context != "ctx" || e.SessionID != "s1" ||
		e.ConfidenceBefore != 0.3 || e.ConfidenceAfter != 0.4 || !e.CreatedAt.Equal(t0) {
		t.Errorf("event read back = %+v", e)
	}
	succ, _ := db.Events(ctx, m.ID, memory.EventSucceeded, 1)
	if len(succ) != 1 || succ[0].ID != ids[3] {
		t.Errorf("latest success = %+v", succ)
	}
	if _, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: "mem_7_00000000", EventType: memory.EventApplied}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("event for a missing memory: %v, want ErrNotFound", err)
	}
	if _, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: m.ID, EventType: "guessed"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("unknown event type: %v, want ErrInvalid", err)
	}
}

func TestRecentFiles(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	add := func(path string, action memory.FileAction, root string, minutes int) {
		t.Helper()
		if _, err := db.AddFileActivity(ctx, &memory.FileActivity{FilePath: path, Action: action, ProjectRoot: root,
			FileType: "go", SessionID: "s", CreatedAt: t0.Add(time.Duration(minutes) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	add("/p/a.go", memory.ActionRead, "/p", 0)
	add("/p/a.go", memory.ActionEdit, "/p", 10)
	add("/p/a.go", memory.ActionRead, "/p", 20)
	add("/p/b.go", memory.ActionWrite, "/p", 15)
	add("/q/c.go", memory.ActionRead, "/q", 30)
	add("/p/old.go", memory.ActionRead, "/p", -600)

	got, err := db.RecentFiles(ctx, "/p", t0.Add(-time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].FilePath != "/p/a.go" || got[1].FilePath != "/p/b.go" {
		t.Fatalf("RecentFiles = %+v, want a.go then b.go", got)
	}
	a := got[0]
	if a.AccessCount != 3 || a.LastAction != memory.ActionRead || !a.LastAccessed.Equal(t0.Add(20*time.Minute)) ||
		a.Actions["read"] != 2 || a.Actions["edit"] != 1 || a.ProjectRoot != "/p" || a.FileType != "go" {
		t.Errorf("a.go summary = %+v", a)
	}
	all, _ := db.RecentFiles(ctx, "", time.Time{}, 2)
	if len(all) != 2 || all[0].FilePath != "/q/c.go" || all[1].FilePath != "/p/a.go" {
		t.Errorf("all projects, limit 2 = %+v", all)
	}
	if _, err := db.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/x", Action: "delete"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("unknown action: %v, want ErrInvalid", err)
	}
}

func TestJobQueue(t *testing.T) {
	ctx := context.Background()
	kinds := []string{"contradict", "relate"}
	db := openTest(t)
	a := mustInsert(t, db, newMemory("job a", "global", memory.TypeDecision), nil)
	b := mustInsert(t, db, newMemory("job b", "global", memory.TypeDecision), nil)
	j1, err := db.EnqueueJob(ctx, a.ID, "relate")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := db.EnqueueJob(ctx, a.ID, "relate"); again != j1 {
		t.Errorf("the same pending job twice: %d and %d", j1, again)
	}
	j2, _ := db.EnqueueJob(ctx, a.ID, "contradict")
	j3, _ := db.EnqueueJob(ctx, b.ID, "relate")
	if _, err := db.EnqueueJob(ctx, "", "relate"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("job about nothing: %v", err)
	}
	// Jobs of kinds the caller does not run stay for a process that does.
	if other, _ := db.ClaimJobs(ctx, []string{"summary"}, 10, time.Hour); len(other) != 0 {
		t.Fatalf("claimed %+v for a kind that has no job", other)
	}

	claimed, err := db.ClaimJobs(ctx, kinds, 2, time.Hour)
	if err != nil || len(claimed) != 2 || claimed[0].ID != j1 || claimed[1].ID != j2 || claimed[0].Attempts != 1 || claimed[0].Kind != "relate" {
		t.Fatalf("ClaimJobs = %+v, %v; want jobs %d and %d", claimed, err, j1, j2)
	}
	rest, _ := db.ClaimJobs(ctx, kinds, 10, time.Hour)
	if len(rest) != 1 || rest[0].ID != j3 {
		t.Errorf("second claim = %+v, want only %d (the others are leased)", rest, j3)
	}
	if err := db.FinishJob(ctx, j1); err != nil {
		t.Fatal(err)
	}
	if err := db.RetryJob(ctx, j2, "model timed out", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishJob(ctx, j3); err != nil {
		t.Fatal(err)
	}
	again, _ := db.ClaimJobs(ctx, kinds, 10, time.Hour)
	if len(again) != 1 || again[0].ID != j2 || again[0].Attempts != 2 || again[0].LastError != "model timed out" {
		t.Errorf("after finishing = %+v, want only the retried %d", again, j2)
	}
	// A lease that ran out (its process died) can be claimed again.
	if _, err := db.SQL().Exec(`UPDATE jobs SET leased_until = ?`, formatTime(time.Now().Add(-time.Second))); err != nil {
		t.Fatal(err)
	}
	if expired, _ := db.ClaimJobs(ctx, kinds, 10, time.Hour); len(expired) != 1 || expired[0].ID != j2 {
		t.Errorf("expired lease not reclaimed: %+v", expired)
	}
	if st, _ := db.Stats(ctx); st.PendingJobs != 1 || st.RetryingJobs != 1 || st.LastJobError != "model timed out" || st.OldestJobAt.IsZero() {
		t.Errorf("Stats = %d pending, %d retrying, last error %q, oldest %v; want 1, 1, the timeout, a time",
			st.PendingJobs, st.RetryingJobs, st.LastJobError, st.OldestJobAt)
	}
}

// A failed job waits for its due time and then goes behind the fresh jobs, so
// one job that keeps failing never holds up the queue.
func TestRetriedJobWaitsAndGoesBehind(t *testing.T) {
	ctx := context.Background()
	relate := []string{"relate"}
	db := openTest(t)
	a := mustInsert(t, db, newMemory("retry a", "global", memory.TypeDecision), nil)
	b := mustInsert(t, db, newMemory("retry b", "global", memory.TypeDecision), nil)
	ja, _ := db.EnqueueJob(ctx, a.ID, "relate")
	got, _ := db.ClaimJobs(ctx, relate, 1, time.Hour)
	if len(got) != 1 || got[0].ID != ja {
		t.Fatalf("first claim %+v, want %d", got, ja)
	}
	if err := db.RetryJob(ctx, ja, "Ollama is not running", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if early, _ := db.ClaimJobs(ctx, relate, 10, time.Hour); len(early) != 0 {
		t.Fatalf("a job due in an hour was claimed now: %+v", early)
	}
	// Due again: it goes behind a job queued after it.
	if _, err := db.SQL().Exec(`UPDATE jobs SET run_after = ? WHERE id = ?`, formatTime(time.Now().Add(-time.Minute)), ja); err != nil {
		t.Fatal(err)
	}
	jb, _ := db.EnqueueJob(ctx, b.ID, "relate")
	order, _ := db.ClaimJobs(ctx, relate, 10, time.Hour)
	if len(order) != 2 || order[0].ID != jb || order[1].ID != ja {
		t.Errorf("claim order %+v, want the fresh %d before the retried %d", order, jb, ja)
	}
}

// A job that can never succeed is kept on record with its cause, never
// claimed again, and leaves room for new work of the same kind and subject.
func TestFailedJobStaysOnRecord(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	relate := []string{"relate"}
	a := mustInsert(t, db, newMemory("fail a", "global", memory.TypeDecision), nil)
	id, _ := db.EnqueueJob(ctx, a.ID, "relate")
	if got, _ := db.ClaimJobs(ctx, relate, 1, time.Hour); len(got) != 1 {
		t.Fatalf("claim %+v", got)
	}
	if err := db.FailJob(ctx, id, ""); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("a failure without a cause: %v", err)
	}
	if err := db.FailJob(ctx, id, "model reply does not parse"); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ClaimJobs(ctx, relate, 10, time.Hour); len(got) != 0 {
		t.Fatalf("a failed job was claimed again: %+v", got)
	}
	st, _ := db.Stats(ctx)
	if st.PendingJobs != 0 || st.FailedJobs != 1 || !strings.Contains(st.LastJobFailure, "relate job for "+a.ID+" failed for good") ||
		!strings.Contains(st.LastJobFailure, "model reply does not parse") {
		t.Errorf("stats: %d pending, %d failed, last %q", st.PendingJobs, st.FailedJobs, st.LastJobFailure)
	}
	again, err := db.EnqueueJob(ctx, a.ID, "relate")
	if err != nil || again == id {
		t.Fatalf("new work beside a failed job: %d, %v", again, err)
	}
	// Deleting the memory takes its pending job and keeps the record.
	if err := db.DeleteMemory(ctx, a.ID, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.Stats(ctx); st.PendingJobs != 0 || st.FailedJobs != 1 {
		t.Errorf("after delete: %d pending, %d failed", st.PendingJobs, st.FailedJobs)
	}
}

// A job queued again while it runs may have been read before the change: it
// runs once more instead of being finished.
func TestJobQueuedWhileRunningRunsAgain(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	kinds := []string{"summary"}
	id, _ := db.EnqueueJob(ctx, "s1", "summary")
	if again, _ := db.EnqueueJob(ctx, "s1", "summary"); again != id {
		t.Fatalf("pending job queued twice: %d, %d", id, again)
	}
	if got, _ := db.ClaimJobs(ctx, kinds, 1, time.Hour); len(got) != 1 {
		t.Fatalf("claim %+v", got)
	}
	if again, _ := db.EnqueueJob(ctx, "s1", "summary"); again != id {
		t.Fatalf("running job queued twice: %d, %d", id, again)
	}
	if err := db.FinishJob(ctx, id); err != nil {
		t.Fatal(err)
	}
	got, _ := db.ClaimJobs(ctx, kinds, 1, time.Hour)
	if len(got) != 1 || got[0].ID != id || got[0].Attempts != 1 {
		t.Fatalf("after finishing a job queued again: %+v, want it due once more", got)
	}
	if err := db.FinishJob(ctx, id); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.Stats(ctx); st.PendingJobs != 0 {
		t.Errorf("%d pending after the second run", st.PendingJobs)
	}
}

func TestModelHealth(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		if err := db.RecordModelHealth(ctx, "chat", "replies do not parse", t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := db.Stats(ctx)
	if len(st.ModelHealth) != 1 || st.ModelHealth[0].Failures != 3 || !st.ModelHealth[0].FailingSince.Equal(t0) || st.ModelHealth[0].LastError != "replies do not parse" {
		t.Fatalf("after 3 failures: %+v", st.ModelHealth)
	}
	if err := db.RecordModelHealth(ctx, "chat", "", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st, _ := db.Stats(ctx); len(st.ModelHealth) != 0 {
		t.Errorf("after a success: %+v, want none failing", st.ModelHealth)
	}
	if err := db.RecordModelHealth(ctx, " ", "x", t0); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("empty role: %v", err)
	}
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	start := time.Date(2025, 7, 1, 8, 0, 0, 0, time.UTC)
	if err := db.UpsertSession(ctx, &memory.Session{ID: "s1", Namespace: "project:x", Cwd: "/x", StartedAt: start}); err != nil {
		t.Fatal(err)
	}
	end := start.Add(time.Hour)
	if err := db.UpsertSession(ctx, &memory.Session{ID: "s1", StartedAt: end, EndedAt: &end, EndReason: "exit"}); err != nil {
		t.Fatal(err)
	}
	s, err := db.GetSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if s.Namespace != "project:x" || s.Cwd != "/x" || !s.StartedAt.Equal(start) || s.EndedAt == nil || !s.EndedAt.Equal(end) || s.EndReason != "exit" {
		t.Errorf("session = %+v", s)
	}
	if err := db.UpsertSession(ctx, &memory.Session{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("session without id: %v", err)
	}
}

func TestStats(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "m", Dimension: 2}); err != nil {
		t.Fatal(err)
	}
	a := mustInsert(t, db, newMemory("stat a", "global", memory.TypeDecision), []float32{1, 0})
	b := mustInsert(t, db, newMemory("stat b", "project:p", memory.TypeDecision), nil)
	mustInsert(t, db, newMemory("stat c", "project:p", memory.TypePattern), nil)
	if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventApplied}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/f", Action: memory.ActionRead}); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 3 || st.ByNamespace["project:p"] != 2 || st.ByNamespace["global"] != 1 || st.ByType["decision"] != 2 ||
		st.Edges != 1 || st.ValidationEvents != 1 || st.FileActivity != 1 || st.PendingEmbeddings != 2 ||
		st.EmbeddingModel != "m" || st.EmbeddingDim != 2 || st.SchemaVersion != SchemaVersion() || st.FileBytes <= 0 {
		t.Errorf("Stats = %+v", st)
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for k := range st.ByType {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(ids, []string{"decision", "pattern"}) {
		t.Errorf("ByType keys = %v", ids)
	}
}

func TestSummarizeFileActivityFoldsOldTouches(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	add := func(path string, action memory.FileAction, daysAgo int) {
		t.Helper()
		if _, err := db.AddFileActivity(ctx, &memory.FileActivity{FilePath: path, Action: action, ProjectRoot: "/p",
			FileType: "go", SessionID: "s", CreatedAt: now.Add(-time.Duration(daysAgo) * 24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	for d := 100; d < 110; d++ {
		add("/p/old.go", memory.ActionRead, d)
	}
	add("/p/old.go", memory.ActionEdit, 120)
	add("/p/old.go", memory.ActionRead, 3)
	add("/p/new.go", memory.ActionWrite, 1)
	before := func() []memory.FileSummary {
		got, err := db.RecentFiles(ctx, "/p", time.Time{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	all := before()

	cutoff := now.Add(-90 * 24 * time.Hour)
	removed, err := db.SummarizeFileActivity(ctx, cutoff)
	if err != nil || removed != 11 {
		t.Fatalf("summarize removed %d rows (%v), want the 11 old touches", removed, err)
	}
	var rows int
	db.SQL().QueryRow(`SELECT count(*) FROM file_activity`).Scan(&rows)
	if rows != 4 { // read and edit summaries of old.go, its recent read, new.go
		t.Errorf("%d rows left, want 4", rows)
	}
	after := before()
	if len(after) != 2 || after[0].FilePath != "/p/new.go" || after[1].AccessCount != all[1].AccessCount ||
		after[1].Actions["read"] != 11 || after[1].Actions["edit"] != 1 || !after[1].LastAccessed.Equal(all[1].LastAccessed) {
		t.Errorf("all-time summary changed by folding:\n before %+v\n after  %+v", all, after)
	}
	recent, _ := db.RecentFiles(ctx, "/p", now.Add(-14*24*time.Hour), 10)
	if len(recent) != 2 || recent[1].AccessCount != 1 {
		t.Errorf("the last 14 days = %+v, want old.go touched once", recent)
	}

	// Nothing left to fold: it only reads, even while another process writes.
	lock, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer lock.ExecContext(ctx, `ROLLBACK`)
	short, cancel := context.WithTimeout(ctx, notWaiting)
	defer cancel()
	if n, err := db.SummarizeFileActivity(short, cutoff); err != nil || n != 0 {
		t.Errorf("a second summarize with nothing to fold: %d, %v (it must not wait for the write lock)", n, err)
	}
}

// An idle worker's ClaimJobs with nothing to claim only reads: it answers at
// once while another process holds the write lock.
func TestClaimJobsWhenIdleTakesNoWriteLock(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	lock, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer lock.ExecContext(ctx, `ROLLBACK`)
	short, cancel := context.WithTimeout(ctx, notWaiting)
	defer cancel()
	if jobs, err := db.ClaimJobs(short, []string{"relate"}, 5, time.Minute); err != nil || len(jobs) != 0 {
		t.Errorf("ClaimJobs on an empty queue under another writer: %v, %v", jobs, err)
	}
}

// Jobs waiting in the two queues of earlier versions are in the one queue
// after the upgrade, nothing dropped.
func TestJobsOfEarlierQueuesSurviveTheUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a := mustInsert(t, db, newMemory("queued before the upgrade", "global", memory.TypeDecision), nil)
	stmts := append(append(undoJournalKeywords(), undoJobsTable(true)...),
		`INSERT INTO curation_jobs (memory_id, kind, attempts, last_error, created_at) VALUES ('`+a.ID+`', 'relate', 7, 'Ollama is not running', '2025-01-01T00:00:00.000000000Z')`,
		`INSERT INTO summary_jobs (session_id, reason, attempts, created_at) VALUES ('s-old', 'stop', 3, '2025-01-02T00:00:00.000000000Z')`,
		`UPDATE meta SET value = '`+strconv.Itoa(versionOf("jobs.sql")-1)+`' WHERE key = 'schema_version'`)
	for _, q := range stmts {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	if db, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.ClaimJobs(ctx, []string{"relate", "summary"}, 10, time.Minute)
	if err != nil || len(got) != 2 || got[0].Subject != a.ID || got[0].Attempts != 8 || got[0].LastError != "Ollama is not running" ||
		got[1].Subject != "s-old" || got[1].Kind != "summary" {
		t.Fatalf("jobs after the upgrade: %+v, %v", got, err)
	}
}
