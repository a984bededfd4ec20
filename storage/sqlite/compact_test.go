package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/memory"
)

// TestCompactMemoryIndexMergesItsSegments: memories stored one commit at a
// time leave the keyword index in several segments; merged, it has one and
// every search finds what it found before, in the same order.
func TestCompactMemoryIndexMergesItsSegments(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for i := range 30 {
		mustInsert(t, db, newMemory(fmt.Sprintf("The orders service caches item %d for %d minutes", i, i%7+1), "global", memory.TypeDecision), nil)
	}
	before, err := indexSegments(ctx, db.db, memoryIndex)
	if err != nil {
		t.Fatal(err)
	}
	if before < 2 {
		t.Fatalf("30 commits left %d segments; the test needs several", before)
	}
	queries := []string{"orders cache minutes", "item 17", "service"}
	found := map[string][]memory.Hit{}
	for _, q := range queries {
		if found[q], err = db.SearchKeyword(ctx, q, memory.Filter{}, 50); err != nil || len(found[q]) == 0 {
			t.Fatalf("search %q before the merge: %d hits, %v", q, len(found[q]), err)
		}
	}

	merged, err := db.CompactMemoryIndex(ctx)
	if err != nil || !merged {
		t.Fatalf("CompactMemoryIndex = %v, %v; want a merge", merged, err)
	}
	if n, err := indexSegments(ctx, db.db, memoryIndex); err != nil || n != 1 {
		t.Fatalf("%d segments after the merge (%v), want 1 (had %d)", n, err, before)
	}
	for _, q := range queries {
		got, err := db.SearchKeyword(ctx, q, memory.Filter{}, 50)
		if err != nil || !slices.Equal(hitIDs(got), hitIDs(found[q])) {
			t.Errorf("search %q after the merge found %v (%v), before %v", q, hitIDs(got), err, hitIDs(found[q]))
		}
	}
	if merged, err := db.CompactMemoryIndex(ctx); err != nil || merged {
		t.Errorf("a second CompactMemoryIndex = %v, %v; want nothing to do", merged, err)
	}
}

// TestImportLeavesOneKeywordSegment: an import is one large write, which FTS5
// writes as many segments; the import merges them.
func TestImportLeavesOneKeywordSegment(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	var rec memory.Records
	for i := range 3000 {
		rec.Memories = append(rec.Memories, newMemory(fmt.Sprintf("note %d about the orders service, its cache and %d other things", i, i%13), "global", memory.TypeDecision))
	}
	if _, err := db.Import(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if n, err := indexSegments(ctx, db.db, memoryIndex); err != nil || n != 1 {
		t.Fatalf("%d segments after the import (%v), want 1", n, err)
	}
	hits, err := db.SearchKeyword(ctx, "note 1234", memory.Filter{}, 5)
	if err != nil || len(hits) == 0 || hits[0].ID != rec.Memories[1234].ID {
		t.Fatalf("search after the import: %v, %v; want %s first", hits, err, rec.Memories[1234].ID)
	}
}

// TestMergeJournalIndexMergesTheHooksSmallSegments: every hook's record is a
// commit of its own, and each leaves a segment in the journal's keyword
// index; the merge folds the small ones together and the journal searches
// find what they found.
func TestMergeJournalIndexMergesTheHooksSmallSegments(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for i := range 40 {
		if _, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: fmt.Sprintf("s%d", i%3),
			Title: fmt.Sprintf("prompt %d: how many minutes are orders cached?", i), CreatedAt: testClock.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := indexSegments(ctx, db.db, journalIndex)
	if err != nil {
		t.Fatal(err)
	}
	if before < 5 {
		t.Fatalf("40 records left %d segments; the test needs many", before)
	}
	found, err := db.SearchEntries(ctx, "orders cached minutes", nil, 100)
	if err != nil || len(found) != 40 {
		t.Fatalf("search before the merge: %d hits, %v", len(found), err)
	}

	merged, err := db.MergeJournalIndex(ctx)
	if err != nil || !merged {
		t.Fatalf("MergeJournalIndex = %v, %v; want a merge", merged, err)
	}
	after, err := indexSegments(ctx, db.db, journalIndex)
	if err != nil || after > 3 {
		t.Fatalf("%d segments after the merge (%v), had %d; want at most 3", after, err, before)
	}
	got, err := db.SearchEntries(ctx, "orders cached minutes", nil, 100)
	if err != nil || len(got) != len(found) {
		t.Fatalf("search after the merge: %d hits (%v), before %d", len(got), err, len(found))
	}
	for i := range got {
		if got[i].Entry.ID != found[i].Entry.ID {
			t.Fatalf("hit %d after the merge is entry %d, before %d", i, got[i].Entry.ID, found[i].Entry.ID)
		}
	}
}

// TestHookRecordsKeepTheJournalIndexSmall: a hook working alone (no server to
// merge the journal's keyword index) folds the small segments of its
// records as it writes them.
func TestHookRecordsKeepTheJournalIndexSmall(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	seed, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	seed.Close()
	db, err := OpenWith(ctx, path, Options{ShortLived: true, SpoolWhenBusy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 40 {
		if _, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: "s1",
			Title: fmt.Sprintf("prompt %d: how many minutes are orders cached?", i), CreatedAt: testClock.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := indexSegments(ctx, db.db, journalIndex); err != nil || n > 4 {
		t.Errorf("40 hook records left %d segments in the journal's index (%v); want at most 4", n, err)
	}
	if hits, err := db.SearchEntries(ctx, "orders cached", nil, 100); err != nil || len(hits) != 40 {
		t.Errorf("the journal search finds %d of the 40 records (%v)", len(hits), err)
	}
}
