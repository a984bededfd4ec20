package storage

import (
	"context"
	"errors"
	"slices"
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
	if _, err := db.EnqueueJob(ctx, "mem_8_00000000", "relate"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("job for a missing memory: %v", err)
	}

	claimed, err := db.ClaimJobs(ctx, 2, time.Hour)
	if err != nil || len(claimed) != 2 || claimed[0].ID != j1 || claimed[1].ID != j2 || claimed[0].Attempts != 1 || claimed[0].Kind != "relate" {
		t.Fatalf("ClaimJobs = %+v, %v; want jobs %d and %d", claimed, err, j1, j2)
	}
	rest, _ := db.ClaimJobs(ctx, 10, time.Hour)
	if len(rest) != 1 || rest[0].ID != j3 {
		t.Errorf("second claim = %+v, want only %d (the others are leased)", rest, j3)
	}
	if err := db.FinishJob(ctx, j1, "", false); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishJob(ctx, j2, "model timed out", true); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishJob(ctx, j3, "bad reply", false); err != nil {
		t.Fatal(err)
	}
	again, _ := db.ClaimJobs(ctx, 10, time.Hour)
	if len(again) != 1 || again[0].ID != j2 || again[0].Attempts != 2 || again[0].LastError != "model timed out" {
		t.Errorf("after finishing = %+v, want only the retried %d", again, j2)
	}
	// A lease that ran out (its process died) can be claimed again.
	if _, err := db.SQL().Exec(`UPDATE curation_jobs SET leased_until = ?`, formatTime(time.Now().Add(-time.Second))); err != nil {
		t.Fatal(err)
	}
	if expired, _ := db.ClaimJobs(ctx, 10, time.Hour); len(expired) != 1 || expired[0].ID != j2 {
		t.Errorf("expired lease not reclaimed: %+v", expired)
	}
	if st, _ := db.Stats(ctx); st.PendingJobs != 1 {
		t.Errorf("PendingJobs = %d, want 1", st.PendingJobs)
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
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
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
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if jobs, err := db.ClaimJobs(short, 5, time.Minute); err != nil || len(jobs) != 0 {
		t.Errorf("ClaimJobs on an empty queue under another writer: %v, %v", jobs, err)
	}
}
