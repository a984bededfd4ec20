package memory_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

func TestRememberStoresWithDefaultsAndVector(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	res := e.remember(t, memory.StoreRequest{Content: "  Prefer table-driven tests in Go  "})

	if !memory.LooksLikeID(res.ID) || res.Duplicate || res.EmbeddingPending || res.Warning != "" {
		t.Fatalf("unexpected result %+v", res)
	}
	if res.AutoRelationships == nil {
		t.Fatal("auto_relationships must be an empty list, not null")
	}
	m, err := e.svc.Get(ctx, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "Prefer table-driven tests in Go" || m.Type != memory.TypeSession || m.Namespace != "global" ||
		m.Importance != memory.DefaultImportance || m.Confidence != memory.DefaultConfidence || m.EmbeddingPending {
		t.Fatalf("stored memory %+v", m)
	}
	if m.ContentHash != memory.ContentHash("Prefer table-driven tests in Go") || res.ContentHash != m.ContentHash {
		t.Fatalf("content hash %q / %q", res.ContentHash, m.ContentHash)
	}
	space, err := e.db.EmbeddingSpace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if space.Model != "mxbai-embed-large" || space.Dimension != e.ollama.Dimension() {
		t.Fatalf("embedding space %+v", space)
	}
}

// A duplicate is found before any model call: storing the same note again
// costs no embedding.
func TestRememberDuplicateCostsNoEmbedding(t *testing.T) {
	e := newEnv(t)
	e.remember(t, memory.StoreRequest{Content: "Deploys go through staging first"})
	before := e.ollama.Counts().EmbedCalls
	again := e.remember(t, memory.StoreRequest{Content: "Deploys go through staging first"})
	if !again.Duplicate || again.EmbeddingPending {
		t.Fatalf("duplicate store: %+v", again)
	}
	if after := e.ollama.Counts().EmbedCalls; after != before {
		t.Fatalf("a duplicate store made %d embedding calls, want none", after-before)
	}
}

func TestRememberDeduplicatesPerNamespace(t *testing.T) {
	e := newEnv(t)
	first := e.remember(t, memory.StoreRequest{Content: "Run gofmt before committing", Namespace: "project:recall"})
	again := e.remember(t, memory.StoreRequest{Content: "  Run gofmt before committing\n", Namespace: "project:recall"})
	if !again.Duplicate || again.ID != first.ID {
		t.Fatalf("same content in the same namespace: got %+v, want duplicate of %s", again, first.ID)
	}
	// The Python Recall hashes content as given: another case is another memory.
	cased := e.remember(t, memory.StoreRequest{Content: "run GOFMT before committing", Namespace: "project:recall"})
	if cased.Duplicate {
		t.Fatalf("content differing in case must not be a duplicate (Python's hash), got %+v", cased)
	}
	other := e.remember(t, memory.StoreRequest{Content: "Run gofmt before committing", Namespace: "global"})
	if other.Duplicate || other.ID == first.ID {
		t.Fatalf("another namespace must get its own memory, got %+v", other)
	}
	n, err := e.svc.Count(context.Background(), memory.CountRequest{})
	if err != nil || n != 3 {
		t.Fatalf("count = %d, %v; want 3", n, err)
	}
}

func TestRememberUsesConfiguredDefaults(t *testing.T) {
	db := openStore(t)
	svc := memory.NewService(db, nil, memory.Options{DefaultNamespace: "project:alpha", DefaultImportance: 0.8, DefaultConfidence: 0.4})
	res, err := svc.Remember(context.Background(), memory.StoreRequest{Content: "alpha uses Postgres 16", Type: memory.TypeDecision, Metadata: map[string]any{"source": "review"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Get(context.Background(), res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Namespace != "project:alpha" || m.Importance != 0.8 || m.Confidence != 0.4 || m.Type != memory.TypeDecision || m.Metadata["source"] != "review" {
		t.Fatalf("stored %+v", m)
	}
}

func TestRememberRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name  string
		req   memory.StoreRequest
		field string
	}{
		{"empty content", memory.StoreRequest{Content: ""}, "content"},
		{"blank content", memory.StoreRequest{Content: " \n\t "}, "content"},
		{"huge content", memory.StoreRequest{Content: strings.Repeat("x", memory.MaxContentBytes+1)}, "content"},
		{"invalid utf-8", memory.StoreRequest{Content: "bad \xff byte"}, "content"},
		{"nul byte", memory.StoreRequest{Content: "nul \x00 inside"}, "content"},
		{"unknown type", memory.StoreRequest{Content: "x", Type: "note"}, "memory_type"},
		{"bare namespace", memory.StoreRequest{Content: "x", Namespace: "recall"}, "namespace"},
		{"empty project", memory.StoreRequest{Content: "x", Namespace: "project:"}, "namespace"},
		{"importance above 1", memory.StoreRequest{Content: "x", Importance: ptr(1.5)}, "importance"},
		{"negative importance", memory.StoreRequest{Content: "x", Importance: ptr(-0.1)}, "importance"},
		{"NaN importance", memory.StoreRequest{Content: "x", Importance: ptr(math.NaN())}, "importance"},
		{"infinite importance", memory.StoreRequest{Content: "x", Importance: ptr(math.Inf(1))}, "importance"},
		{"metadata not JSON", memory.StoreRequest{Content: "x", Metadata: map[string]any{"f": func() {}}}, "metadata"},
		{"metadata too big", memory.StoreRequest{Content: "x", Metadata: map[string]any{"blob": strings.Repeat("y", memory.MaxMetadataBytes)}}, "metadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.Remember(context.Background(), c.req)
			wantInvalid(t, err, c.field)
		})
	}
	n, err := e.svc.Count(context.Background(), memory.CountRequest{})
	if err != nil || n != 0 {
		t.Fatalf("bad input stored something: count %d, %v", n, err)
	}
}

func TestRememberWithOllamaDownStoresPending(t *testing.T) {
	e := newEnv(t)
	e.ollama.Close()
	res := e.remember(t, memory.StoreRequest{Content: "Deploying containers requires the staging cluster credentials"})
	if !res.EmbeddingPending || !strings.Contains(res.Warning, "not running") {
		t.Fatalf("want a pending memory with a warning saying Ollama is not running, got %+v", res)
	}
	m, err := e.svc.Get(context.Background(), res.ID)
	if err != nil || !m.EmbeddingPending {
		t.Fatalf("stored memory %+v, %v: want it stored and pending", m, err)
	}
}

func TestRememberWithoutEmbedderStoresPending(t *testing.T) {
	svc := memory.NewService(openStore(t), nil, memory.Options{})
	res, err := svc.Remember(context.Background(), memory.StoreRequest{Content: "keywords only"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.EmbeddingPending || !strings.Contains(res.Warning, "no embedding model") {
		t.Fatalf("got %+v", res)
	}
}

type recordingCurator struct{ seen []*memory.Memory }

func (c *recordingCurator) MemoryStored(_ context.Context, m *memory.Memory) []memory.AutoRelationship {
	c.seen = append(c.seen, m)
	return []memory.AutoRelationship{{SourceID: m.ID, TargetID: "mem_1_ab", Relation: memory.RelationRelatesTo, Confidence: 0.8}}
}

func TestRememberTellsTheCuratorOfNewMemoriesOnly(t *testing.T) {
	e := newEnv(t)
	c := &recordingCurator{}
	e.svc.SetCurator(c)
	res := e.remember(t, memory.StoreRequest{Content: "Cache invalidation runs nightly"})
	if len(c.seen) != 1 || c.seen[0].ID != res.ID {
		t.Fatalf("curator saw %v, want the new memory", c.seen)
	}
	if len(res.AutoRelationships) != 1 || res.AutoRelationships[0].SourceID != res.ID {
		t.Fatalf("auto relationships %+v", res.AutoRelationships)
	}
	dup := e.remember(t, memory.StoreRequest{Content: "Cache invalidation runs nightly"})
	if !dup.Duplicate || len(c.seen) != 1 || len(dup.AutoRelationships) != 0 {
		t.Fatalf("a duplicate must not be curated again: %+v, curator calls %d", dup, len(c.seen))
	}
}

func TestGetUnknownAndMalformedIDs(t *testing.T) {
	e := newEnv(t)
	_, err := e.svc.Get(context.Background(), "mem_1700000000000_deadbeef")
	if !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	_, err = e.svc.Get(context.Background(), "not an id")
	wantInvalid(t, err, "memory_id")
}

// staleSpaceStore reports an embedding space that another process has since
// replaced, as a store read a moment before a reindex would.
type staleSpaceStore struct {
	*sqlite.DB
	stale memory.EmbeddingSpace
}

func (s staleSpaceStore) EmbeddingSpace(context.Context) (memory.EmbeddingSpace, error) {
	return s.stale, nil
}

func TestRememberKeepsTheMemoryWhenTheSpaceChangesUnderIt(t *testing.T) {
	db := openStore(t)
	ctx := context.Background()
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: ollamatest.DefaultEmbedModel, Dimension: 64}); err != nil {
		t.Fatal(err)
	}
	srv := ollamatest.New(t)
	store := staleSpaceStore{DB: db, stale: memory.EmbeddingSpace{Model: ollamatest.DefaultEmbedModel, Dimension: srv.Dimension()}}
	svc := memory.NewService(store, newEmbedder(t, srv.URL(), ollamatest.DefaultEmbedModel), memory.Options{})
	res, err := svc.Remember(ctx, memory.StoreRequest{Content: "written during a reindex"})
	if err != nil {
		t.Fatalf("the memory must be kept: %v", err)
	}
	if !res.EmbeddingPending || !strings.Contains(res.Warning, "dimension") {
		t.Fatalf("want pending with a warning, got %+v", res)
	}
	if m, err := db.GetMemory(ctx, res.ID); err != nil || m.Content != "written during a reindex" {
		t.Fatalf("stored %+v, %v", m, err)
	}
}

// TestContentHashIsPythons pins the hash to the Python Recall's
// hashlib.sha256(content.encode("utf-8")).hexdigest()[:16].
func TestContentHashIsPythons(t *testing.T) {
	for content, want := range map[string]string{
		"User prefers dark mode": "cb41542b3bdcaddb",
		"Ünïcode — ok":           "ccc6782b98e6fd7f",
	} {
		if got := memory.ContentHash(content); got != want {
			t.Errorf("ContentHash(%q) = %s, want %s", content, got, want)
		}
	}
}
