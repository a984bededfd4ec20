// Package storetest is the contract every store of Recall passes: the SQLite
// file and the PostgreSQL server alike. Run calls each case on a fresh, empty
// store made by the constructor it is given, so that the same data gives the
// same results on either engine.
package storetest

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/team"
)

// Store is what a store offers the rest of Recall: the memory and journal
// ports, and the trash the viewer restores from.
//
// It is large on purpose: the contract holds a store to everything it
// offers. No code of Recall takes it as a port; each user declares the few
// methods it needs.
type Store interface {
	memory.Store
	capture.Store
	jobs.Queue
	team.Directory
	Trash(ctx context.Context) ([]memory.TrashItem, error)
	RestoreMemory(ctx context.Context, id string) (*memory.ImportResult, error)
	// RecordToolCall writes a hook's journal entry and file touch together.
	RecordToolCall(ctx context.Context, e *journal.Entry, a *memory.FileActivity) error
	// Import and Export move every record in and out (recall import/export).
	Import(ctx context.Context, r memory.Records) (*memory.ImportResult, error)
	Export(ctx context.Context, v memory.RecordVisitor) error
}

// Open makes a fresh, empty store for one test and closes it when the test ends.
type Open func(t *testing.T) Store

// Run runs every case of the contract against stores made by open.
func Run(t *testing.T, open Open) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s Store)
	}{
		{"InsertDedupsByHashPerNamespace", testInsertDedup},
		{"InsertRefusesTakenID", testInsertTakenID},
		{"GetMissingIsNotFound", testGetMissing},
		{"UpdateMemory", testUpdateMemory},
		{"UpdateMemoryContentMakesItPending", testUpdateContentPending},
		{"UpdateMemoryRefusesDuplicateContent", testUpdateDuplicate},
		{"MoveToAnotherNamespace", testMoveNamespace},
		{"UpdateLoggedAndWithEvent", testUpdateLoggedAndEvent},
		{"DeleteProtectsGoldenAndCascades", testDeleteCascade},
		{"TrashAndRestore", testTrashRestore},
		{"ArchiveStaysUntilRestored", testArchive},
		{"ListFiltersOrdersAndPages", testList},
		{"TouchMemories", testTouch},
		{"KeywordStemming", testKeywordStemming},
		{"KeywordStopWordsMatchNothing", testKeywordStopWords},
		{"KeywordCodeWords", testKeywordCodeWords},
		{"KeywordDiacritics", testKeywordDiacritics},
		{"KeywordHostileInput", testKeywordHostile},
		{"KeywordFilters", testKeywordFilters},
		{"KeywordBestFirst", testKeywordBestFirst},
		{"MatchAllAndCoverage", testMatchAllCoverage},
		{"VectorSearchBestFirst", testVectorSearch},
		{"VectorSearchFilters", testVectorFilters},
		{"VectorSearchFilteredKeepsK", testVectorFilteredKeepsK},
		{"VectorDimensionMismatch", testVectorMismatch},
		{"EmbeddingsPendingAndSet", testEmbeddingsPending},
		{"EmbeddingSpaceClaimAndReset", testEmbeddingSpace},
		{"ChunkVectors", testChunks},
		{"Reindex", testReindex},
		{"EdgesUniquePerTriple", testEdgesUnique},
		{"EdgesQueriesAndDelete", testEdgesQueries},
		{"ResolveContradiction", testResolveContradiction},
		{"ResolveContradictionOnce", testResolveOnce},
		{"ResolveContradictionOfAHiddenMemory", testResolveHidden},
		{"SupersedesNeverBothWays", testSupersedesOneWay},
		{"LinkOnce", testLinkOnce},
		{"EventsAndLastEventTimes", testEvents},
		{"ChangeLog", testChangeLog},
		{"FileActivity", testFileActivity},
		{"FileActivitySummarized", testFileSummarize},
		{"Jobs", testJobs},
		{"ModelHealth", testModelHealth},
		{"Journal", testJournal},
		{"JournalSearch", testJournalSearch},
		{"JournalForget", testJournalForget},
		{"SummaryJobs", testSummaryJobs},
		{"ToolCallInOneTransaction", testToolCall},
		{"PrivateNamespacesPerPerson", testVisibility},
		{"FilterByAuthor", testFilterByAuthor},
		{"SourceKeptFilteredAndCounted", testSource},
		{"ImportTwiceAddsNothing", testImportTwice},
		{"ImportWritesOnlyWhatTheAskerMay", testImportAsAPerson},
		{"PeopleAndTheirTokens", testPeople},
		{"PrivateMemoryNeverHidesOrNamesForOthers", testVisibilityAround},
		{"JournalAndFileActivityPerPerson", testOwnWork},
		{"StatsPerPerson", testStatsPerPerson},
		{"Stats", testStats},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, open(t))
		})
	}
}

var ctx = context.Background()

// clock hands out distinct, increasing times, so ids and orders are stable.
var clock atomic.Int64

func tick() time.Time {
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return base.Add(time.Duration(clock.Add(1)) * time.Second)
}

// newMemory builds a memory the way the service would before storing it.
func newMemory(content, namespace string, typ memory.Type) *memory.Memory {
	at := tick()
	return &memory.Memory{
		ID:          memory.NewID(at),
		Content:     content,
		ContentHash: memory.ContentHash(content),
		Type:        typ,
		Namespace:   namespace,
		Importance:  memory.DefaultImportance,
		Confidence:  memory.DefaultConfidence,
		CreatedAt:   at,
		UpdatedAt:   at,
		AccessedAt:  at,
	}
}

func insert(t *testing.T, s Store, m *memory.Memory, vec []float32) *memory.Memory {
	t.Helper()
	got, created, err := s.InsertMemory(ctx, m, vec)
	if err != nil {
		t.Fatalf("InsertMemory(%q): %v", m.Content, err)
	}
	if !created {
		t.Fatalf("InsertMemory(%q): not created, got existing %s", m.Content, got.ID)
	}
	return got
}

// add stores content in global as a session memory.
func add(t *testing.T, s Store, content string) *memory.Memory {
	t.Helper()
	return insert(t, s, newMemory(content, memory.GlobalNamespace, memory.TypeSession), nil)
}

func ids(hits []memory.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// vec is a unit vector of dimension 4 pointing mostly along axis i, tilted
// towards the next axis by tilt (0 to 1).
func vec(i int, tilt float64) []float32 {
	v := make([]float32, 4)
	v[i%4] = float32(1 - tilt)
	v[(i+1)%4] = float32(tilt)
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for j := range v {
		v[j] = float32(float64(v[j]) / math.Sqrt(n))
	}
	return v
}

func testInsertDedup(t *testing.T, s Store) {
	first := add(t, s, "Run gofmt before every commit")
	again := newMemory("Run gofmt before every commit", memory.GlobalNamespace, memory.TypeSession)
	got, created, err := s.InsertMemory(ctx, again, nil)
	must(t, err)
	if created || got.ID != first.ID {
		t.Fatalf("same content in the same namespace: created=%v id=%s, want the existing %s", created, got.ID, first.ID)
	}
	other := insert(t, s, newMemory("Run gofmt before every commit", "project:recall", memory.TypeSession), nil)
	if other.ID == first.ID {
		t.Fatal("the same content in another namespace was deduplicated")
	}
	if n, _ := s.CountMemories(ctx, memory.Filter{}); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	// What comes back is what was stored, times to the microsecond at least.
	want := newMemory("Metadata round trip", memory.GlobalNamespace, memory.TypePattern)
	want.Metadata = map[string]any{"source": "test", "tags": []any{"a", "b"}, "n": float64(3)}
	want.Importance, want.Confidence, want.AccessCount = 0.8, 0.42, 7
	insert(t, s, want, nil)
	m, err := s.GetMemory(ctx, want.ID)
	must(t, err)
	if m.Content != want.Content || m.ContentHash != want.ContentHash || m.Type != want.Type ||
		m.Namespace != want.Namespace || m.Importance != 0.8 || m.Confidence != 0.42 || m.AccessCount != 7 ||
		!m.EmbeddingPending || m.Metadata["source"] != "test" || len(m.Metadata["tags"].([]any)) != 2 {
		t.Fatalf("stored %+v, read back %+v", want, m)
	}
	for _, p := range [][2]time.Time{{m.CreatedAt, want.CreatedAt}, {m.UpdatedAt, want.UpdatedAt}, {m.AccessedAt, want.AccessedAt}} {
		if p[0].Sub(p[1]).Abs() > time.Microsecond {
			t.Fatalf("time %v read back as %v", p[1], p[0])
		}
	}
}

func testInsertTakenID(t *testing.T, s Store) {
	first := add(t, s, "first text")
	m := newMemory("other text", memory.GlobalNamespace, memory.TypeSession)
	m.ID = first.ID
	if _, _, err := s.InsertMemory(ctx, m, nil); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("insert with a taken id: %v, want ErrInvalid", err)
	}
	if _, _, err := s.InsertMemory(ctx, &memory.Memory{Content: "x"}, nil); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("insert without id: %v, want ErrInvalid", err)
	}
}

func testGetMissing(t *testing.T, s Store) {
	a := add(t, s, "present")
	if _, err := s.GetMemory(ctx, "mem_1_deadbeef"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("GetMemory(missing) = %v, want ErrNotFound", err)
	}
	got, err := s.GetMemories(ctx, []string{a.ID, "mem_1_deadbeef"})
	must(t, err)
	if len(got) != 1 || got[a.ID] == nil {
		t.Fatalf("GetMemories = %v, want only %s", got, a.ID)
	}
}

func testUpdateMemory(t *testing.T, s Store) {
	a := add(t, s, "update me")
	got, err := s.UpdateMemory(ctx, a.ID, func(m *memory.Memory) error {
		m.Importance = 0.9
		m.Metadata["k"] = "v"
		return nil
	})
	must(t, err)
	if got.Importance != 0.9 || got.Metadata["k"] != "v" || !got.UpdatedAt.After(a.UpdatedAt) {
		t.Fatalf("updated = %+v", got)
	}
	read, _ := s.GetMemory(ctx, a.ID)
	if read.Importance != 0.9 {
		t.Fatalf("read back importance %v", read.Importance)
	}
	boom := errors.New("boom")
	if _, err := s.UpdateMemory(ctx, a.ID, func(m *memory.Memory) error { m.Importance = 0.1; return boom }); !errors.Is(err, boom) {
		t.Fatalf("fn's error: %v", err)
	}
	if read, _ := s.GetMemory(ctx, a.ID); read.Importance != 0.9 {
		t.Fatal("a failed update was written")
	}
	if _, err := s.UpdateMemory(ctx, "mem_1_deadbeef", func(*memory.Memory) error { return nil }); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
	if _, err := s.UpdateMemory(ctx, a.ID, func(m *memory.Memory) error { m.ID = "mem_2_beef"; return nil }); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("changing the id: %v", err)
	}
}

func testUpdateContentPending(t *testing.T, s Store) {
	a := insert(t, s, newMemory("old words", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	got, err := s.UpdateMemory(ctx, a.ID, func(m *memory.Memory) error { m.Content = "new phrasing entirely"; return nil })
	must(t, err)
	if !got.EmbeddingPending || got.ContentHash != memory.ContentHash("new phrasing entirely") {
		t.Fatalf("after a content change: pending=%v hash=%s", got.EmbeddingPending, got.ContentHash)
	}
	if hits, _ := s.SearchKeyword(ctx, "phrasing", memory.Filter{}, 5); len(hits) != 1 {
		t.Fatalf("new content not searchable: %v", hits)
	}
	if hits, _ := s.SearchKeyword(ctx, "old", memory.Filter{}, 5); len(hits) != 0 {
		t.Fatalf("old content still searchable: %v", hits)
	}
}

func testUpdateDuplicate(t *testing.T, s Store) {
	add(t, s, "one")
	b := add(t, s, "two")
	_, err := s.UpdateMemory(ctx, b.ID, func(m *memory.Memory) error { m.Content = "one"; return nil })
	if !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("update to a duplicate content: %v, want ErrInvalid", err)
	}
}

// testMoveNamespace moves a memory: every search and listing finds it in
// its new namespace only, and a move onto the same text already there is
// refused with the memory that holds it, changing nothing.
func testMoveNamespace(t *testing.T, s Store) {
	a := insert(t, s, newMemory("deploy with the blue pipeline", memory.GlobalNamespace, memory.TypeDecision), vec(0, 0))
	insert(t, s, newMemory("unrelated global note", memory.GlobalNamespace, memory.TypeSession), vec(1, 0))
	moved, err := s.UpdateMemoryLogged(ctx, a.ID, func(m *memory.Memory) (*memory.Change, error) {
		m.Namespace = "project:shop"
		return &memory.Change{Action: memory.ChangeEdit, Source: memory.SourceViewer,
			Fields: []memory.FieldChange{{Field: "namespace", Before: memory.GlobalNamespace, After: "project:shop"}}}, nil
	})
	must(t, err)
	if moved.Namespace != "project:shop" || moved.ContentHash != a.ContentHash || moved.EmbeddingPending {
		t.Fatalf("after the move: %+v", moved)
	}
	in := func(ns string) memory.Filter { return memory.Filter{Namespaces: []string{ns}} }
	for _, c := range []struct {
		ns   string
		want int
	}{{"project:shop", 1}, {memory.GlobalNamespace, 0}} {
		kw, err := s.SearchKeyword(ctx, "pipeline", in(c.ns), 5)
		must(t, err)
		vs, err := s.SearchVector(ctx, vec(0, 0), in(c.ns), 5)
		must(t, err)
		n, err := s.CountMemories(ctx, in(c.ns))
		must(t, err)
		if len(kw) != c.want || slices.Contains(ids(vs), a.ID) != (c.want == 1) {
			t.Errorf("in %s: keyword hits %v, vector hits %v; want the moved memory %d times", c.ns, kw, vs, c.want)
		}
		if c.ns == "project:shop" && n != 1 {
			t.Errorf("count in %s = %d, want 1", c.ns, n)
		}
	}
	cs, err := s.Changes(ctx, memory.ChangeQuery{MemoryID: a.ID})
	must(t, err)
	if len(cs) != 1 || cs[0].Namespace != "project:shop" || cs[0].Fields[0].Field != "namespace" {
		t.Fatalf("change log after the move: %+v", cs)
	}

	// The same text in two namespaces, one moved onto the other: refused.
	here := insert(t, s, newMemory("tabs, not spaces", memory.GlobalNamespace, memory.TypePreference), nil)
	there := insert(t, s, newMemory("tabs, not spaces", "project:shop", memory.TypePreference), nil)
	_, err = s.UpdateMemoryLogged(ctx, here.ID, func(m *memory.Memory) (*memory.Change, error) {
		m.Namespace = "project:shop"
		return &memory.Change{Action: memory.ChangeEdit, Source: memory.SourceViewer}, nil
	})
	var dup *memory.DuplicateError
	if !errors.As(err, &dup) || !errors.Is(err, memory.ErrInvalid) || dup.ExistingID != there.ID || dup.Namespace != "project:shop" {
		t.Fatalf("moving onto the same text: %v, want a DuplicateError naming %s", err, there.ID)
	}
	if m, _ := s.GetMemory(ctx, here.ID); m.Namespace != memory.GlobalNamespace {
		t.Fatalf("a refused move moved the memory to %s", m.Namespace)
	}
	if cs, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: here.ID}); len(cs) != 0 {
		t.Fatalf("a refused move was recorded: %+v", cs)
	}
	// An edit onto another memory's text names it too.
	_, err = s.UpdateMemory(ctx, moved.ID, func(m *memory.Memory) error { m.Content = "tabs, not spaces"; return nil })
	if !errors.As(err, &dup) || dup.ExistingID != there.ID {
		t.Fatalf("editing onto another memory's text: %v, want a DuplicateError naming %s", err, there.ID)
	}
}

