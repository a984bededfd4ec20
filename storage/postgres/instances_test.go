package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
	"github.com/recall-mcp/recall/validation"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// instance is one Recall server on the shared database: its own pool, memory
// service and curation service.
type instance struct {
	db  *postgres.DB
	mem *memory.Service
	val *validation.Service
}

func openInstance(t *testing.T, url string, client *embedding.Client) *instance {
	t.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mem := memory.NewService(db, client, memory.Options{Logger: quiet})
	val := validation.New(db, mem, client, client, validation.Options{Logger: quiet,
		Jobs: jobs.New(db, jobs.Options{Logger: quiet})})
	return &instance{db: db, mem: mem, val: val}
}

// TestTwoInstancesJudgeOnePair: two servers on one database judge the same
// pair of memories at once, each from its own side (A against B, B against
// A), then give opposite verdicts on the contradiction at once. Each time the
// database holds one outcome: one contradicts edge, then one verdict with its
// change log, the other refused.
func TestTwoInstancesJudgeOnePair(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := context.Background()
	fake := ollamatest.New(t)
	// Every pair of the test contradicts itself (Redis against Memcached).
	fake.SetChat(func(req api.ChatRequest) (string, error) {
		prompt := req.Messages[len(req.Messages)-1].Content
		if strings.Contains(prompt, "Redis") && strings.Contains(prompt, "Memcached") {
			return `{"contradicts": true, "confidence": 0.9, "reason": "two caches"}`, nil
		}
		return `{"contradicts": false, "confidence": 0.9, "reason": "compatible"}`, nil
	})
	client, err := embedding.New(embedding.Options{Host: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	one, two := openInstance(t, url, client), openInstance(t, url, client)
	threshold := 0.05
	const pairs = 12
	for i := range pairs {
		ns := fmt.Sprintf("project:pair-%d", i)
		a, err := one.mem.Remember(ctx, memory.StoreRequest{Content: "the build cache of service " + ns + " lives in Redis", Type: memory.TypeDecision, Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		b, err := two.mem.Remember(ctx, memory.StoreRequest{Content: "the build cache of service " + ns + " lives in Memcached", Type: memory.TypeDecision, Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}

		// Both judge at once, each from its own memory.
		var wg sync.WaitGroup
		var results [2]*validation.DetectResult
		var errs [2]error
		start := make(chan struct{})
		for k, side := range []struct {
			in *instance
			id string
		}{{one, a.ID}, {two, b.ID}} {
			wg.Go(func() {
				<-start
				results[k], errs[k] = side.in.val.DetectContradictions(ctx, validation.DetectRequest{MemoryID: side.id, SimilarityThreshold: &threshold})
			})
		}
		close(start)
		wg.Wait()
		for k := range errs {
			if errs[k] != nil {
				t.Fatalf("pair %d, instance %d: %v", i, k+1, errs[k])
			}
			if len(results[k].Contradictions) != 1 {
				t.Fatalf("pair %d, instance %d found %+v, want the one contradiction", i, k+1, results[k])
			}
		}
		edges, err := one.db.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}, Relations: []memory.Relation{memory.RelationContradicts}})
		if err != nil {
			t.Fatal(err)
		}
		if len(edges) != 1 {
			t.Fatalf("pair %d: %d contradicts edges after two judgments at once, want 1: %+v", i, len(edges), edges)
		}
		if created := results[0].EdgesCreated + results[1].EdgesCreated; created != 1 {
			t.Fatalf("pair %d: the instances report %d edges created, want 1", i, created)
		}

		// Opposite verdicts at once, from both instances and a third door.
		verdicts := []struct {
			in         *instance
			resolution string
		}{{one, memory.ResolveASupersedesB}, {two, memory.ResolveBSupersedesA}, {two, memory.ResolveBothHold}, {one, memory.ResolveNotConflict}}
		verrs := make([]error, len(verdicts))
		start = make(chan struct{})
		for k, v := range verdicts {
			wg.Go(func() {
				<-start
				_, verrs[k] = v.in.mem.ResolveContradiction(ctx, memory.ResolveRequest{EdgeID: edges[0].ID, Resolution: v.resolution, Source: "test"})
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for k, err := range verrs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("pair %d: verdicts %s and %s both applied", i, verdicts[won].resolution, verdicts[k].resolution)
			case err == nil:
				won = k
			case !errors.Is(err, memory.ErrInvalid) && !errors.Is(err, memory.ErrNotFound):
				t.Fatalf("pair %d: verdict %s: %v, want applied, or refused as already resolved", i, verdicts[k].resolution, err)
			}
		}
		if won < 0 {
			t.Fatalf("pair %d: every verdict refused: %v", i, verrs)
		}
		all, err := one.db.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{a.ID}})
		if err != nil {
			t.Fatal(err)
		}
		// A and B as the verdicts name them: the contradiction's source and target.
		src, dst := edges[0].SourceID, edges[0].TargetID
		var rels []string
		for _, e := range all {
			rels = append(rels, fmt.Sprintf("%s %s->%s", e.Relation, short(e.SourceID, src, dst), short(e.TargetID, src, dst)))
		}
		want := map[string]string{
			memory.ResolveASupersedesB: "contradicts A->B, supersedes A->B",
			memory.ResolveBSupersedesA: "contradicts A->B, supersedes B->A",
			memory.ResolveBothHold:     "relates_to A->B",
			memory.ResolveNotConflict:  "",
		}[verdicts[won].resolution]
		if got := strings.Join(rels, ", "); got != want {
			t.Fatalf("pair %d: %s won, edges %q, want %q", i, verdicts[won].resolution, got, want)
		}
		for _, id := range []string{a.ID, b.ID} {
			log, err := two.db.Changes(ctx, memory.ChangeQuery{MemoryID: id})
			if err != nil {
				t.Fatal(err)
			}
			var verdictsLogged int
			for _, c := range log {
				if c.RelatedID != "" {
					verdictsLogged++
				}
			}
			if verdictsLogged != 1 {
				t.Fatalf("pair %d: %s's change log holds %d verdicts, want 1: %+v", i, id, verdictsLogged, log)
			}
		}
	}
}

func short(id, a, b string) string {
	switch id {
	case a:
		return "A"
	case b:
		return "B"
	}
	return id
}

// TestAgreementSharedBetweenInstances: the fusion's agreement record is the
// database's, not a process's: searches counted by two servers at once all
// count, and a third sees the sum.
func TestAgreementSharedBetweenInstances(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := context.Background()
	var dbs []*postgres.DB
	for range 3 {
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	var keeper memory.AgreementKeeper = dbs[0]
	if a, err := keeper.VectorAgreement(ctx); err != nil || a != (memory.Agreement{}) {
		t.Fatalf("a fresh database's record: %+v, %v", a, err)
	}
	var mu sync.Mutex
	counted := 0
	var wg sync.WaitGroup
	for _, db := range dbs[:2] {
		for range 4 {
			wg.Go(func() {
				for range 10 {
					if err := db.RecordVectorAgreement(ctx, memory.AgreementSearch{Matched: true}); err == nil {
						mu.Lock()
						counted++
						mu.Unlock()
					}
				}
			})
		}
	}
	wg.Wait()
	if counted < 40 {
		t.Logf("%d of 80 searches counted (the rest gave up behind the lock: best effort)", counted)
	}
	var want memory.Agreement
	for range counted {
		want = want.Add(memory.AgreementSearch{Matched: true})
	}
	got, err := dbs[2].VectorAgreement(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := got.Searches - want.Searches; counted == 0 || diff > 1e-9 || diff < -1e-9 || got.Matched != got.Searches {
		t.Fatalf("record seen by a third server: %+v, want %+v (%d searches counted)", got, want, counted)
	}
	// A new embedding space starts the record afresh, for every server.
	if err := dbs[1].ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "another", Dimension: 4}); err != nil {
		t.Fatal(err)
	}
	if a, err := dbs[0].VectorAgreement(ctx); err != nil || a != (memory.Agreement{}) {
		t.Fatalf("after a new embedding space: %+v, %v", a, err)
	}
	// A batch of searches counts in order, as one by one.
	batch := []memory.AgreementSearch{{Matched: true}, {Lead: memory.VectorLead}, {Lead: memory.KeywordLead}}
	if err := dbs[1].RecordVectorAgreement(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	want = memory.Agreement{}.Add(batch[0]).Add(batch[1]).Add(batch[2])
	if a, err := dbs[2].VectorAgreement(ctx); err != nil || a != want {
		t.Fatalf("after a batch of three: %+v, %v, want %+v", a, err, want)
	}
}

// TestConnectionDroppedMidTransaction: the server ends a store's connection
// in the middle of a memory's transaction (the row written, its vector not
// yet). The caller gets an error saying the server is not answering, nothing
// of the memory is stored, and storing it again works.
func TestConnectionDroppedMidTransaction(t *testing.T) {
	url := pgtest.Schema(t)
	ctx := context.Background()
	app := fmt.Sprintf("recall_drop_test_%d", time.Now().UnixNano())
	db, err := postgres.Open(ctx, url+"&application_name="+app)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)

	// Hold the embedding space's rows: the first vector of a fresh database
	// waits on them after its memory row is written.
	holder, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	hold, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Exec(ctx, `SELECT 1 FROM meta WHERE key IN ('embedding_model', 'embedding_dimension') FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	m := &memory.Memory{ID: memory.NewID(time.Now()), Content: "deploys go out on Tuesdays", Type: memory.TypeDecision,
		Namespace: memory.GlobalNamespace, Importance: 0.5, Confidence: 0.3}
	vec := []float32{0.1, 0.2, 0.3, 0.4}
	done := make(chan error, 1)
	go func() {
		_, _, err := db.InsertMemory(ctx, m, vec)
		done <- err
	}()
	var pid int32
	for i := 0; pid == 0; i++ {
		if i == 500 {
			t.Fatal("the store's transaction never reached the held rows")
		}
		err := admin.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&pid)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var inTx string
	if err := admin.QueryRow(ctx, `SELECT state FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&inTx); err != nil || inTx != "active" {
		t.Fatalf("the store's backend is %q (%v), want active in its transaction", inTx, err)
	}
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "not answering") {
		t.Fatalf("the store's error: %v, want one saying the server is not answering", err)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM memories`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("after the dropped transaction: %d memories (%v), want none", rows, err)
	}
	got, created, err := db.InsertMemory(ctx, m, vec)
	if err != nil || !created {
		t.Fatalf("storing it again: created %v, %v", created, err)
	}
	if got.EmbeddingPending {
		t.Fatal("stored again without its vector")
	}
	// The vector is stored, staged for the index or in it already.
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM memories WHERE coalesce(embedding_staged, embedding) IS NOT NULL`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("after storing again: %d memories with a vector (%v), want 1", rows, err)
	}
}
