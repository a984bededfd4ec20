package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

// TestOpenMigratesOnceUnderManyStarts opens one fresh database from eight
// goroutines at once, as eight servers starting together would: every open
// succeeds and the schema is built once.
func TestOpenMigratesOnceUnderManyStarts(t *testing.T) {
	u := pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := postgres.Open(context.Background(), u)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.SchemaVersion != postgres.SchemaVersion() {
		t.Fatalf("schema version %d, want %d", st.SchemaVersion, postgres.SchemaVersion())
	}
}

// TestOpenRefusesNewerSchema: a database written by a newer Recall is left
// alone, with an error that says to upgrade.
func TestOpenRefusesNewerSchema(t *testing.T) {
	u := pgtest.Schema(t)
	db, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().Exec(context.Background(), `UPDATE meta SET value = $1 WHERE key = 'schema_version'`,
		fmt.Sprint(postgres.SchemaVersion()+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = postgres.Open(context.Background(), u)
	if err == nil || !strings.Contains(err.Error(), "newer than this recall supports") || !strings.Contains(err.Error(), "upgrade recall") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

// TestOpenBadInput: each mistake gets one sentence saying what is wrong and
// what to do, never a hang.
func TestOpenBadInput(t *testing.T) {
	base := pgtest.URL(t)
	cc, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url, want string
	}{
		{"postgres://%zz", "does not parse"},
		{fmt.Sprintf("postgres://%s@%s:%d/recall_no_such_db?sslmode=disable", cc.User, cc.Host, cc.Port), "does not exist: create it"},
		{fmt.Sprintf("postgres://%s@%s:1/recall?sslmode=disable&connect_timeout=2", cc.User, cc.Host), "cannot reach PostgreSQL"},
	} {
		_, err := postgres.Open(context.Background(), c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%s) = %v, want an error saying %q", c.url, err, c.want)
		}
	}
}

// TestDedupAcrossInstances stores the same texts from four stores (four
// servers) at once: each text is stored once, and every store is told the
// same id.
func TestDedupAcrossInstances(t *testing.T) {
	u := pgtest.Schema(t)
	ctx := context.Background()
	var dbs []*postgres.DB
	for i := 0; i < 4; i++ {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	const texts = 50
	ids := make([][]string, len(dbs))
	var wg sync.WaitGroup
	for i, db := range dbs {
		ids[i] = make([]string, texts)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < texts; j++ {
				m := &memory.Memory{ID: memory.NewID(time.Now()), Content: fmt.Sprintf("shared text %d", j),
					Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3}
				got, _, err := db.InsertMemory(ctx, m, nil)
				if err != nil {
					t.Error(err)
					return
				}
				ids[i][j] = got.ID
			}
		}()
	}
	wg.Wait()
	n, err := dbs[0].CountMemories(ctx, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if n != texts {
		t.Fatalf("%d memories for %d texts", n, texts)
	}
	for j := 0; j < texts; j++ {
		for i := 1; i < len(dbs); i++ {
			if ids[i][j] != ids[0][j] {
				t.Fatalf("text %d: instance %d got %s, instance 0 got %s", j, i, ids[i][j], ids[0][j])
			}
		}
	}
}

// TestJobsClaimedOnceAcrossInstances: four stores claiming the same queue at
// once never hand one job to two workers.
func TestJobsClaimedOnceAcrossInstances(t *testing.T) {
	u := pgtest.Schema(t)
	ctx := context.Background()
	first, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	const jobs = 200
	for j := 0; j < jobs; j++ {
		m := &memory.Memory{ID: memory.NewID(time.Now()), Content: fmt.Sprintf("job text %d", j),
			Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3}
		if _, _, err := first.InsertMemory(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := first.EnqueueJob(ctx, m.ID, "curate"); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		db, err := postgres.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					got, err := db.ClaimJobs(ctx, []string{"curate"}, 3, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, j := range got {
						seen[j.ID]++
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(seen) != jobs {
		t.Fatalf("%d jobs claimed of %d", len(seen), jobs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("job %d claimed %d times", id, n)
		}
	}
}