func testUpdateLoggedAndEvent(t *testing.T, s Store) {
	a := insert(t, s, newMemory("prefer tabs", memory.GlobalNamespace, memory.TypePreference), nil)
	_, err := s.UpdateMemoryLogged(ctx, a.ID, func(m *memory.Memory) (*memory.Change, error) {
		m.Importance = 0.7
		return &memory.Change{Action: memory.ChangeEdit, Source: memory.SourceViewer,
			Fields: []memory.FieldChange{{Field: "importance", Before: 0.5, After: 0.7}}}, nil
	})
	must(t, err)
	m, ev, err := s.UpdateMemoryWithEvent(ctx, a.ID, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		before := m.Confidence
		m.Confidence = 0.95
		m.Type = memory.TypeGoldenRule
		return &memory.ValidationEvent{EventType: memory.EventSucceeded, ConfidenceBefore: before, ConfidenceAfter: 0.95, SessionID: "s1"},
			&memory.Change{Action: memory.ChangePromote, Source: memory.SourceCuration}, nil
	})
	must(t, err)
	if m.Type != memory.TypeGoldenRule || ev <= 0 {
		t.Fatalf("promoted %+v, event %d", m, ev)
	}
	evs, err := s.Events(ctx, a.ID, "", 0)
	must(t, err)
	if len(evs) != 1 || evs[0].ID != ev || evs[0].ConfidenceAfter != 0.95 || evs[0].SessionID != "s1" {
		t.Fatalf("events = %+v", evs)
	}
	cs, err := s.Changes(ctx, memory.ChangeQuery{MemoryID: a.ID})
	must(t, err)
	if len(cs) != 2 || cs[0].Action != memory.ChangePromote || cs[1].Action != memory.ChangeEdit ||
		cs[1].Namespace != a.Namespace || len(cs[1].Fields) != 1 || cs[1].Fields[0].Field != "importance" {
		t.Fatalf("change log = %+v, want promote then edit, newest first", cs)
	}
	// An update without an event is refused whole.
	if _, _, err := s.UpdateMemoryWithEvent(ctx, a.ID, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		m.Confidence = 0.1
		return nil, nil, nil
	}); err == nil {
		t.Fatal("an update without its event was accepted")
	}
	if m, _ := s.GetMemory(ctx, a.ID); m.Confidence != 0.95 {
		t.Fatalf("confidence moved without its event: %v", m.Confidence)
	}
}

func testDeleteCascade(t *testing.T, s Store) {
	g := insert(t, s, newMemory("never force push", memory.GlobalNamespace, memory.TypeGoldenRule), nil)
	b := add(t, s, "other")
	_, err := s.InsertEdge(ctx, &memory.Edge{SourceID: g.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1})
	must(t, err)
	_, err = s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: g.ID, EventType: memory.EventApplied, ConfidenceBefore: 0.3, ConfidenceAfter: 0.3})
	must(t, err)
	if err := s.DeleteMemory(ctx, g.ID, true); !errors.Is(err, memory.ErrProtected) {
		t.Fatalf("delete golden with keepGolden: %v, want ErrProtected", err)
	}
	must(t, s.DeleteMemory(ctx, g.ID, false))
	if _, err := s.GetMemory(ctx, g.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("deleted memory: %v", err)
	}
	edges, err := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{b.ID}})
	must(t, err)
	if len(edges) != 0 {
		t.Fatalf("edges of a deleted memory survived: %+v", edges)
	}
	if evs, _ := s.Events(ctx, g.ID, "", 0); len(evs) != 0 {
		t.Fatalf("events of a deleted memory survived: %+v", evs)
	}
	if err := s.DeleteMemory(ctx, g.ID, false); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("delete twice: %v, want ErrNotFound", err)
	}
}

func testTrashRestore(t *testing.T, s Store) {
	a := insert(t, s, newMemory("kept in the trash", memory.GlobalNamespace, memory.TypeDecision), vec(0, 0))
	b := add(t, s, "neighbour")
	_, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 0.5})
	must(t, err)
	_, err = s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventApplied, ConfidenceBefore: 0.3, ConfidenceAfter: 0.3})
	must(t, err)
	must(t, s.TrashMemory(ctx, a.ID, true))
	if _, err := s.GetMemory(ctx, a.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("trashed memory still readable: %v", err)
	}
	items, err := s.Trash(ctx)
	must(t, err)
	if len(items) != 1 || items[0].Memory.ID != a.ID || items[0].Archived || len(items[0].Edges) != 1 || len(items[0].Events) != 1 {
		t.Fatalf("trash = %+v", items)
	}
	res, err := s.RestoreMemory(ctx, a.ID)
	must(t, err)
	if res.Restored != a.ID {
		t.Fatalf("restored as %q", res.Restored)
	}
	m, err := s.GetMemory(ctx, a.ID)
	must(t, err)
	if m.Content != a.Content || !m.EmbeddingPending {
		t.Fatalf("restored %+v, want the same text, pending a vector", m)
	}
	if es, _ := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}}); len(es) != 1 {
		t.Fatalf("restored edges %+v", es)
	}
	if evs, _ := s.Events(ctx, a.ID, "", 0); len(evs) != 1 {
		t.Fatalf("restored events %+v", evs)
	}
	cs, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: a.ID})
	if len(cs) < 2 || cs[0].Action != memory.ChangeRestore || cs[1].Action != memory.ChangeDelete {
		t.Fatalf("change log after restore = %+v, want restore, delete", cs)
	}
	if items, _ := s.Trash(ctx); len(items) != 0 {
		t.Fatalf("trash after restore = %+v", items)
	}
	if _, err := s.RestoreMemory(ctx, a.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("restore twice: %v", err)
	}
	g := insert(t, s, newMemory("golden", memory.GlobalNamespace, memory.TypeGoldenRule), nil)
	if err := s.TrashMemory(ctx, g.ID, true); !errors.Is(err, memory.ErrProtected) {
		t.Fatalf("trash golden: %v", err)
	}
	if items, _ := s.Trash(ctx); len(items) != 0 {
		t.Fatalf("a refused delete left a trash row: %+v", items)
	}
}

func testArchive(t *testing.T, s Store) {
	a := add(t, s, "set aside")
	must(t, s.ArchiveMemory(ctx, a.ID, true))
	items, err := s.Trash(ctx)
	must(t, err)
	if len(items) != 1 || !items[0].Archived {
		t.Fatalf("trash = %+v, want one archived", items)
	}
	// The same text stored meanwhile: the restore joins that copy.
	again := add(t, s, "set aside")
	res, err := s.RestoreMemory(ctx, a.ID)
	must(t, err)
	if res.Restored != again.ID {
		t.Fatalf("restored as %q, want the copy %s", res.Restored, again.ID)
	}
}

func testList(t *testing.T, s Store) {
	var all []*memory.Memory
	for i, spec := range []struct {
		ns  string
		typ memory.Type
		imp float64
	}{
		{"global", memory.TypeSession, 0.2}, {"global", memory.TypeDecision, 0.9}, {"project:a", memory.TypeSession, 0.5},
		{"project:a", memory.TypePattern, 0.7}, {"project:b", memory.TypeSession, 0.6},
	} {
		m := newMemory("list item "+string(rune('a'+i)), spec.ns, spec.typ)
		m.Importance = spec.imp
		all = append(all, insert(t, s, m, nil))
	}
	_, err := s.InsertEdge(ctx, &memory.Edge{SourceID: all[4].ID, TargetID: all[2].ID, Relation: memory.RelationSupersedes, Weight: 1})
	must(t, err)
	count := func(f memory.Filter) int {
		n, err := s.CountMemories(ctx, f)
		must(t, err)
		return n
	}
	for _, c := range []struct {
		f    memory.Filter
		want int
	}{
		{memory.Filter{}, 4},
		{memory.Filter{IncludeSuperseded: true}, 5},
		{memory.Filter{Namespaces: []string{"project:a"}}, 1},
		{memory.Filter{Namespaces: []string{"project:a", "project:b"}, IncludeSuperseded: true}, 3},
		{memory.Filter{Types: []memory.Type{memory.TypeSession}}, 2},
		{memory.Filter{MinImportance: 0.6}, 3},
		{memory.Filter{IDs: []string{all[0].ID, all[1].ID}}, 2},
	} {
		if got := count(c.f); got != c.want {
			t.Errorf("count %+v = %d, want %d", c.f, got, c.want)
		}
	}
	lo, hi := 0.0, 0.35
	if got := count(memory.Filter{Bounds: memory.Bounds{MinConfidence: &lo, MaxConfidence: &hi}}); got != 4 {
		t.Errorf("confidence bounds: %d", got)
	}
	if got := count(memory.Filter{Bounds: memory.Bounds{CreatedAfter: all[1].CreatedAt, CreatedBefore: all[3].CreatedAt}}); got != 1 {
		t.Errorf("created bounds [1, 3) without the superseded 2: %d, want 1", got)
	}
	list := func(q memory.ListQuery) []string {
		ms, err := s.ListMemories(ctx, q)
		must(t, err)
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = m.ID
		}
		return out
	}
	byImp := list(memory.ListQuery{OrderBy: memory.OrderImportance, Descending: true})
	if !slices.Equal(byImp, []string{all[1].ID, all[3].ID, all[4].ID, all[0].ID}) {
		t.Errorf("by importance = %v", byImp)
	}
	page1 := list(memory.ListQuery{Limit: 2, Filter: memory.Filter{IncludeSuperseded: true}})
	page2 := list(memory.ListQuery{Limit: 2, Offset: 2, Filter: memory.Filter{IncludeSuperseded: true}})
	if !slices.Equal(append(page1, page2...), []string{all[0].ID, all[1].ID, all[2].ID, all[3].ID}) {
		t.Errorf("pages by creation = %v %v", page1, page2)
	}
	if _, err := s.ListMemories(ctx, memory.ListQuery{OrderBy: "content; DROP TABLE memories"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bad order: %v", err)
	}
}

func testTouch(t *testing.T, s Store) {
	a := add(t, s, "touched")
	at := tick()
	must(t, s.TouchMemories(ctx, []string{a.ID, "mem_1_deadbeef"}, at))
	must(t, s.TouchMemories(ctx, []string{a.ID}, at))
	m, _ := s.GetMemory(ctx, a.ID)
	if m.AccessCount != 2 || !m.AccessedAt.Equal(at) {
		t.Fatalf("after two touches: count %d at %v", m.AccessCount, m.AccessedAt)
	}
	must(t, s.TouchMemories(ctx, nil, at))
}

func keywordIDs(t *testing.T, s Store, text string, f memory.Filter) []string {
	t.Helper()
	hits, err := s.SearchKeyword(ctx, text, f, 10)
	if err != nil {
		t.Fatalf("SearchKeyword(%q): %v", text, err)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("SearchKeyword(%q): not best first: %+v", text, hits)
		}
	}
	return ids(hits)
}

func testKeywordStemming(t *testing.T, s Store) {
	a := add(t, s, "We cache the responses of the API")
	b := add(t, s, "The runner executes migrations")
	for q, want := range map[string]string{"caching": a.ID, "cached": a.ID, "response": a.ID, "migration": b.ID, "executed": b.ID} {
		if got := keywordIDs(t, s, q, memory.Filter{}); !slices.Equal(got, []string{want}) {
			t.Errorf("%q found %v, want %s", q, got, want)
		}
	}
}

func testKeywordStopWords(t *testing.T, s Store) {
	add(t, s, "the thing is that we should do it")
	for _, q := range []string{"the", "the of and", "please explain", "...", ""} {
		if got := keywordIDs(t, s, q, memory.Filter{}); len(got) != 0 {
			t.Errorf("%q found %v, want nothing", q, got)
		}
	}
}

func testKeywordCodeWords(t *testing.T, s Store) {
	camel := add(t, s, "UserService validates tokens")
	snake := add(t, s, "call user_service for the profile")
	kebab := add(t, s, "the user-service deployment")
	for _, q := range []string{"UserService", "user_service", "user-service"} {
		got := keywordIDs(t, s, q, memory.Filter{})
		slices.Sort(got)
		want := []string{camel.ID, snake.ID, kebab.ID}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q found %v, want all three spellings", q, got)
		}
	}
	code := add(t, s, "duplicate key error E11000 on insert")
	if got := keywordIDs(t, s, "E11000", memory.Filter{}); !slices.Equal(got, []string{code.ID}) {
		t.Errorf("error code found %v", got)
	}
	path := add(t, s, "edit internal/config/loader.go carefully")
	if got := keywordIDs(t, s, "config/loader.go", memory.Filter{}); !slices.Equal(got, []string{path.ID}) {
		t.Errorf("path found %v", got)
	}
}

func testKeywordDiacritics(t *testing.T, s Store) {
	a := add(t, s, "meet at the café near the station")
	if got := keywordIDs(t, s, "cafe", memory.Filter{}); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("cafe found %v", got)
	}
	if got := keywordIDs(t, s, "CAFÉ", memory.Filter{}); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("CAFÉ found %v", got)
	}
}

