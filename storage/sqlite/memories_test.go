package sqlite

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func TestInsertAndGetRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := newMemory("Use tabs for indentation in Go files", "project:recall", memory.TypePreference)
	m.Importance = 0.8
	m.Metadata = map[string]any{"source": "review", "tags": []any{"go", "style"}}
	m.CreatedAt = time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.FixedZone("CET", 3600))

	stored, created, err := db.InsertMemory(ctx, m, nil)
	if err != nil || !created {
		t.Fatalf("InsertMemory = %v, %v", created, err)
	}
	got, err := db.GetMemory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, stored) {
		t.Errorf("GetMemory = %+v, InsertMemory returned %+v", got, stored)
	}
	if got.Content != m.Content || got.Type != memory.TypePreference || got.Namespace != "project:recall" ||
		got.Importance != 0.8 || got.Confidence != memory.DefaultConfidence || got.ContentHash != m.ContentHash {
		t.Errorf("fields changed in the round trip: %+v", got)
	}
	if !got.CreatedAt.Equal(m.CreatedAt) || got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v in UTC", got.CreatedAt, m.CreatedAt)
	}
	if !reflect.DeepEqual(got.Metadata, m.Metadata) {
		t.Errorf("Metadata = %#v, want %#v", got.Metadata, m.Metadata)
	}
	if !got.EmbeddingPending {
		t.Error("a memory stored without a vector must be pending")
	}
}

func TestNilMetadataIsEmptyObject(t *testing.T) {
	db := openTest(t)
	m := mustInsert(t, db, newMemory("no metadata here", "global", memory.TypeSession), nil)
	if m.Metadata == nil || len(m.Metadata) != 0 {
		t.Errorf("Metadata = %#v, want an empty map", m.Metadata)
	}
	var raw string
	if err := db.SQL().QueryRow(`SELECT metadata FROM memories WHERE id = ?`, m.ID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if raw != "{}" {
		t.Errorf("stored metadata = %q, want {}", raw)
	}
}

func TestDedupIsPerNamespace(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	first := mustInsert(t, db, newMemory("Run go vet before committing", "global", memory.TypePattern), nil)

	again := newMemory("Run go vet before committing", "global", memory.TypeDecision)
	got, created, err := db.InsertMemory(ctx, again, nil)
	if err != nil {
		t.Fatal(err)
	}
	if created || got.ID != first.ID || got.Type != memory.TypePattern {
		t.Errorf("same content in the same namespace: created=%v id=%s type=%s, want the existing %s", created, got.ID, got.Type, first.ID)
	}

	other := mustInsert(t, db, newMemory("Run go vet before committing", "project:x", memory.TypePattern), nil)
	if other.ID == first.ID {
		t.Error("the same content in another namespace must be a new memory")
	}
	if n, _ := db.CountMemories(ctx, memory.Filter{}); n != 2 {
		t.Errorf("CountMemories = %d, want 2", n)
	}
}

func TestDuplicateIDIsRefused(t *testing.T) {
	db := openTest(t)
	a := mustInsert(t, db, newMemory("first", "global", memory.TypeSession), nil)
	b := newMemory("second", "global", memory.TypeSession)
	b.ID = a.ID
	_, _, err := db.InsertMemory(context.Background(), b, nil)
	if !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("InsertMemory with a taken id: err = %v, want ErrInvalid", err)
	}
}

func TestGetUnknownIsNotFound(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	_, err := db.GetMemory(ctx, "mem_1_deadbeef")
	if !errors.Is(err, memory.ErrNotFound) || !contains(err.Error(), "mem_1_deadbeef") {
		t.Errorf("GetMemory(unknown) = %v, want ErrNotFound naming the id", err)
	}
	if err := db.DeleteMemory(ctx, "mem_1_deadbeef", false); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("DeleteMemory(unknown) = %v, want ErrNotFound", err)
	}
	_, err = db.UpdateMemory(ctx, "mem_1_deadbeef", func(*memory.Memory) error { return nil })
	if !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("UpdateMemory(unknown) = %v, want ErrNotFound", err)
	}
	if err := db.SetEmbedding(ctx, "mem_1_deadbeef", []float32{1, 0}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("SetEmbedding(unknown) = %v, want ErrNotFound", err)
	}
}

func TestGetMemories(t *testing.T) {
	db := openTest(t)
	a := mustInsert(t, db, newMemory("alpha", "global", memory.TypeSession), nil)
	b := mustInsert(t, db, newMemory("beta", "global", memory.TypeSession), nil)
	got, err := db.GetMemories(context.Background(), []string{a.ID, "mem_2_00000000", b.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[a.ID].Content != "alpha" || got[b.ID].Content != "beta" {
		t.Errorf("GetMemories = %v", got)
	}
}

func TestUpdateMemory(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("Prefer table-driven tests", "global", memory.TypePreference), nil)

	got, err := db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error {
		m.Confidence = 0.95
		m.Type = memory.TypeGoldenRule
		m.Metadata["promoted_from"] = "preference"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reread, _ := db.GetMemory(ctx, m.ID)
	for _, x := range []*memory.Memory{got, reread} {
		if x.Confidence != 0.95 || x.Type != memory.TypeGoldenRule || x.Metadata["promoted_from"] != "preference" {
			t.Errorf("after update: %+v", x)
		}
		if !x.UpdatedAt.After(m.UpdatedAt) {
			t.Errorf("UpdatedAt = %v, want after %v", x.UpdatedAt, m.UpdatedAt)
		}
	}

	boom := errors.New("boom")
	_, err = db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error {
		m.Confidence = 0
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("UpdateMemory passes fn's error back: got %v", err)
	}
	if reread, _ := db.GetMemory(ctx, m.ID); reread.Confidence != 0.95 {
		t.Errorf("a failed update must change nothing; confidence = %v", reread.Confidence)
	}
}

func TestUpdateMemoryConcurrentIncrementsAreNotLost(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("counter", "global", memory.TypeSession), nil)
	const workers, rounds = 8, 10
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for range rounds {
				if _, err := db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error {
					m.AccessCount++
					return nil
				}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, _ := db.GetMemory(ctx, m.ID)
	if got.AccessCount != workers*rounds {
		t.Errorf("AccessCount = %d, want %d", got.AccessCount, workers*rounds)
	}
}

func TestDeleteMemoryCascades(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	a := mustInsert(t, db, newMemory("cascade source", "global", memory.TypeDecision), []float32{1, 0, 0})
	b := mustInsert(t, db, newMemory("cascade target", "global", memory.TypeDecision), []float32{0, 1, 0})
	if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventApplied}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnqueueJob(ctx, a.ID, "relate"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteMemory(ctx, a.ID, false); err != nil {
		t.Fatal(err)
	}
	for table, query := range map[string]string{
		"edges":             `SELECT count(*) FROM edges`,
		"validation_events": `SELECT count(*) FROM validation_events`,
		"jobs":              `SELECT count(*) FROM jobs`,
		"memory_vectors":    `SELECT count(*) FROM memory_vectors`,
		"memories_fts":      `SELECT count(*) FROM memories_fts WHERE memories_fts MATCH '"cascade"'`,
	} {
		var n int
		if err := db.SQL().QueryRow(query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != map[string]int{"memory_vectors": 1, "memories_fts": 1}[table] {
			t.Errorf("%s holds %d rows after delete", table, n)
		}
	}
	if _, err := db.GetMemory(ctx, a.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("GetMemory after delete = %v", err)
	}
}

func TestListMemoriesOrderAndPages(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	var ids []string
	for i, imp := range []float64{0.5, 0.9, 0.5, 0.1, 0.5} {
		m := newMemory("note number "+string(rune('a'+i)), "global", memory.TypeSession)
		m.Importance = imp
		ids = append(ids, mustInsert(t, db, m, nil).ID)
	}
	list := func(q memory.ListQuery) []string {
		t.Helper()
		ms, err := db.ListMemories(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	if got := list(memory.ListQuery{OrderBy: memory.OrderCreatedAt, Descending: true}); !slices.Equal(got, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}) {
		t.Errorf("created_at desc = %v", got)
	}
	want := []string{ids[3], ids[0], ids[2], ids[4], ids[1]} // ties by insertion order
	if got := list(memory.ListQuery{OrderBy: memory.OrderImportance}); !slices.Equal(got, want) {
		t.Errorf("importance asc = %v, want %v", got, want)
	}
	var paged []string
	for off := 0; off < 5; off += 2 {
		paged = append(paged, list(memory.ListQuery{OrderBy: memory.OrderImportance, Limit: 2, Offset: off})...)
	}
	if !slices.Equal(paged, want) {
		t.Errorf("pages of 2 = %v, want %v", paged, want)
	}
	if _, err := db.ListMemories(ctx, memory.ListQuery{OrderBy: "content; DROP TABLE memories"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bad order_by: err = %v, want ErrInvalid", err)
	}
	if got := list(memory.ListQuery{Filter: memory.Filter{MinImportance: 0.5}}); len(got) != 4 {
		t.Errorf("min importance 0.5 lists %d, want 4", len(got))
	}
}

func TestFiltersAndSuperseded(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	old := mustInsert(t, db, newMemory("Deploy with make deploy", "project:a", memory.TypeDecision), nil)
	newer := mustInsert(t, db, newMemory("Deploy with the release script", "project:a", memory.TypeDecision), nil)
	mustInsert(t, db, newMemory("Use British spelling", "global", memory.TypePreference), nil)
	if _, err := db.InsertEdge(ctx, &memory.Edge{SourceID: newer.ID, TargetID: old.ID, Relation: memory.RelationSupersedes, Weight: 1}); err != nil {
		t.Fatal(err)
	}
	count := func(f memory.Filter) int {
		t.Helper()
		n, err := db.CountMemories(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(memory.Filter{}); n != 2 {
		t.Errorf("count without superseded = %d, want 2", n)
	}
	if n := count(memory.Filter{IncludeSuperseded: true}); n != 3 {
		t.Errorf("count with superseded = %d, want 3", n)
	}
	if n := count(memory.Filter{Namespaces: []string{"project:a"}, IncludeSuperseded: true}); n != 2 {
		t.Errorf("count in project:a = %d, want 2", n)
	}
	if n := count(memory.Filter{Types: []memory.Type{memory.TypePreference, memory.TypePattern}}); n != 1 {
		t.Errorf("count of preferences and patterns = %d, want 1", n)
	}
	if n := count(memory.Filter{IDs: []string{old.ID, newer.ID}, IncludeSuperseded: true}); n != 2 {
		t.Errorf("count by ids = %d, want 2", n)
	}
}

func TestTouchMemories(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("touch me", "global", memory.TypeSession), nil)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 2 {
		if err := db.TouchMemories(ctx, []string{m.ID, "mem_3_00000000"}, at); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := db.GetMemory(ctx, m.ID)
	if got.AccessCount != 2 || !got.AccessedAt.Equal(at) {
		t.Errorf("after two touches: count %d at %v", got.AccessCount, got.AccessedAt)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestUpdatedContentWaitsForANewVector(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	m := mustInsert(t, db, newMemory("the build uses bazel", "global", memory.TypeDecision), []float32{1, 0, 0, 0})
	if m.EmbeddingPending {
		t.Fatal("stored with a vector, yet pending")
	}
	// A change of importance leaves the vector as it is.
	got, err := db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error { m.Importance = 0.9; return nil })
	if err != nil || got.EmbeddingPending {
		t.Fatalf("after an importance change: pending %v, %v; want the vector kept", got.EmbeddingPending, err)
	}
	got, err = db.UpdateMemory(ctx, m.ID, func(m *memory.Memory) error { m.Content = "the build uses make"; return nil })
	if err != nil || !got.EmbeddingPending {
		t.Fatalf("after a content change: pending %v, %v; want pending", got.EmbeddingPending, err)
	}
	pending, err := db.PendingEmbeddings(ctx, 10)
	if err != nil || len(pending) != 1 || pending[0].ID != m.ID {
		t.Fatalf("PendingEmbeddings = %v, %v; want the edited memory", pending, err)
	}
	if err := db.SetEmbedding(ctx, m.ID, []float32{0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.GetMemory(ctx, m.ID); got.EmbeddingPending {
		t.Error("still pending after the new vector was stored")
	}
}