func testKeywordHostile(t *testing.T, s Store) {
	a := add(t, s, "claude-mem stores observations")
	for _, q := range []string{`claude-mem`, `"`, `AND`, `*`, `(`, `NEAR(a b)`, `a:b`, `'); DROP TABLE memories; --`,
		`!!`, `&|<->`, `\`, `claude-mem OR`, `^x`, `{x}`, `a' & 'b`, `x:*`} {
		if _, err := s.SearchKeyword(ctx, q, memory.Filter{}, 5); err != nil {
			t.Errorf("SearchKeyword(%q): %v", q, err)
		}
		if _, err := s.MatchAllKeywords(ctx, q, memory.Filter{}, 5); err != nil {
			t.Errorf("MatchAllKeywords(%q): %v", q, err)
		}
		if _, err := s.KeywordCoverage(ctx, q, []string{a.ID}); err != nil {
			t.Errorf("KeywordCoverage(%q): %v", q, err)
		}
		if _, err := s.SearchEntries(ctx, q, nil, 5); err != nil {
			t.Errorf("SearchEntries(%q): %v", q, err)
		}
	}
	if got := keywordIDs(t, s, "claude-mem", memory.Filter{}); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("claude-mem found %v", got)
	}
}

func testKeywordFilters(t *testing.T, s Store) {
	g := add(t, s, "deploy with the blue green strategy")
	p := insert(t, s, newMemory("deploy on fridays never", "project:x", memory.TypeDecision), nil)
	low := insert(t, s, newMemory("deploy notes of little weight", "project:x", memory.TypeSession), nil)
	if _, err := s.UpdateMemory(ctx, low.ID, func(m *memory.Memory) error { m.Importance = 0.1; return nil }); err != nil {
		t.Fatal(err)
	}
	newer := insert(t, s, newMemory("deploy by the pipeline only", memory.GlobalNamespace, memory.TypeSession), nil)
	_, err := s.InsertEdge(ctx, &memory.Edge{SourceID: newer.ID, TargetID: g.ID, Relation: memory.RelationSupersedes, Weight: 1})
	must(t, err)
	sorted := func(xs []string) []string { slices.Sort(xs); return xs }
	for _, c := range []struct {
		f    memory.Filter
		want []string
	}{
		{memory.Filter{}, []string{p.ID, low.ID, newer.ID}},
		{memory.Filter{IncludeSuperseded: true}, []string{g.ID, p.ID, low.ID, newer.ID}},
		{memory.Filter{Namespaces: []string{"project:x"}}, []string{p.ID, low.ID}},
		{memory.Filter{Types: []memory.Type{memory.TypeDecision}}, []string{p.ID}},
		{memory.Filter{MinImportance: 0.3}, []string{p.ID, newer.ID}},
	} {
		if got := keywordIDs(t, s, "deploy", c.f); !slices.Equal(sorted(got), sorted(c.want)) {
			t.Errorf("deploy with %+v found %v, want %v", c.f, got, c.want)
		}
	}
}

func testKeywordBestFirst(t *testing.T, s Store) {
	add(t, s, "postgres is mentioned once in a long sentence about many other unrelated subjects and topics")
	best := add(t, s, "postgres postgres replication")
	if got := keywordIDs(t, s, "postgres replication", memory.Filter{}); len(got) != 2 || got[0] != best.ID {
		t.Errorf("ranking = %v, want %s first", got, best.ID)
	}
	for i := 0; i < 12; i++ {
		add(t, s, "filler about postgres number "+string(rune('a'+i)))
	}
	if hits, _ := s.SearchKeyword(ctx, "postgres", memory.Filter{}, 5); len(hits) != 5 {
		t.Errorf("limit 5 gave %d", len(hits))
	}
}

func testMatchAllCoverage(t *testing.T, s Store) {
	both := add(t, s, "retry the flaky network test")
	one := add(t, s, "the network is down")
	hits, err := s.MatchAllKeywords(ctx, "network test", memory.Filter{}, 10)
	must(t, err)
	if !slices.Equal(ids(hits), []string{both.ID}) {
		t.Errorf("match all = %v", ids(hits))
	}
	cov, err := s.KeywordCoverage(ctx, "networks tests", []string{both.ID, one.ID, "mem_1_deadbeef"})
	must(t, err)
	if cov[both.ID] != 1 || cov[one.ID] != 0.5 || len(cov) != 2 {
		t.Errorf("coverage = %v", cov)
	}
	if cov, _ := s.KeywordCoverage(ctx, "the of", []string{both.ID}); len(cov) != 0 {
		t.Errorf("coverage of stop words = %v", cov)
	}
}

func testVectorSearch(t *testing.T, s Store) {
	var ms []*memory.Memory
	for i := 0; i < 4; i++ {
		ms = append(ms, insert(t, s, newMemory("vector "+string(rune('a'+i)), memory.GlobalNamespace, memory.TypeSession), vec(i, 0)))
	}
	near := insert(t, s, newMemory("vector near a", memory.GlobalNamespace, memory.TypeSession), vec(0, 0.2))
	hits, err := s.SearchVector(ctx, vec(0, 0.05), memory.Filter{}, 3)
	must(t, err)
	if len(hits) != 3 || hits[0].ID != ms[0].ID || hits[1].ID != near.ID {
		t.Fatalf("hits = %+v, want %s then %s", hits, ms[0].ID, near.ID)
	}
	if hits[0].Score < hits[1].Score || hits[1].Score < hits[2].Score || hits[0].Score > 1.0001 || hits[0].Score < 0.9 {
		t.Fatalf("scores not best first or not 1-distance: %+v", hits)
	}
	if v, err := s.Embedding(ctx, ms[1].ID); err != nil || len(v) != 4 || math.Abs(float64(v[1]-1)) > 1e-6 {
		t.Fatalf("Embedding = %v, %v", v, err)
	}
	if v, _ := s.Embedding(ctx, add(t, s, "no vector").ID); v != nil {
		t.Fatalf("Embedding of a pending memory = %v", v)
	}
}

func testVectorFilters(t *testing.T, s Store) {
	a := insert(t, s, newMemory("in global", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	b := insert(t, s, newMemory("in project", "project:p", memory.TypeDecision), vec(0, 0.1))
	c := insert(t, s, newMemory("superseding", "project:p", memory.TypeSession), vec(0, 0.3))
	_, err := s.InsertEdge(ctx, &memory.Edge{SourceID: c.ID, TargetID: a.ID, Relation: memory.RelationSupersedes, Weight: 1})
	must(t, err)
	for _, tc := range []struct {
		f    memory.Filter
		want []string
	}{
		{memory.Filter{}, []string{b.ID, c.ID}},
		{memory.Filter{IncludeSuperseded: true}, []string{a.ID, b.ID, c.ID}},
		{memory.Filter{Namespaces: []string{"project:p"}, Types: []memory.Type{memory.TypeSession}}, []string{c.ID}},
		{memory.Filter{IDs: []string{a.ID, c.ID}, IncludeSuperseded: true}, []string{a.ID, c.ID}},
	} {
		hits, err := s.SearchVector(ctx, vec(0, 0), tc.f, 10)
		must(t, err)
		if !slices.Equal(ids(hits), tc.want) {
			t.Errorf("filter %+v: %v, want %v", tc.f, ids(hits), tc.want)
		}
	}
}

// testVectorFilteredKeepsK checks that a selective filter still returns k
// hits when more than k memories pass it, however many nearer ones it drops.
func testVectorFilteredKeepsK(t *testing.T, s Store) {
	for i := 0; i < 300; i++ {
		insert(t, s, newMemory("crowd "+time.Duration(i).String(), memory.GlobalNamespace, memory.TypeSession), vec(0, float64(i%50)/1000))
	}
	var want []string
	for i := 0; i < 8; i++ {
		// Axis 3 tilted towards axis 0, the query's: the larger i, the nearer.
		m := insert(t, s, newMemory("rare "+time.Duration(i).String(), "project:rare", memory.TypeSession), vec(3, float64(i)/20))
		want = append([]string{m.ID}, want...)
	}
	hits, err := s.SearchVector(ctx, vec(0, 0), memory.Filter{Namespaces: []string{"project:rare"}}, 5)
	must(t, err)
	if !slices.Equal(ids(hits), want[:5]) {
		t.Fatalf("filtered search = %v, want the nearest five of the namespace %v", ids(hits), want[:5])
	}
}

func testVectorMismatch(t *testing.T, s Store) {
	insert(t, s, newMemory("four", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	if _, _, err := s.InsertMemory(ctx, newMemory("three", memory.GlobalNamespace, memory.TypeSession), []float32{1, 0, 0}); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Fatalf("insert of another dimension: %v", err)
	}
	if n, _ := s.CountMemories(ctx, memory.Filter{}); n != 1 {
		t.Fatalf("a refused vector left its memory: %d", n)
	}
	if _, err := s.SearchVector(ctx, []float32{1, 0}, memory.Filter{}, 3); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Fatalf("search of another dimension: %v", err)
	}
	if _, _, err := s.InsertMemory(ctx, newMemory("zeros", memory.GlobalNamespace, memory.TypeSession), []float32{0, 0, 0, 0}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("a zero vector: %v", err)
	}
	if _, _, err := s.InsertMemory(ctx, newMemory("nan", memory.GlobalNamespace, memory.TypeSession), []float32{float32(math.NaN()), 0, 0, 1}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("a NaN vector: %v", err)
	}
}

func testEmbeddingsPending(t *testing.T, s Store) {
	if hits, err := s.SearchVector(ctx, vec(0, 0), memory.Filter{}, 3); err != nil || len(hits) != 0 {
		t.Fatalf("search before any vector: %v, %v", hits, err)
	}
	a, b := add(t, s, "pending one"), add(t, s, "pending two")
	if n, _ := s.CountPendingEmbeddings(ctx); n != 2 {
		t.Fatalf("pending = %d", n)
	}
	p, err := s.PendingEmbeddings(ctx, 10)
	must(t, err)
	if len(p) != 2 || p[0].ID != a.ID || p[1].ID != b.ID {
		t.Fatalf("pending = %v, want oldest first", p)
	}
	must(t, s.SetEmbedding(ctx, a.ID, vec(2, 0)))
	if n, _ := s.CountPendingEmbeddings(ctx); n != 1 {
		t.Fatalf("pending after set = %d", n)
	}
	if m, _ := s.GetMemory(ctx, a.ID); m.EmbeddingPending {
		t.Fatal("still pending after SetEmbedding")
	}
	must(t, s.SetEmbedding(ctx, a.ID, vec(3, 0))) // replaces
	hits, _ := s.SearchVector(ctx, vec(3, 0), memory.Filter{}, 5)
	if len(hits) != 1 || hits[0].ID != a.ID || hits[0].Score < 0.99 {
		t.Fatalf("after replacing the vector: %+v", hits)
	}
	if err := s.SetEmbedding(ctx, "mem_1_deadbeef", vec(0, 0)); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("set on a missing memory: %v", err)
	}
	sp, _ := s.EmbeddingSpace(ctx)
	if sp.Dimension != 4 {
		t.Fatalf("space after the first vector = %+v", sp)
	}
}

func testEmbeddingSpace(t *testing.T, s Store) {
	if sp, _ := s.EmbeddingSpace(ctx); sp != (memory.EmbeddingSpace{}) {
		t.Fatalf("space of an empty store = %+v", sp)
	}
	got, err := s.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "m1", Dimension: 4})
	must(t, err)
	if got.Model != "m1" || got.Dimension != 4 {
		t.Fatalf("claim = %+v", got)
	}
	got, _ = s.ClaimEmbeddingSpace(ctx, memory.EmbeddingSpace{Model: "m2", Dimension: 8})
	if got.Model != "m1" {
		t.Fatalf("a second claim replaced the first: %+v", got)
	}
	a := insert(t, s, newMemory("with vector", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	must(t, s.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "m2", Dimension: 3}))
	if sp, _ := s.EmbeddingSpace(ctx); sp.Model != "m2" || sp.Dimension != 3 {
		t.Fatalf("after reset: %+v", sp)
	}
	if m, _ := s.GetMemory(ctx, a.ID); !m.EmbeddingPending {
		t.Fatal("not pending after a reset")
	}
	must(t, s.SetEmbedding(ctx, a.ID, []float32{0, 1, 0}))
	if hits, _ := s.SearchVector(ctx, []float32{0, 1, 0}, memory.Filter{}, 3); len(hits) != 1 {
		t.Fatalf("search in the new space: %v", hits)
	}
	if err := s.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "x", Dimension: 0}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("reset to dimension 0: %v", err)
	}
}

func testChunks(t *testing.T, s Store) {
	long := insert(t, s, newMemory("a long memory "+string(make([]byte, 0))+"with many words in it", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	insert(t, s, newMemory("short", memory.GlobalNamespace, memory.TypeSession), vec(1, 0))
	got, err := s.UnchunkedLongMemories(ctx, 10, 10, nil)
	must(t, err)
	if len(got) != 1 || got[0].ID != long.ID {
		t.Fatalf("unchunked = %v", got)
	}
	if got, _ := s.UnchunkedLongMemories(ctx, 10, 10, []string{long.ID}); len(got) != 0 {
		t.Fatalf("skip ignored: %v", got)
	}
	must(t, s.SetChunkEmbeddings(ctx, long.ID, [][]float32{vec(2, 0), vec(3, 0)}))
	if got, _ := s.UnchunkedLongMemories(ctx, 10, 10, nil); len(got) != 0 {
		t.Fatalf("still unchunked: %v", got)
	}
	hits, err := s.SearchChunks(ctx, vec(3, 0), memory.Filter{}, 5)
	must(t, err)
	if len(hits) != 1 || hits[0].ID != long.ID || hits[0].Score < 0.99 {
		t.Fatalf("chunk search = %+v", hits)
	}
	if err := s.SetChunkEmbeddings(ctx, long.ID, [][]float32{{1, 0}}); !errors.Is(err, memory.ErrEmbeddingMismatch) {
		t.Fatalf("chunk of another dimension: %v", err)
	}
	// Editing the content drops the parts' vectors.
	_, err = s.UpdateMemory(ctx, long.ID, func(m *memory.Memory) error { m.Content += " and more"; return nil })
	must(t, err)
	if hits, _ := s.SearchChunks(ctx, vec(3, 0), memory.Filter{}, 5); len(hits) != 0 {
		t.Fatalf("chunks survived an edit: %v", hits)
	}
}

func testReindex(t *testing.T, s Store) {
	a := insert(t, s, newMemory("reindex a", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	b := insert(t, s, newMemory("reindex b", memory.GlobalNamespace, memory.TypeSession), vec(1, 0))
	staged, err := s.BeginReindex(ctx, memory.EmbeddingSpace{Model: "new", Dimension: 2})
	must(t, err)
	if staged != 0 {
		t.Fatalf("staged = %d", staged)
	}
	p, _ := s.ReindexPending(ctx, 10, nil)
	if len(p) != 2 {
		t.Fatalf("reindex pending = %v", p)
	}
	must(t, s.StageVectors(ctx, map[string][]float32{a.ID: {1, 0}}))
	if p, _ := s.ReindexPending(ctx, 10, []string{b.ID}); len(p) != 0 {
		t.Fatalf("pending with skip = %v", p)
	}
	// The old vectors stay searchable meanwhile.
	if hits, _ := s.SearchVector(ctx, vec(1, 0), memory.Filter{}, 1); len(hits) != 1 || hits[0].ID != b.ID {
		t.Fatalf("old space during a reindex: %v", hits)
	}
	if staged, _ := s.BeginReindex(ctx, memory.EmbeddingSpace{Model: "new", Dimension: 2}); staged != 1 {
		t.Fatalf("resumed reindex staged = %d", staged)
	}
	n, err := s.FinishReindex(ctx)
	must(t, err)
	if n != 1 {
		t.Fatalf("moved %d", n)
	}
	if sp, _ := s.EmbeddingSpace(ctx); sp.Model != "new" || sp.Dimension != 2 {
		t.Fatalf("space = %+v", sp)
	}
	if pending, _ := s.PendingEmbeddings(ctx, 10); len(pending) != 1 || pending[0].ID != b.ID {
		t.Fatalf("pending after reindex = %v", pending)
	}
	if hits, _ := s.SearchVector(ctx, []float32{1, 0}, memory.Filter{}, 5); len(hits) != 1 || hits[0].ID != a.ID {
		t.Fatalf("search after reindex = %v", hits)
	}
}

func testEdgesUnique(t *testing.T, s Store) {
	a, b := add(t, s, "edge a"), add(t, s, "edge b")
	id1, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 0.4})
	must(t, err)
	id2, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 0.9})
	must(t, err)
	if id1 != id2 {
		t.Fatalf("same triple got ids %d and %d", id1, id2)
	}
	es, _ := s.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{id1}})
	if len(es) != 1 || es[0].Weight != 0.9 {
		t.Fatalf("edge after second insert = %+v", es)
	}
	id3, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationSupersedes, Weight: 1})
	must(t, err)
	if id3 == id1 {
		t.Fatal("another relation shares the edge")
	}
	if _, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: "mem_1_deadbeef", Relation: memory.RelationRelatesTo, Weight: 1}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("edge to a missing memory: %v", err)
	}
	if _, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: "likes", Weight: 1}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("unknown relation: %v", err)
	}
}

func testResolveContradiction(t *testing.T, s Store) {
	a, b := add(t, s, "resolve a"), add(t, s, "resolve b")
	c, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationContradicts, Weight: 0.8})
	must(t, err)
	logOf := func(id string, action memory.ChangeAction) memory.Change {
		return memory.Change{MemoryID: id, Namespace: memory.GlobalNamespace, At: time.Now(), Action: action, Source: memory.SourceViewer, RelatedID: a.ID}
	}
	// Both hold: relates_to added, the contradiction removed, both logs written.
	must(t, s.ResolveContradiction(ctx, memory.Resolution{EdgeID: c, Remove: true,
		Add:     &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1},
		Changes: []memory.Change{logOf(a.ID, memory.ChangeBothHold), logOf(b.ID, memory.ChangeBothHold)}}))
	es, err := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}})
	must(t, err)
	if len(es) != 1 || es[0].Relation != memory.RelationRelatesTo || es[0].ID == c {
		t.Fatalf("edges after both_hold: %+v (the new edge must not take the old id %d)", es, c)
	}
	for _, id := range []string{a.ID, b.ID} {
		if log, err := s.Changes(ctx, memory.ChangeQuery{MemoryID: id}); err != nil || len(log) != 1 || log[0].Action != memory.ChangeBothHold {
			t.Fatalf("change log of %s: %+v, %v", id, log, err)
		}
	}
	// Gone: not found. Not a contradiction: invalid.
	if err := s.ResolveContradiction(ctx, memory.Resolution{EdgeID: c, Remove: true, Changes: []memory.Change{logOf(a.ID, memory.ChangeNotContradiction)}}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("resolving a removed edge: %v, want ErrNotFound", err)
	}
	if err := s.ResolveContradiction(ctx, memory.Resolution{EdgeID: es[0].ID, Remove: true}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("resolving a relates_to edge: %v, want ErrInvalid", err)
	}
	// A resolution that fails halfway writes nothing.
	c2, err := s.InsertEdge(ctx, &memory.Edge{SourceID: b.ID, TargetID: a.ID, Relation: memory.RelationContradicts, Weight: 0.8})
	must(t, err)
	err = s.ResolveContradiction(ctx, memory.Resolution{EdgeID: c2, Remove: true,
		Add:     &memory.Edge{SourceID: b.ID, TargetID: "mem_1_deadbeef", Relation: memory.RelationSupersedes, Weight: 1},
		Changes: []memory.Change{logOf(b.ID, memory.ChangeSupersede)}})
	if !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("a resolution adding an edge to a missing memory: %v, want ErrNotFound", err)
	}
	if es, _ := s.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{c2}}); len(es) != 1 {
		t.Fatalf("a failed resolution removed the contradiction")
	}
	if log, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: b.ID}); len(log) != 1 {
		t.Fatalf("a failed resolution wrote its log: %+v", log)
	}
}

// testResolveOnce: a contradiction one verdict resolved (a supersedes edge
// now links the pair) refuses a second verdict, whichever it is.
func testResolveOnce(t *testing.T, s Store) {
	a, b := add(t, s, "once a"), add(t, s, "once b")
	c, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationContradicts, Weight: 0.8})
	must(t, err)
	supersede := func(newer, older string) memory.Resolution {
		return memory.Resolution{EdgeID: c, Add: &memory.Edge{SourceID: newer, TargetID: older, Relation: memory.RelationSupersedes, Weight: 1},
			Changes: []memory.Change{{MemoryID: newer, Namespace: memory.GlobalNamespace, At: time.Now(), Action: memory.ChangeSupersede, Source: memory.SourceViewer, RelatedID: older}}}
	}
	must(t, s.ResolveContradiction(ctx, supersede(a.ID, b.ID)))
	for _, r := range []memory.Resolution{
		supersede(b.ID, a.ID),
		supersede(a.ID, b.ID),
		{EdgeID: c, Remove: true, Add: &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1}},
		{EdgeID: c, Remove: true},
	} {
		if err := s.ResolveContradiction(ctx, r); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "already resolved") {
			t.Fatalf("a second verdict %+v: %v, want ErrInvalid saying it was already resolved", r.Add, err)
		}
	}
	es, err := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}})
	must(t, err)
	if len(es) != 2 || es[0].Relation != memory.RelationContradicts || es[1].Relation != memory.RelationSupersedes || es[1].SourceID != a.ID {
		t.Fatalf("edges after one verdict and four refused: %+v", es)
	}
	if log, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: b.ID}); len(log) != 0 {
		t.Fatalf("a refused verdict wrote its log: %+v", log)
	}
}

// testSupersedesOneWay: a supersedes edge against one the other way round is
// refused by the store itself (both memories would leave recall).
func testSupersedesOneWay(t *testing.T, s Store) {
	a, b := add(t, s, "one way a"), add(t, s, "one way b")
	_, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationSupersedes, Weight: 1})
	must(t, err)
	if _, err := s.InsertEdge(ctx, &memory.Edge{SourceID: b.ID, TargetID: a.ID, Relation: memory.RelationSupersedes, Weight: 1}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("supersedes both ways: %v, want ErrInvalid", err)
	}
	if _, err := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationSupersedes, Weight: 0.5}); err != nil {
		t.Fatalf("the same supersedes again (a new weight): %v", err)
	}
}

// testLinkOnce: one edge of a relation per pair, whichever way it is asked;
// a pair a person ruled out gets no contradiction.
func testLinkOnce(t *testing.T, s Store) {
	a, b, c := add(t, s, "link a"), add(t, s, "link b"), add(t, s, "link c")
	link := func(src, dst string, rel memory.Relation) (int64, bool) {
		t.Helper()
		id, created, err := s.LinkOnce(ctx, &memory.Edge{SourceID: src, TargetID: dst, Relation: rel, Weight: 0.8})
		must(t, err)
		return id, created
	}
	id, created := link(a.ID, b.ID, memory.RelationContradicts)
	if id == 0 || !created {
		t.Fatalf("first link: id %d created %v", id, created)
	}
	if again, created := link(b.ID, a.ID, memory.RelationContradicts); again != id || created {
		t.Fatalf("the pair the other way round: id %d created %v, want %d false", again, created, id)
	}
	if other, created := link(b.ID, a.ID, memory.RelationSupersedes); other == id || !created {
		t.Fatalf("another relation on the pair: id %d created %v", other, created)
	}
	if back, created := link(a.ID, b.ID, memory.RelationSupersedes); created || back == 0 {
		t.Fatalf("supersedes against the existing one: id %d created %v, want the existing edge", back, created)
	}
	must(t, s.AddChanges(ctx, memory.Change{MemoryID: a.ID, Namespace: memory.GlobalNamespace, At: time.Now(),
		Action: memory.ChangeNotContradiction, Source: memory.SourceViewer, RelatedID: c.ID}))
	if id, created := link(a.ID, c.ID, memory.RelationContradicts); id != 0 || created {
		t.Fatalf("a pair ruled out: id %d created %v, want none", id, created)
	}
	if _, _, err := s.LinkOnce(ctx, &memory.Edge{SourceID: a.ID, TargetID: "mem_1_deadbeef", Relation: memory.RelationRelatesTo, Weight: 1}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("a link to a missing memory: %v", err)
	}
	es, err := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}})
	must(t, err)
	if len(es) != 2 {
		t.Fatalf("edges of a: %+v, want one contradicts and one supersedes", es)
	}
}

func testEdgesQueries(t *testing.T, s Store) {
	a, b, c := add(t, s, "node a"), add(t, s, "node b"), add(t, s, "node c")
	ab, _ := s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1, Metadata: map[string]any{"why": "test"}})
	ca, _ := s.InsertEdge(ctx, &memory.Edge{SourceID: c.ID, TargetID: a.ID, Relation: memory.RelationContradicts, Weight: 1})
	bc, _ := s.InsertEdge(ctx, &memory.Edge{SourceID: b.ID, TargetID: c.ID, Relation: memory.RelationRelatesTo, Weight: 1})
	edgeIDs := func(q memory.EdgeQuery) []int64 {
		es, err := s.Edges(ctx, q)
		must(t, err)
		out := make([]int64, len(es))
		for i, e := range es {
			out[i] = e.ID
		}
		return out
	}
	for _, tc := range []struct {
		q    memory.EdgeQuery
		want []int64
	}{
		{memory.EdgeQuery{MemoryIDs: []string{a.ID}}, []int64{ab, ca}},
		{memory.EdgeQuery{MemoryIDs: []string{a.ID}, Direction: memory.DirectionOutgoing}, []int64{ab}},
		{memory.EdgeQuery{MemoryIDs: []string{a.ID}, Direction: memory.DirectionIncoming}, []int64{ca}},
		{memory.EdgeQuery{MemoryIDs: []string{a.ID, b.ID}, Relations: []memory.Relation{memory.RelationRelatesTo}}, []int64{ab, bc}},
		{memory.EdgeQuery{SourceID: a.ID, TargetID: c.ID}, []int64{ca}},
		{memory.EdgeQuery{SourceID: a.ID, TargetID: c.ID, Direction: memory.DirectionOutgoing}, nil},
	} {
		if got := edgeIDs(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("edges %+v = %v, want %v", tc.q, got, tc.want)
		}
	}
	es, _ := s.Edges(ctx, memory.EdgeQuery{EdgeIDs: []int64{ab}})
	if len(es) != 1 || es[0].Metadata["why"] != "test" || es[0].SourceID != a.ID || es[0].CreatedAt.IsZero() {
		t.Errorf("edge = %+v", es)
	}
	if _, err := s.Edges(ctx, memory.EdgeQuery{}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("empty edge query: %v", err)
	}
	del, err := s.DeleteEdges(ctx, memory.EdgeQuery{MemoryIDs: []string{b.ID}})
	must(t, err)
	if !slices.Equal(del, []int64{ab, bc}) {
		t.Errorf("deleted %v", del)
	}
	if got := edgeIDs(memory.EdgeQuery{MemoryIDs: []string{a.ID, b.ID, c.ID}}); !slices.Equal(got, []int64{ca}) {
		t.Errorf("left %v", got)
	}
}

func testEvents(t *testing.T, s Store) {
	a, b := add(t, s, "validated"), add(t, s, "other")
	t1, t2 := tick(), tick()
	e1, err := s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventApplied, Context: "ctx", ConfidenceBefore: 0.3, ConfidenceAfter: 0.3, CreatedAt: t1})
	must(t, err)
	e2, err := s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventFailed, ErrorMsg: "boom", ConfidenceBefore: 0.3, ConfidenceAfter: 0.15, CreatedAt: t2})
	must(t, err)
	evs, _ := s.Events(ctx, a.ID, "", 0)
	if len(evs) != 2 || evs[0].ID != e2 || evs[1].ID != e1 || evs[0].ErrorMsg != "boom" || evs[1].Context != "ctx" {
		t.Fatalf("events = %+v, want newest first", evs)
	}
	if evs, _ := s.Events(ctx, a.ID, memory.EventApplied, 0); len(evs) != 1 || evs[0].ID != e1 {
		t.Fatalf("applied events = %+v", evs)
	}
	if evs, _ := s.Events(ctx, a.ID, "", 1); len(evs) != 1 || evs[0].ID != e2 {
		t.Fatalf("limit 1 = %+v", evs)
	}
	if _, err := s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: "mem_1_deadbeef", EventType: memory.EventApplied}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("event of a missing memory: %v", err)
	}
	if _, err := s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: "guessed"}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("unknown event type: %v", err)
	}
	last, err := s.LastEventTimes(ctx, []string{a.ID, b.ID})
	must(t, err)
	if len(last) != 1 || !last[a.ID].Equal(t2) {
		t.Fatalf("last event times = %v, want %v for a only", last, t2)
	}
}

func testChangeLog(t *testing.T, s Store) {
	a := add(t, s, "contradiction a")
	b := insert(t, s, newMemory("contradiction b", "project:p", memory.TypeSession), nil)
	at := tick()
	must(t, s.AddChanges(ctx,
		memory.Change{MemoryID: a.ID, Namespace: a.Namespace, At: at, Action: memory.ChangeNotContradiction, Source: memory.SourceViewer, RelatedID: b.ID, Reason: "both hold"},
		memory.Change{MemoryID: b.ID, Namespace: b.Namespace, At: at, Action: memory.ChangeNotContradiction, Source: memory.SourceViewer, RelatedID: a.ID},
	))
	for _, pair := range [][2]string{{a.ID, b.ID}, {b.ID, a.ID}} {
		if ok, err := s.NotContradiction(ctx, pair[0], pair[1]); err != nil || !ok {
			t.Errorf("NotContradiction(%s, %s) = %v, %v", pair[0], pair[1], ok, err)
		}
	}
	c := add(t, s, "unrelated")
	if ok, _ := s.NotContradiction(ctx, a.ID, c.ID); ok {
		t.Error("NotContradiction of an unjudged pair")
	}
	_, err := s.UpdateMemoryLogged(ctx, b.ID, func(m *memory.Memory) (*memory.Change, error) {
		m.Type = memory.TypeGoldenRule
		return &memory.Change{Action: memory.ChangePromote, Source: memory.SourceCuration}, nil
	})
	must(t, err)
	cs, err := s.Changes(ctx, memory.ChangeQuery{Namespaces: []string{"project:p"}, Actions: []memory.ChangeAction{memory.ChangePromote, memory.ChangeDemote}})
	must(t, err)
	if len(cs) != 1 || cs[0].MemoryID != b.ID || cs[0].Action != memory.ChangePromote {
		t.Errorf("golden audit = %+v", cs)
	}
	if cs, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: a.ID}); len(cs) != 1 || cs[0].Reason != "both hold" || !cs[0].At.Equal(at) || cs[0].RelatedID != b.ID {
		t.Errorf("changes of a = %+v", cs)
	}
	if cs, _ := s.Changes(ctx, memory.ChangeQuery{Limit: 2}); len(cs) != 2 || cs[0].MemoryID != b.ID {
		t.Errorf("newest two = %+v", cs)
	}
	if cs, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: c.ID}); cs == nil || len(cs) != 0 {
		t.Errorf("changes of an unchanged memory = %#v, want empty", cs)
	}
}

func testFileActivity(t *testing.T, s Store) {
	base := time.Now().Add(-time.Hour).UTC()
	touch := func(path string, action memory.FileAction, root string, after time.Duration) {
		t.Helper()
		_, err := s.AddFileActivity(ctx, &memory.FileActivity{FilePath: path, Action: action, ProjectRoot: root,
			FileType: "go", SessionID: "s", CreatedAt: base.Add(after)})
		must(t, err)
	}
	touch("/r/a.go", memory.ActionRead, "/r", 0)
	touch("/r/a.go", memory.ActionEdit, "/r", time.Minute)
	touch("/r/b.go", memory.ActionRead, "/r", 2*time.Minute)
	touch("/o/c.go", memory.ActionWrite, "/o", 3*time.Minute)
	files, err := s.RecentFiles(ctx, "/r", time.Time{}, 10)
	must(t, err)
	if len(files) != 2 || files[0].FilePath != "/r/b.go" || files[1].FilePath != "/r/a.go" ||
		files[1].AccessCount != 2 || files[1].LastAction != memory.ActionEdit || files[1].Actions["read"] != 1 || files[1].Actions["edit"] != 1 {
		t.Fatalf("recent files = %+v", files)
	}
	if files, _ := s.RecentFiles(ctx, "", base.Add(150*time.Second), 10); len(files) != 1 || files[0].FilePath != "/o/c.go" {
		t.Fatalf("since = %+v", files)
	}
	if files, _ := s.RecentFiles(ctx, "", time.Time{}, 1); len(files) != 1 {
		t.Fatalf("limit 1 = %+v", files)
	}
	if _, err := s.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/x", Action: "delete"}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("bad action: %v", err)
	}
	if _, err := s.AddFileActivity(ctx, &memory.FileActivity{Action: memory.ActionRead}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("no path: %v", err)
	}
}

func testFileSummarize(t *testing.T, s Store) {
	old := time.Now().Add(-60 * 24 * time.Hour).UTC()
	for i := 0; i < 3; i++ {
		_, err := s.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/r/a.go", Action: memory.ActionRead, ProjectRoot: "/r", CreatedAt: old.Add(time.Duration(i) * time.Minute)})
		must(t, err)
	}
	_, err := s.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/r/a.go", Action: memory.ActionEdit, ProjectRoot: "/r", CreatedAt: time.Now().UTC()})
	must(t, err)
	n, err := s.SummarizeFileActivity(ctx, time.Now().Add(-30*24*time.Hour))
	must(t, err)
	if n != 3 {
		t.Fatalf("removed %d rows, want 3", n)
	}
	if n, _ := s.SummarizeFileActivity(ctx, time.Now().Add(-30*24*time.Hour)); n != 0 {
		t.Fatalf("a second fold removed %d", n)
	}
	files, _ := s.RecentFiles(ctx, "/r", time.Time{}, 10)
	if len(files) != 1 || files[0].AccessCount != 4 || files[0].Actions["read"] != 3 {
		t.Fatalf("after folding = %+v", files)
	}
	st, _ := s.Stats(ctx)
	if st.FileActivity != 2 {
		t.Fatalf("rows after folding = %d, want 2", st.FileActivity)
	}
}

func testJobs(t *testing.T, s Store) {
	kinds := []string{"curate", "supersede"}
	a, b := add(t, s, "job a"), add(t, s, "job b")
	j1, err := s.EnqueueJob(ctx, a.ID, "curate")
	must(t, err)
	if again, _ := s.EnqueueJob(ctx, a.ID, "curate"); again != j1 {
		t.Fatalf("same job twice: %d and %d", j1, again)
	}
	j2, _ := s.EnqueueJob(ctx, b.ID, "curate")
	if _, err := s.EnqueueJob(ctx, "", "curate"); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("job about nothing: %v", err)
	}
	if got, _ := s.ClaimJobs(ctx, []string{"summary"}, 5, time.Minute); len(got) != 0 {
		t.Fatalf("claimed jobs of a kind not asked for: %+v", got)
	}
	if _, err := s.EnqueueJob(ctx, a.ID, " "); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("job without kind: %v", err)
	}
	got, err := s.ClaimJobs(ctx, kinds, 1, time.Minute)
	must(t, err)
	if len(got) != 1 || got[0].ID != j1 || got[0].Attempts != 1 || got[0].Subject != a.ID || got[0].Kind != "curate" {
		t.Fatalf("first claim = %+v", got)
	}
	got, _ = s.ClaimJobs(ctx, kinds, 5, time.Minute)
	if len(got) != 1 || got[0].ID != j2 {
		t.Fatalf("second claim = %+v, want only the unleased job", got)
	}
	if got, _ := s.ClaimJobs(ctx, kinds, 5, time.Minute); len(got) != 0 {
		t.Fatalf("leased jobs claimed again: %+v", got)
	}
	must(t, s.RetryJob(ctx, j1, "model down", time.Now().Add(time.Hour)))
	if got, _ := s.ClaimJobs(ctx, kinds, 5, time.Minute); len(got) != 0 {
		t.Fatalf("a job due later was claimed: %+v", got)
	}
	must(t, s.RetryJob(ctx, j1, "model down", time.Now().Add(-time.Second)))
	got, _ = s.ClaimJobs(ctx, kinds, 5, time.Minute)
	if len(got) != 1 || got[0].ID != j1 || got[0].Attempts != 2 || got[0].LastError != "model down" {
		t.Fatalf("retried claim = %+v", got)
	}
	st, _ := s.Stats(ctx)
	if st.PendingJobs != 2 || st.RetryingJobs != 1 || st.LastJobError != "model down" || st.OldestJobAt.IsZero() {
		t.Fatalf("job stats = %+v", st)
	}
	must(t, s.FinishJob(ctx, j1))
	must(t, s.FinishJob(ctx, j1))
	// Short leases run out: a dead worker's job is claimed again.
	must(t, s.DeleteMemory(ctx, a.ID, false))
	j3, _ := s.EnqueueJob(ctx, b.ID, "supersede")
	if got, _ := s.ClaimJobs(ctx, kinds, 5, time.Millisecond); len(got) != 1 || got[0].ID != j3 {
		t.Fatalf("claim = %+v", got)
	}
	time.Sleep(5 * time.Millisecond)
	if got, _ := s.ClaimJobs(ctx, kinds, 5, time.Minute); len(got) != 1 || got[0].ID != j3 || got[0].Attempts != 2 {
		t.Fatalf("claim after the lease ran out = %+v", got)
	}
	if st, _ := s.Stats(ctx); st.PendingJobs != 2 {
		t.Fatalf("pending jobs = %d (the deleted memory's job must go with it)", st.PendingJobs)
	}
	// A job that can never succeed is kept on record, never claimed again,
	// and leaves room for new work about the same subject.
	if err := s.FailJob(ctx, j3, ""); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("a failure without a cause: %v", err)
	}
	must(t, s.FailJob(ctx, j3, "reply does not parse"))
	if got, _ := s.ClaimJobs(ctx, kinds, 5, time.Minute); len(got) != 0 {
		t.Fatalf("claimed after failing for good: %+v", got)
	}
	st, _ = s.Stats(ctx)
	if st.PendingJobs != 1 || st.FailedJobs != 1 || !strings.Contains(st.LastJobFailure, "reply does not parse") {
		t.Fatalf("job stats after a failure = %+v", st)
	}
	if j4, err := s.EnqueueJob(ctx, b.ID, "supersede"); err != nil || j4 == j3 {
		t.Fatalf("new work beside a failed job: %d, %v", j4, err)
	}
	// A job queued again while it runs runs once more after finishing.
	j5, _ := s.EnqueueJob(ctx, "s9", "summary")
	if got, _ := s.ClaimJobs(ctx, []string{"summary"}, 1, time.Minute); len(got) != 1 || got[0].ID != j5 {
		t.Fatalf("claim summary = %+v", got)
	}
	if again, _ := s.EnqueueJob(ctx, "s9", "summary"); again != j5 {
		t.Fatalf("a running job queued twice: %d, %d", j5, again)
	}
	must(t, s.FinishJob(ctx, j5))
	if got, _ := s.ClaimJobs(ctx, []string{"summary"}, 1, time.Minute); len(got) != 1 || got[0].ID != j5 {
		t.Fatalf("a job queued while running was finished: %+v", got)
	}
	must(t, s.FinishJob(ctx, j5))
	if got, _ := s.ClaimJobs(ctx, []string{"summary"}, 1, time.Minute); len(got) != 0 {
		t.Fatalf("finished twice and still there: %+v", got)
	}
}

func testModelHealth(t *testing.T, s Store) {
	at := time.Now().UTC()
	must(t, s.RecordModelHealth(ctx, "chat", "", at))
	must(t, s.RecordModelHealth(ctx, "chat", "connection refused", at))
	must(t, s.RecordModelHealth(ctx, "chat", "still refused", at.Add(time.Second)))
	st, _ := s.Stats(ctx)
	if len(st.ModelHealth) != 1 || st.ModelHealth[0].Failures != 2 || st.ModelHealth[0].LastError != "still refused" ||
		st.ModelHealth[0].FailingSince.Sub(at).Abs() > time.Millisecond {
		t.Fatalf("model health = %+v", st.ModelHealth)
	}
	must(t, s.RecordModelHealth(ctx, "chat", "", at.Add(2*time.Second)))
	if st, _ := s.Stats(ctx); len(st.ModelHealth) != 0 {
		t.Fatalf("after a success = %+v", st.ModelHealth)
	}
	if err := s.RecordModelHealth(ctx, "", "x", at); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("no role: %v", err)
	}
}

func entry(kind capture.Kind, ns, session, title string) *capture.Entry {
	return &capture.Entry{Kind: kind, Namespace: ns, SessionID: session, Title: title, Body: title + " body", Files: []string{"a.go"}, CreatedAt: tick()}
}

func testJournal(t *testing.T, s Store) {
	var got []int64
	for i := 0; i < 5; i++ {
		id, err := s.AddEntry(ctx, entry(capture.KindObservation, "project:j", "s1", "step "+string(rune('a'+i))))
		must(t, err)
		got = append(got, id)
	}
	other, _ := s.AddEntry(ctx, entry(capture.KindPrompt, "project:j", "s2", "other session"))
	if _, err := s.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("entry without title: %v", err)
	}
	es, err := s.Entries(ctx, []int64{got[2], 999999, got[0]})
	must(t, err)
	if len(es) != 2 || es[0].ID != got[2] || es[1].ID != got[0] || es[0].Files[0] != "a.go" || es[0].Body != "step c body" {
		t.Fatalf("entries = %+v", es)
	}
	es, _ = s.SessionEntries(ctx, "s1", got[1], 2)
	if len(es) != 2 || es[0].ID != got[2] || es[1].ID != got[3] {
		t.Fatalf("session entries = %+v", es)
	}
	es, err = s.Around(ctx, got[2], 1, 1)
	must(t, err)
	if len(es) != 3 || es[0].ID != got[1] || es[2].ID != got[3] {
		t.Fatalf("around = %+v", es)
	}
	if _, err := s.Around(ctx, 999999, 1, 1); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("around a missing entry: %v", err)
	}
	mid, _ := s.Entries(ctx, []int64{got[2]})
	es, _ = s.NamespaceAround(ctx, "project:j", mid[0].CreatedAt, 2, 1)
	if len(es) != 3 || es[0].ID != got[1] || es[1].ID != got[2] || es[2].ID != got[3] {
		t.Fatalf("namespace around = %+v", es)
	}
	// An empty namespace is every namespace (a global memory's timeline).
	late, _ := s.AddEntry(ctx, entry(capture.KindPrompt, "project:k", "s3", "another project"))
	es, _ = s.NamespaceAround(ctx, "", mid[0].CreatedAt, 1, 10)
	if len(es) != 5 || es[0].ID != got[2] || es[3].ID != other || es[4].ID != late {
		t.Fatalf("around in every namespace = %+v", es)
	}
	must(t, s.SetDraftSummary(ctx, "s1", "mem_1_00000001"))
	if p, _ := s.SummaryProgress(ctx, "s1"); p.DraftMemoryID != "mem_1_00000001" {
		t.Fatalf("progress with a draft = %+v", p)
	}
	sum1, err := s.RecordSummary(ctx, entry(capture.KindSummary, "project:j", "s1", "first summary"), got[2], true)
	must(t, err)
	sum2, _ := s.RecordSummary(ctx, entry(capture.KindSummary, "project:j", "s1", "second summary"), got[4], true)
	_ = sum1
	// The newest prompt or tool call of a session, its summaries left out.
	if last, err := s.LastCapture(ctx, "s1"); err != nil || last == nil || last.ID != got[4] {
		t.Fatalf("last capture of s1 = %+v, %v; want entry %d", last, err, got[4])
	}
	if last, err := s.LastCapture(ctx, "no-such-session"); err != nil || last != nil {
		t.Fatalf("last capture of a session without entries = %+v, %v", last, err)
	}
	// The project's recent sessions, newest prompt first, with their first
	// prompt, counts and latest summary; the one starting left out.
	ask, _ := s.AddEntry(ctx, entry(capture.KindPrompt, "project:j", "s1", "the ask of s1"))
	recent, err := s.RecentSessions(ctx, "project:j", "", 5)
	must(t, err)
	if len(recent) != 2 || recent[0].SessionID != "s1" || recent[1].SessionID != "s2" ||
		recent[0].FirstPrompt == nil || recent[0].FirstPrompt.ID != ask || recent[0].Prompts != 1 || recent[0].ToolCalls != 5 ||
		recent[0].Summary == nil || recent[0].Summary.ID != sum2 || recent[0].LastAt.IsZero() ||
		recent[1].FirstPrompt == nil || recent[1].FirstPrompt.ID != other || recent[1].Summary != nil {
		t.Fatalf("recent sessions = %+v", recent)
	}
	if recent, _ := s.RecentSessions(ctx, "project:j", "s1", 5); len(recent) != 1 || recent[0].SessionID != "s2" {
		t.Fatalf("recent sessions but s1 = %+v", recent)
	}
	if recent, _ := s.RecentSessions(ctx, "project:j", "", 1); len(recent) != 1 || recent[0].SessionID != "s1" {
		t.Fatalf("the most recent session = %+v", recent)
	}
	must(t, s.CountModelCall(ctx, "s1"))
	p, err := s.SummaryProgress(ctx, "s1")
	must(t, err)
	if p.Through != got[4] || p.ModelCalls != 3 || p.DraftMemoryID != "" {
		t.Fatalf("progress = %+v", p)
	}
	if p, _ := s.SummaryProgress(ctx, "none"); p != (capture.Progress{}) {
		t.Fatal("progress of an unknown session")
	}
	// An entry keeps its own message in the transcript: its id and where.
	anchored := entry(capture.KindObservation, "project:j", "s3", "anchored")
	anchored.AnchorID, anchored.TranscriptOffset = "toolu_01Anchor", 5<<30
	aid, err := s.AddEntry(ctx, anchored)
	must(t, err)
	if es, _ := s.Entries(ctx, []int64{aid}); len(es) != 1 || es[0].AnchorID != "toolu_01Anchor" || es[0].TranscriptOffset != 5<<30 {
		t.Fatalf("anchored entry = %+v", es)
	}

}

func testJournalSearch(t *testing.T, s Store) {
	a, _ := s.AddEntry(ctx, &capture.Entry{Kind: capture.KindObservation, Namespace: "project:a", SessionID: "s", Title: "Edited UserService", Body: "renamed the cache layer", CreatedAt: tick()})
	b, _ := s.AddEntry(ctx, &capture.Entry{Kind: capture.KindObservation, Namespace: "project:b", SessionID: "t", Title: "ran tests", Body: "the cache was cold", CreatedAt: tick()})
	hits, err := s.SearchEntries(ctx, "cache", nil, 10)
	must(t, err)
	if len(hits) != 2 {
		t.Fatalf("journal search = %+v", hits)
	}
	hits, _ = s.SearchEntries(ctx, "cache", []string{"project:b"}, 10)
	if len(hits) != 1 || hits[0].Entry.ID != b {
		t.Fatalf("journal search in b = %+v", hits)
	}
	hits, _ = s.SearchEntries(ctx, "user_service", nil, 10)
	if len(hits) != 1 || hits[0].Entry.ID != a {
		t.Fatalf("journal search by code word = %+v", hits)
	}
	if hits, _ := s.SearchEntries(ctx, "the of", nil, 10); len(hits) != 0 {
		t.Fatalf("stop words found %+v", hits)
	}
	cov, err := s.EntryCoverage(ctx, "cached UserService tables", []int64{a, b})
	must(t, err)
	if cov[a] < 0.66 || cov[a] > 0.67 || cov[b] < 0.33 || cov[b] > 0.34 {
		t.Fatalf("coverage = %v, want 2/3 for a and 1/3 for b", cov)
	}
	// The keyword rules of memories: stemmed words, every spelling of a code word.
	c, _ := s.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:c", SessionID: "u", Title: "why is the order_item table slow", CreatedAt: tick()})
	hits, _ = s.SearchEntries(ctx, "caching", []string{"project:a", "project:b"}, 10)
	if len(hits) != 2 {
		t.Fatalf("a stemmed word finds %+v", hits)
	}
	hits, _ = s.SearchEntries(ctx, "OrderItem", nil, 10)
	if len(hits) != 1 || hits[0].Entry.ID != c {
		t.Fatalf("another spelling of a code word finds %+v", hits)
	}
}

func testJournalForget(t *testing.T, s Store) {
	m := add(t, s, "summary memory")
	e := entry(capture.KindSummary, "project:f", "s1", "summary")
	e.MemoryID = m.ID
	_, err := s.AddEntry(ctx, e)
	must(t, err)
	_, _ = s.AddEntry(ctx, entry(capture.KindPrompt, "project:f", "s1", "prompt"))
	_, _ = s.AddEntry(ctx, entry(capture.KindPrompt, "project:f", "s2", "keep"))
	_, err = s.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/f", Action: memory.ActionRead, SessionID: "s1"})
	must(t, err)
	must(t, s.QueueSummary(ctx, "s1", "stop", ""))
	if n, _ := s.CountEntries(ctx, "s1", time.Time{}); n != 2 {
		t.Fatalf("count = %d", n)
	}
	n, mems, err := s.ForgetEntries(ctx, "s1", time.Time{})
	must(t, err)
	if n != 2 || !slices.Equal(mems, []string{m.ID}) {
		t.Fatalf("forgot %d, memories %v", n, mems)
	}
	st, _ := s.Stats(ctx)
	if st.JournalEntries != 1 || st.FileActivity != 0 || st.PendingSummaries != 0 {
		t.Fatalf("after forgetting: %+v", st)
	}
	if _, _, err := s.ForgetEntries(ctx, "", time.Time{}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("forget everything unasked: %v", err)
	}
	n, _, _ = s.ForgetEntries(ctx, "", time.Now().Add(time.Hour*24*3650))
	if n != 1 {
		t.Fatalf("forget before a date = %d", n)
	}
}

func testSummaryJobs(t *testing.T, s Store) {
	must(t, s.QueueSummary(ctx, "s1", "stop", "turn1"))
	must(t, s.QueueSummary(ctx, "s1", "session-end", ""))
	if err := s.QueueSummary(ctx, "", "stop", ""); err == nil {
		t.Fatal("a summary without a session was queued")
	}
	summary := []string{capture.SummaryJobKind}
	got, err := s.ClaimJobs(ctx, summary, 5, time.Minute)
	must(t, err)
	if len(got) != 1 || got[0].Subject != "s1" || got[0].Attempts != 1 {
		t.Fatalf("claimed %+v", got)
	}
	if st, _ := s.Stats(ctx); st.PendingSummaries != 1 {
		t.Fatalf("pending summaries = %d", st.PendingSummaries)
	}
}

func testStats(t *testing.T, s Store) {
	a := insert(t, s, newMemory("stats a", memory.GlobalNamespace, memory.TypeSession), vec(0, 0))
	b := insert(t, s, newMemory("stats b", "project:s", memory.TypeDecision), nil)
	_, _ = s.InsertEdge(ctx, &memory.Edge{SourceID: a.ID, TargetID: b.ID, Relation: memory.RelationRelatesTo, Weight: 1})
	_, _ = s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: a.ID, EventType: memory.EventApplied})
	_, _ = s.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "global", Title: "t", TrimmedBytes: 10})
	must(t, s.UpsertSession(ctx, &memory.Session{ID: "s1", Namespace: "global", Cwd: "/r"}))
	end := time.Now()
	must(t, s.UpsertSession(ctx, &memory.Session{ID: "s1", EndedAt: &end, EndReason: "exit"}))
	st, err := s.Stats(ctx)
	must(t, err)
	if st.Memories != 2 || st.ByNamespace["project:s"] != 1 || st.ByType["session"] != 1 || st.Edges != 1 ||
		st.ValidationEvents != 1 || st.PendingEmbeddings != 1 || st.JournalEntries != 1 || st.TrimmedEntries != 1 ||
		st.EmbeddingDim != 4 || st.SchemaVersion == 0 {
		t.Fatalf("stats = %+v", st)
	}
}

func testToolCall(t *testing.T, s Store) {
	e := entry(capture.KindObservation, "project:t", "s1", "Edit main.go")
	a := &memory.FileActivity{FilePath: "/r/main.go", Action: memory.ActionEdit, ProjectRoot: "/r", SessionID: "s1"}
	must(t, s.RecordToolCall(ctx, e, a))
	if e.ID == 0 || a.ID == 0 {
		t.Fatalf("ids not set: entry %d, activity %d", e.ID, a.ID)
	}
	// A bad touch refuses the entry with it: nothing half-written.
	bad := entry(capture.KindObservation, "project:t", "s1", "Delete x")
	if err := s.RecordToolCall(ctx, bad, &memory.FileActivity{FilePath: "/r/x", Action: "delete"}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("a tool call with a bad action: %v", err)
	}
	must(t, s.RecordToolCall(ctx, nil, nil))
	st, _ := s.Stats(ctx)
	if st.JournalEntries != 1 || st.FileActivity != 1 {
		t.Fatalf("after two tool calls, one refused: %d entries, %d touches", st.JournalEntries, st.FileActivity)
	}
	files, _ := s.RecentFiles(ctx, "/r", time.Time{}, 5)
	if len(files) != 1 || files[0].FilePath != "/r/main.go" {
		t.Fatalf("recent files = %+v", files)
	}
}

// testVisibility: a person sees the shared namespaces and their own
// user:<name>, never another person's, whichever method asks; the
// machine's own processes (no principal) see everything.
// testFilterByAuthor: the viewer's author filter narrows listings, counts
// and both searches to who stored the memories ("" for no one: this
// machine's processes), and the stats count memories by author.
func testFilterByAuthor(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	byAnn, _, err := s.InsertMemory(ann, newMemory("ann deploys on fridays", memory.GlobalNamespace, memory.TypeDecision), vec(0, 0))
	must(t, err)
	byBob, _, err := s.InsertMemory(bob, newMemory("bob deploys on mondays", memory.GlobalNamespace, memory.TypeDecision), vec(0, 0.1))
	must(t, err)
	local := insert(t, s, newMemory("deploys wait for green builds", memory.GlobalNamespace, memory.TypeDecision), vec(0, 0.2))
	for _, c := range []struct {
		authors []string
		want    []string
	}{
		{[]string{"ann"}, []string{byAnn.ID}},
		{[]string{"bob", ""}, []string{byBob.ID, local.ID}},
		{[]string{""}, []string{local.ID}},
		{nil, []string{byAnn.ID, byBob.ID, local.ID}},
	} {
		checkNarrows(t, s, "authors", c.authors, memory.Filter{Bounds: memory.Bounds{Authors: c.authors}}, c.want)
	}
	st, err := s.Stats(ctx)
	must(t, err)
	if st.ByAuthor["ann"] != 1 || st.ByAuthor["bob"] != 1 || st.ByAuthor[""] != 1 || len(st.ByAuthor) != 3 {
		t.Errorf("stats by author = %v", st.ByAuthor)
	}
}

// checkNarrows checks that f, the filter by facet's values, narrows a
// listing, a count and both searches (for "deploys", and near vec(0, 0)) to
// the memories want, in any order.
func checkNarrows(t *testing.T, s Store, facet string, values []string, f memory.Filter, want []string) {
	t.Helper()
	ms, err := s.ListMemories(ctx, memory.ListQuery{Filter: f, OrderBy: memory.OrderCreatedAt})
	must(t, err)
	var listed []string
	for _, m := range ms {
		listed = append(listed, m.ID)
	}
	kw, err := s.SearchKeyword(ctx, "deploys", f, 10)
	must(t, err)
	vs, err := s.SearchVector(ctx, vec(0, 0), f, 10)
	must(t, err)
	n, err := s.CountMemories(ctx, f)
	must(t, err)
	sorted := func(xs []string) []string { xs = slices.Clone(xs); slices.Sort(xs); return xs }
	want = sorted(want)
	if !slices.Equal(sorted(listed), want) || !slices.Equal(sorted(ids(kw)), want) || !slices.Equal(sorted(ids(vs)), want) || n != len(want) {
		t.Errorf("%s %q: listed %v, keyword %v, vector %v, count %d; want %v", facet, values, listed, ids(kw), ids(vs), n, want)
	}
}

// testSource: a memory keeps the door it came in through (Memory.Source, ""
// when not recorded) across reads, a trip through the trash, an export and an
// import; the viewer's source filter narrows listings, counts and both
// searches; CountMemoriesBy and the stats count by it, a person's counts
// leaving out another person's private memories.
func testSource(t *testing.T, s Store) {
	stored := func(ctx context.Context, content, ns, source string, v []float32) *memory.Memory {
		t.Helper()
		m := newMemory(content, ns, memory.TypeDecision)
		m.Source = source
		got, _, err := s.InsertMemory(ctx, m, v)
		must(t, err)
		if got.Source != source {
			t.Fatalf("InsertMemory(%q) answered source %q, want %q", content, got.Source, source)
		}
		return got
	}
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	byTool := stored(ctx, "deploys go through the pipeline", memory.GlobalNamespace, memory.SourceMCP, vec(0, 0))
	byCLI := stored(ctx, "deploys wait for green builds", memory.GlobalNamespace, memory.SourceCLI, vec(0, 0.1))
	old := stored(ctx, "deploys were manual once", memory.GlobalNamespace, "", vec(0, 0.2))
	private := stored(ann, "ann deploys on fridays", "user:ann", memory.SourceViewer, vec(0, 0.3))

	if m, err := s.GetMemory(ctx, byCLI.ID); err != nil || m.Source != memory.SourceCLI {
		t.Fatalf("GetMemory = %+v, %v; want source cli", m, err)
	}
	for _, c := range []struct {
		sources []string
		want    []string
	}{
		{[]string{memory.SourceCLI}, []string{byCLI.ID}},
		{[]string{memory.SourceMCP, ""}, []string{byTool.ID, old.ID}},
		{[]string{""}, []string{old.ID}},
		{[]string{memory.SourceImport}, nil},
		{nil, []string{byTool.ID, byCLI.ID, old.ID, private.ID}},
	} {
		checkNarrows(t, s, "sources", c.sources, memory.Filter{Bounds: memory.Bounds{Sources: c.sources}}, c.want)
	}

	for _, c := range []struct {
		who  context.Context
		name string
		by   memory.Facet
		want map[string]int
	}{
		{ctx, "this machine", memory.FacetSource, map[string]int{"mcp": 1, "cli": 1, "": 1, "viewer": 1}},
		{bob, "bob", memory.FacetSource, map[string]int{"mcp": 1, "cli": 1, "": 1}},
		{ann, "ann", memory.FacetAuthor, map[string]int{"ann": 1, "": 3}},
	} {
		got, err := s.CountMemoriesBy(c.who, c.by)
		must(t, err)
		if len(got) != len(c.want) {
			t.Errorf("CountMemoriesBy(%s) as %s = %v, want %v", c.by, c.name, got, c.want)
		}
		for k, n := range c.want {
			if got[k] != n {
				t.Errorf("CountMemoriesBy(%s) as %s = %v, want %v", c.by, c.name, got, c.want)
			}
		}
	}
	if _, err := s.CountMemoriesBy(ctx, "content"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("CountMemoriesBy(content) = %v, want ErrInvalid", err)
	}
	st, err := s.Stats(ctx)
	must(t, err)
	if st.BySource["mcp"] != 1 || st.BySource["cli"] != 1 || st.BySource[""] != 1 || st.BySource["viewer"] != 1 || len(st.BySource) != 4 {
		t.Errorf("stats by source = %v", st.BySource)
	}

	// Through the trash and back: the restore is the viewer's, the memory
	// still came in through the CLI.
	must(t, s.TrashMemory(ctx, byCLI.ID, true))
	if _, err := s.RestoreMemory(memory.WithSource(ctx, memory.SourceViewer), byCLI.ID); err != nil {
		t.Fatal(err)
	}
	if m, err := s.GetMemory(ctx, byCLI.ID); err != nil || m.Source != memory.SourceCLI {
		t.Fatalf("restored %+v, %v; want source cli", m, err)
	}

	// Out and in again: every memory keeps its source, "" included.
	var recs memory.Records
	must(t, s.Export(ctx, memory.RecordVisitor{Memory: func(m *memory.Memory) error {
		recs.Memories = append(recs.Memories, m)
		return nil
	}}))
	exported := map[string]string{}
	for _, m := range recs.Memories {
		exported[m.ID] = m.Source
	}
	want := map[string]string{byTool.ID: "mcp", byCLI.ID: "cli", old.ID: "", private.ID: "viewer"}
	if len(exported) != len(want) {
		t.Fatalf("exported sources %v, want %v", exported, want)
	}
	for id, src := range want {
		if exported[id] != src {
			t.Errorf("exported %s with source %q, want %q", id, exported[id], src)
		}
	}
	for _, m := range recs.Memories {
		must(t, s.DeleteMemory(ctx, m.ID, false))
	}
	res, err := s.Import(ctx, recs)
	must(t, err)
	if res.Memories != len(want) {
		t.Fatalf("import wrote %d memories, want %d (%+v)", res.Memories, len(want), res)
	}
	for id, src := range want {
		if m, err := s.GetMemory(ctx, id); err != nil || m.Source != src {
			t.Errorf("imported %s = %+v, %v; want source %q", id, m, err, src)
		}
	}
}

func testVisibility(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	shared := add(t, s, "deploy notes shared by the team")
	m := newMemory("deploy notes private to ann", "user:ann", memory.TypeDecision)
	private, _, err := s.InsertMemory(ann, m, vec(0, 0))
	must(t, err)
	if private.Author != "ann" {
		t.Errorf("author = %q, want ann", private.Author)
	}
	_, err = s.InsertEdge(ann, &memory.Edge{SourceID: private.ID, TargetID: shared.ID, Relation: memory.RelationRelatesTo, Weight: 1})
	must(t, err)

	if _, err := s.GetMemory(bob, private.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("bob reads ann's memory: %v", err)
	}
	if got, _ := s.GetMemories(bob, []string{private.ID, shared.ID}); len(got) != 1 || got[shared.ID] == nil {
		t.Errorf("bob's GetMemories = %v", got)
	}
	if n, _ := s.CountMemories(bob, memory.Filter{}); n != 1 {
		t.Errorf("bob counts %d memories, want 1", n)
	}
	if hits, _ := s.SearchKeyword(bob, "deploy notes", memory.Filter{}, 10); !slices.Equal(ids(hits), []string{shared.ID}) {
		t.Errorf("bob's keyword search = %v", ids(hits))
	}
	if hits, _ := s.SearchVector(bob, vec(0, 0), memory.Filter{}, 10); len(hits) != 0 {
		t.Errorf("bob's vector search = %v", ids(hits))
	}
	if es, _ := s.Edges(bob, memory.EdgeQuery{MemoryIDs: []string{shared.ID}}); len(es) != 0 {
		t.Errorf("bob sees an edge to ann's memory: %+v", es)
	}
	if _, err := s.UpdateMemory(bob, private.ID, func(m *memory.Memory) error { m.Importance = 0; return nil }); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("bob updates ann's memory: %v", err)
	}
	if err := s.DeleteMemory(bob, private.ID, false); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("bob deletes ann's memory: %v", err)
	}
	if _, _, err := s.InsertMemory(bob, newMemory("into ann's", "user:ann", memory.TypeDecision), nil); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bob writes into user:ann: %v", err)
	}
	if _, err := s.UpdateMemory(bob, shared.ID, func(m *memory.Memory) error { m.Namespace = "user:ann"; return nil }); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("bob moves a memory into user:ann: %v", err)
	}
	if _, err := s.GetMemory(ann, private.ID); err != nil {
		t.Errorf("ann reads her own memory: %v", err)
	}
	if n, _ := s.CountMemories(ctx, memory.Filter{}); n != 2 {
		t.Errorf("the machine's own count = %d, want 2", n)
	}
	if st, err := s.Stats(bob); err != nil || st.Memories != 1 || st.ByNamespace["user:ann"] != 0 || st.ByType[string(memory.TypeDecision)] != 0 {
		t.Errorf("bob's stats = %+v, %v; want 1 memory, none of ann's", st, err)
	}
	if st, _ := s.Stats(ctx); st.Memories != 2 {
		t.Errorf("the machine's own stats count %d memories, want 2", st.Memories)
	}

	// What hangs on ann's private memories is not bob's to count either:
	// the edge to one, its events, one waiting for its vector.
	_, _, err = s.InsertMemory(ann, newMemory("ann's note not embedded yet", "user:ann", memory.TypeDecision), nil)
	must(t, err)
	_, _, err = s.UpdateMemoryWithEvent(ann, private.ID, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		m.Confidence = 0.6
		return &memory.ValidationEvent{EventType: memory.EventSucceeded, ConfidenceBefore: 0.5, ConfidenceAfter: 0.6}, nil, nil
	})
	must(t, err)
	all, err := s.Stats(ctx)
	must(t, err)
	mine, err := s.Stats(bob)
	must(t, err)
	if all.Edges != 1 || all.ValidationEvents != 1 || all.PendingEmbeddings != 2 {
		t.Fatalf("the machine's stats: %d edges, %d events, %d pending; want 1, 1, 2", all.Edges, all.ValidationEvents, all.PendingEmbeddings)
	}
	if mine.Edges != 0 || mine.ValidationEvents != 0 || mine.PendingEmbeddings != 1 {
		t.Errorf("bob's stats: %d edges, %d events, %d pending; want 0, 0, 1 (his memories' only)", mine.Edges, mine.ValidationEvents, mine.PendingEmbeddings)
	}
}

// testVisibilityAround: what surrounds another person's private memory does
// not give it away: a supersedes edge from it hides nothing from the others,
// the trash of a memory that pointed at it names it nowhere, and curation
// working for a shared memory (memory.CuratorOf) sees no private one.
func testVisibilityAround(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	shared := insert(t, s, newMemory("the deploy runs on fridays", "project:p", memory.TypeDecision), vec(0, 0))
	private, _, err := s.InsertMemory(ann, newMemory("the deploy runs on mondays now", "user:ann", memory.TypeDecision), vec(0, 0.01))
	must(t, err)
	_, err = s.InsertEdge(ann, &memory.Edge{SourceID: private.ID, TargetID: shared.ID, Relation: memory.RelationSupersedes, Weight: 1})
	must(t, err)
	if hits, _ := s.SearchKeyword(bob, "deploy", memory.Filter{}, 10); !slices.Equal(ids(hits), []string{shared.ID}) {
		t.Errorf("ann's private supersedes edge hides the shared memory from bob: keyword search = %v", ids(hits))
	}
	if n, _ := s.CountMemories(bob, memory.Filter{}); n != 1 {
		t.Errorf("bob counts %d memories, want the shared one", n)
	}
	if hits, _ := s.SearchVector(bob, vec(0, 0), memory.Filter{}, 10); !slices.Equal(ids(hits), []string{shared.ID}) {
		t.Errorf("bob's vector search = %v, want the shared memory", ids(hits))
	}
	if hits, _ := s.SearchKeyword(ann, "deploy", memory.Filter{}, 10); !slices.Equal(ids(hits), []string{private.ID}) {
		t.Errorf("ann's keyword search = %v, want her memory alone (it supersedes the shared one for her)", ids(hits))
	}
	if hits, _ := s.SearchVector(memory.WithPrincipal(ctx, memory.CuratorOf("project:p")), vec(0, 0), memory.Filter{IncludeSuperseded: true}, 10); !slices.Equal(ids(hits), []string{shared.ID}) {
		t.Errorf("curation of a shared memory sees %v, want the shared memory alone", ids(hits))
	}
	if hits, _ := s.SearchVector(memory.WithPrincipal(ctx, memory.CuratorOf("user:bob")), vec(0, 0), memory.Filter{IncludeSuperseded: true}, 10); !slices.Equal(ids(hits), []string{shared.ID}) {
		t.Errorf("curation of bob's memory sees %v, want the shared memory alone", ids(hits))
	}
	// A shared memory linked to ann's private one, with a change naming it,
	// goes to the trash: bob's trash lists it without either.
	other := insert(t, s, newMemory("release checklist", "project:p", memory.TypeDecision), vec(1, 0))
	_, err = s.InsertEdge(ann, &memory.Edge{SourceID: other.ID, TargetID: private.ID, Relation: memory.RelationRelatesTo, Weight: 1})
	must(t, err)
	must(t, s.AddChanges(ctx, memory.Change{MemoryID: other.ID, Namespace: other.Namespace, Action: memory.ChangeNotContradiction, RelatedID: private.ID, Source: "test"}))
	must(t, s.TrashMemory(ctx, other.ID, true))
	items, err := s.Trash(bob)
	must(t, err)
	if len(items) != 1 || items[0].Memory.ID != other.ID {
		t.Fatalf("bob's trash = %+v", items)
	}
	if len(items[0].Edges) != 0 {
		t.Errorf("bob's trash shows an edge to ann's private memory: %+v", items[0].Edges)
	}
	for _, c := range items[0].Changes {
		if c.RelatedID == private.ID {
			t.Errorf("bob's trash names ann's private memory in a change: %+v", c)
		}
	}
	items, err = s.Trash(ann)
	must(t, err)
	if len(items) != 1 || len(items[0].Edges) != 1 {
		t.Errorf("ann's trash = %+v, want the edge to her memory", items)
	}
}

// testOwnWork: a person's journal entries and file activity are theirs
// alone, whatever namespace they were captured in; the machine's own
// processes read every one.
func testOwnWork(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	prompt := entry(capture.KindPrompt, "project:p", "ann-1", "why does the migration lock")
	annID, err := s.AddEntry(ann, prompt)
	must(t, err)
	must(t, s.RecordToolCall(ann, entry(capture.KindObservation, "project:p", "ann-1", "Edit migration lock"),
		&memory.FileActivity{FilePath: "/ann/p/lock.go", Action: memory.ActionEdit, ProjectRoot: "/ann/p", SessionID: "ann-1"}))
	bobID, err := s.AddEntry(bob, entry(capture.KindPrompt, "project:p", "bob-1", "the migration lock again"))
	must(t, err)

	if es, _ := s.Entries(ann, []int64{annID, bobID}); len(es) != 1 || es[0].ID != annID || es[0].Author != "ann" {
		t.Errorf("ann's Entries = %+v, want her own, by her", es)
	}
	if hits, _ := s.SearchEntries(bob, "migration lock", nil, 10); len(hits) != 1 || hits[0].Entry.ID != bobID {
		t.Errorf("bob's journal search = %+v, want his entry alone", hits)
	}
	if _, err := s.Around(bob, annID, 2, 2); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("bob reads around ann's entry: %v", err)
	}
	if es, _ := s.NamespaceAround(bob, "project:p", time.Now(), 10, 10); len(es) != 1 || es[0].ID != bobID {
		t.Errorf("bob's timeline of project:p = %+v, want his entry alone", es)
	}
	if ss, _ := s.RecentSessions(bob, "project:p", "", 5); len(ss) != 1 || ss[0].SessionID != "bob-1" {
		t.Errorf("bob's recent sessions = %+v, want his own", ss)
	}
	if ss, _ := s.RecentSessions(ann, "project:p", "", 5); len(ss) != 1 || ss[0].SessionID != "ann-1" || ss[0].ToolCalls != 1 {
		t.Errorf("ann's recent sessions = %+v, want hers with one tool call", ss)
	}
	if n, _ := s.CountEntries(bob, "ann-1", time.Time{}); n != 0 {
		t.Errorf("bob counts %d entries of ann's session", n)
	}
	if files, _ := s.RecentFiles(bob, "", time.Time{}, 10); len(files) != 0 {
		t.Errorf("bob sees ann's file activity: %+v", files)
	}
	if files, _ := s.RecentFiles(ann, "", time.Time{}, 10); len(files) != 1 {
		t.Errorf("ann's file activity = %+v, want her touch", files)
	}
	// bob cannot forget ann's session, nor her work by date.
	if n, _, err := s.ForgetEntries(bob, "ann-1", time.Time{}); err != nil || n != 0 {
		t.Errorf("bob forgets ann's session: %d entries, %v", n, err)
	}
	if n, _, err := s.ForgetEntries(bob, "", time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("bob forgets his work by date: %d entries (want 1), %v", n, err)
	}
	if n, _ := s.CountEntries(ctx, "", time.Time{}); n != 2 {
		t.Errorf("the machine counts %d entries after bob's forget, want ann's 2", n)
	}
	if files, _ := s.RecentFiles(ctx, "", time.Time{}, 10); len(files) != 1 {
		t.Errorf("the machine's file activity = %+v, want ann's touch", files)
	}
}

// testStatsPerPerson: a person's stats count the journal entries and file
// activity of their own sessions, and the jobs about what they may see (a
// memory of theirs or shared, a session of theirs), with the jobs' errors;
// the machine's own processes count everything.
func testStatsPerPerson(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	prompt := entry(capture.KindPrompt, "project:p", "ann-1", "why does the migration lock")
	prompt.TrimmedBytes = 10
	_, err := s.AddEntry(ann, prompt)
	must(t, err)
	must(t, s.RecordToolCall(ann, entry(capture.KindObservation, "project:p", "ann-1", "Edit migration lock"),
		&memory.FileActivity{FilePath: "/ann/p/lock.go", Action: memory.ActionEdit, ProjectRoot: "/ann/p", SessionID: "ann-1"}))
	_, err = s.AddEntry(bob, entry(capture.KindPrompt, "project:p", "bob-1", "the migration lock again"))
	must(t, err)
	must(t, s.QueueSummary(ann, "ann-1", "stop", ""))
	must(t, s.QueueSummary(bob, "bob-1", "stop", ""))
	private, _, err := s.InsertMemory(ann, newMemory("ann's lock notes", "user:ann", memory.TypeDecision), nil)
	must(t, err)
	shared := add(t, s, "the team's lock notes")
	privateJob, err := s.EnqueueJob(ann, private.ID, "relate")
	must(t, err)
	_, err = s.EnqueueJob(ctx, shared.ID, "relate")
	must(t, err)
	must(t, s.RetryJob(ctx, privateJob, "judging ann's lock notes timed out", time.Now().Add(time.Hour)))
	claimed, err := s.ClaimJobs(ctx, []string{capture.SummaryJobKind}, 5, time.Minute)
	must(t, err)
	for _, j := range claimed {
		if j.Subject == "ann-1" {
			must(t, s.FailJob(ctx, j.ID, "ann's session does not parse"))
		} else {
			must(t, s.RetryJob(ctx, j.ID, "", time.Now().Add(-time.Second)))
		}
	}

	type counts struct {
		Journal, Trimmed, Files, Pending, Retrying, Failed, Summaries int
		LastError, LastFailure                                        string
	}
	of := func(who context.Context) counts {
		t.Helper()
		st, err := s.Stats(who)
		must(t, err)
		return counts{st.JournalEntries, st.TrimmedEntries, st.FileActivity, st.PendingJobs, st.RetryingJobs, st.FailedJobs,
			st.PendingSummaries, st.LastJobError, st.LastJobFailure}
	}
	for _, c := range []struct {
		who  string
		ctx  context.Context
		want counts
	}{
		{"the machine", ctx, counts{3, 1, 1, 3, 1, 1, 1, "judging ann's lock notes timed out", "summary job for ann-1"}},
		{"ann", ann, counts{2, 1, 1, 2, 1, 1, 0, "judging ann's lock notes timed out", "summary job for ann-1"}},
		{"bob", bob, counts{1, 0, 0, 2, 0, 0, 1, "", ""}},
	} {
		got := of(c.ctx)
		failure := got.LastFailure
		got.LastFailure = ""
		if i := strings.Index(failure, " failed for good"); i > 0 {
			got.LastFailure = failure[:i]
		}
		if got != c.want {
			t.Errorf("%s's stats: %+v\nwant %+v", c.who, got, c.want)
		}
	}
}

// testResolveHidden: a contradiction with another person's private memory
// is not found for a person, whose verdict writes nothing; its owner
// resolves it.
func testResolveHidden(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	shared := add(t, s, "deploys run on fridays")
	private, _, err := s.InsertMemory(ann, newMemory("deploys run on mondays", "user:ann", memory.TypeDecision), nil)
	must(t, err)
	c, err := s.InsertEdge(ann, &memory.Edge{SourceID: private.ID, TargetID: shared.ID, Relation: memory.RelationContradicts, Weight: 0.8})
	must(t, err)
	verdict := memory.Resolution{EdgeID: c, Remove: true,
		Add:     &memory.Edge{SourceID: shared.ID, TargetID: private.ID, Relation: memory.RelationSupersedes, Weight: 1},
		Changes: []memory.Change{{MemoryID: shared.ID, Namespace: shared.Namespace, At: time.Now(), Action: memory.ChangeSupersede, Source: memory.SourceViewer, RelatedID: private.ID}}}
	dismiss := memory.Resolution{EdgeID: c, Remove: true, Changes: []memory.Change{{MemoryID: shared.ID, Namespace: shared.Namespace,
		At: time.Now(), Action: memory.ChangeNotContradiction, Source: memory.SourceViewer, RelatedID: private.ID}}}
	for _, r := range []memory.Resolution{dismiss, verdict} {
		if err := s.ResolveContradiction(bob, r); !errors.Is(err, memory.ErrNotFound) {
			t.Fatalf("bob resolves a contradiction with ann's private memory: %v, want ErrNotFound", err)
		}
	}
	es, err := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{shared.ID}})
	must(t, err)
	if len(es) != 1 || es[0].ID != c {
		t.Fatalf("edges after bob's refused verdict: %+v, want the contradiction alone", es)
	}
	if log, _ := s.Changes(ctx, memory.ChangeQuery{MemoryID: shared.ID}); len(log) != 0 {
		t.Fatalf("bob's refused verdict logged %+v", log)
	}
	must(t, s.ResolveContradiction(ann, verdict))
	if es, _ := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{shared.ID}}); len(es) != 1 || es[0].Relation != memory.RelationSupersedes {
		t.Fatalf("edges after ann's verdict: %+v, want the supersedes edge", es)
	}
}

// testImportTwice: reading an export the store already holds adds nothing:
// the memory is found stored, its validation events and file activity are
// not doubled (confidence and supersede decisions read those events).
func testImportTwice(t *testing.T, s Store) {
	m := add(t, s, "migrations run in one transaction each")
	_, err := s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: m.ID, EventType: memory.EventSucceeded})
	must(t, err)
	_, err = s.AddEvent(ctx, &memory.ValidationEvent{MemoryID: m.ID, EventType: memory.EventFailed, ErrorMsg: "the lock timed out"})
	must(t, err)
	_, err = s.AddFileActivity(ctx, &memory.FileActivity{FilePath: "/src/shop/db.go", Action: memory.ActionEdit, ProjectRoot: "/src/shop"})
	must(t, err)
	var recs memory.Records
	must(t, s.Export(ctx, memory.RecordVisitor{
		Memory: func(m *memory.Memory) error { recs.Memories = append(recs.Memories, m); return nil },
		Event:  func(ev *memory.ValidationEvent) error { recs.Events = append(recs.Events, *ev); return nil },
		File:   func(f *memory.FileRow) error { recs.Files = append(recs.Files, *f); return nil },
	}))
	if len(recs.Memories) != 1 || len(recs.Events) != 2 || len(recs.Files) != 1 {
		t.Fatalf("exported %d memories, %d events, %d file rows; want 1, 2, 1", len(recs.Memories), len(recs.Events), len(recs.Files))
	}
	res, err := s.Import(ctx, recs)
	must(t, err)
	if res.Memories != 0 || res.Existing != 1 || res.Events != 0 || res.Files != 0 {
		t.Errorf("importing what is stored: %+v; want the memory found and nothing added", res)
	}
	if evs, _ := s.Events(ctx, m.ID, "", 0); len(evs) != 2 {
		t.Errorf("%d validation events after the import, want 2", len(evs))
	}
	if st, _ := s.Stats(ctx); st.FileActivity != 1 {
		t.Errorf("%d rows of file activity after the import, want 1", st.FileActivity)
	}
}

// testImportAsAPerson: a person's import writes what they may write and
// lists the rest as skipped, as a whole import that fails would leave them
// nothing: a memory in another person's namespace is left out, and so is
// everything naming it (an edge, an event, its vector), even where a memory
// of that id is stored; it never changes the stored one, even when the file
// gives its id to a shared memory. Project bindings
// are a root, a namespace and the time they were made (now when it is
// missing); other keys are passed over, and a binding without a root, or
// to a namespace Recall does not accept or the person may not write, is
// left out and listed.
func testImportAsAPerson(t *testing.T, s Store) {
	ann := memory.WithPrincipal(ctx, memory.Principal{Person: "ann"})
	bob := memory.WithPrincipal(ctx, memory.Principal{Person: "bob"})
	private, _, err := s.InsertMemory(ann, newMemory("ann's locker code hint", "user:ann", memory.TypeSession), nil)
	must(t, err)
	shared := newMemory("the shop deploys from main", memory.GlobalNamespace, memory.TypeDecision)
	rewritten := *private
	rewritten.Content, rewritten.ContentHash = "bob rewrote ann's hint", ""
	carols := newMemory("carol's notes", "user:carol", memory.TypeSession)
	// A shared memory under the id of ann's private one.
	crafted := *private
	crafted.Namespace, crafted.Content, crafted.ContentHash = memory.GlobalNamespace, "bob's note under ann's id", ""
	recs := memory.Records{
		Memories: []*memory.Memory{shared, &rewritten, carols, &crafted},
		Edges:    []memory.Edge{{SourceID: shared.ID, TargetID: private.ID, Relation: memory.RelationSupersedes, CreatedAt: tick()}},
		Events:   []memory.ValidationEvent{{MemoryID: private.ID, EventType: memory.EventFailed, CreatedAt: tick()}},
		Space:    memory.EmbeddingSpace{Model: "test-embed", Dimension: 4},
		Vectors:  map[string][]float32{shared.ID: vec(0, 0), private.ID: vec(1, 0), carols.ID: vec(2, 0)},
		Projects: []map[string]any{
			{"root": "/src/shop", "namespace": "project:shop", "created_at": "2025-01-02T03:04:05Z", "label": "ignored"},
			{"root": "/src/new", "namespace": "project:new"},
			{"root": "/src/ann", "namespace": "user:ann"},
			{"root": "/src/odd", "namespace": "Shop"},
			{"namespace": "project:rootless"},
		},
	}
	before := time.Now().Add(-time.Minute)
	res, err := s.Import(bob, recs)
	if err != nil {
		t.Fatalf("bob's import: %v; want what he may write written and the rest skipped", err)
	}
	if res.Memories != 1 || res.Existing != 0 || res.Edges != 0 || res.Events != 0 || res.Vectors != 1 || res.Projects != 2 {
		t.Errorf("bob's import = %+v; want 1 memory with its vector and 2 project bindings", res)
	}
	skipped := strings.Join(res.Skipped, "\n")
	for _, want := range []string{private.ID, carols.ID, "/src/ann", "/src/odd", "project:rootless"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped:\n%s\nwant a line naming %s", skipped, want)
		}
	}
	if len(res.Skipped) != 8 {
		t.Errorf("skipped %d records, want 8 (3 memories, the edge, the event, 3 bindings):\n%s", len(res.Skipped), skipped)
	}
	if m, err := s.GetMemory(bob, shared.ID); err != nil || m.EmbeddingPending {
		t.Errorf("bob's shared memory = %+v, %v; want it stored with its vector", m, err)
	}
	m, err := s.GetMemory(ann, private.ID)
	if err != nil || m.Content != private.Content || !m.EmbeddingPending {
		t.Errorf("ann's memory after bob's import = %+v, %v; want it unchanged (pending, her text)", m, err)
	}
	if es, _ := s.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{private.ID}}); len(es) != 0 {
		t.Errorf("edges of ann's memory after bob's import: %+v, want none", es)
	}
	if evs, _ := s.Events(ctx, private.ID, "", 0); len(evs) != 0 {
		t.Errorf("events of ann's memory after bob's import: %+v, want none", evs)
	}
	if n, _ := s.CountMemories(ctx, memory.Filter{Namespaces: []string{"user:carol"}}); n != 0 {
		t.Errorf("%d memories in user:carol after bob's import, want none", n)
	}
	bound := map[string]string{}
	must(t, s.Export(ctx, memory.RecordVisitor{Project: func(row map[string]any) error {
		root, _ := row["root"].(string)
		ns, _ := row["namespace"].(string)
		at, _ := row["created_at"].(string)
		bound[root] = ns + " " + at
		return nil
	}}))
	if len(bound) != 2 || !strings.HasPrefix(bound["/src/shop"], "project:shop 2025-01-02T03:04:05") || !strings.HasPrefix(bound["/src/new"], "project:new ") {
		t.Errorf("bindings after the import: %v; want /src/shop and /src/new", bound)
	}
	if at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(bound["/src/new"], "project:new ")); err != nil || at.Before(before) {
		t.Errorf("a binding without a time was bound at %q (%v), want now", bound["/src/new"], err)
	}
}

// testPeople: a team's people and their tokens (kept as hashes): a token
// or its cookie names its person, and the lookup notes when they were last
// seen; a new token replaces every old one; a name is taken once; a person
// removed opens nothing any more.
func testPeople(t *testing.T, s Store) {
	if has, err := s.HasPeople(ctx); err != nil || has {
		t.Fatalf("HasPeople of a new store = %v, %v; want false", has, err)
	}
	if ps, err := s.People(ctx); err != nil || ps == nil || len(ps) != 0 {
		t.Fatalf("People of a new store = %#v, %v; want an empty list", ps, err)
	}
	before := time.Now().Add(-time.Second)
	must(t, s.AddPerson(ctx, "ann", team.TokenHashes{Token: "t-ann-1", Cookie: "c-ann-1"}))
	must(t, s.AddPerson(ctx, "bob", team.TokenHashes{Token: "t-bob-1", Cookie: "c-bob-1"}))
	if err := s.AddPerson(ctx, "ann", team.TokenHashes{Token: "t-ann-2", Cookie: "c-ann-2"}); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "already") {
		t.Errorf("adding ann twice: %v, want ErrInvalid saying she is already a person", err)
	}
	ps, err := s.People(ctx)
	must(t, err)
	if len(ps) != 2 || ps[0].Name != "ann" || ps[1].Name != "bob" || ps[0].CreatedAt.Before(before) || !ps[0].LastSeenAt.IsZero() {
		t.Fatalf("people = %+v; want ann then bob, created now, never seen", ps)
	}
	for _, c := range []struct {
		hash   string
		cookie bool
		want   string
	}{
		{"t-ann-1", false, "ann"}, {"c-ann-1", true, "ann"}, {"t-bob-1", false, "bob"},
		{"c-ann-1", false, ""}, {"t-ann-1", true, ""}, {"t-ann-2", false, ""}, {"nobody", false, ""},
	} {
		name, err := s.PersonByToken(ctx, c.hash, c.cookie)
		if c.want == "" && !errors.Is(err, team.ErrUnknownToken) || c.want != "" && (err != nil || name != c.want) {
			t.Errorf("PersonByToken(%q, cookie %v) = %q, %v; want %q", c.hash, c.cookie, name, err, c.want)
		}
	}
	ps, err = s.People(ctx)
	must(t, err)
	if ps[0].LastSeenAt.Before(before) || ps[0].LastSeenAt.After(time.Now()) {
		t.Errorf("ann last seen at %v after her token was used, want now", ps[0].LastSeenAt)
	}
	must(t, s.ReplaceToken(ctx, "ann", team.TokenHashes{Token: "t-ann-3", Cookie: "c-ann-3"}))
	if _, err := s.PersonByToken(ctx, "t-ann-1", false); !errors.Is(err, team.ErrUnknownToken) {
		t.Errorf("ann's replaced token: %v, want ErrUnknownToken", err)
	}
	if name, err := s.PersonByToken(ctx, "t-ann-3", false); err != nil || name != "ann" {
		t.Errorf("ann's new token = %q, %v", name, err)
	}
	for _, err := range []error{s.ReplaceToken(ctx, "carol", team.TokenHashes{Token: "t-carol", Cookie: "c-carol"}), s.RemovePerson(ctx, "carol")} {
		if !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("a change to carol, who is no person: %v, want ErrNotFound", err)
		}
	}
	must(t, s.RemovePerson(ctx, "bob"))
	if _, err := s.PersonByToken(ctx, "t-bob-1", false); !errors.Is(err, team.ErrUnknownToken) {
		t.Errorf("a removed person's token: %v, want ErrUnknownToken", err)
	}
	if has, err := s.HasPeople(ctx); err != nil || !has {
		t.Errorf("HasPeople with ann = %v, %v", has, err)
	}
}
