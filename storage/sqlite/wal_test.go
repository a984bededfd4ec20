package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// walSoakEnv sets how long TestWALStaysBoundedUnderLoad runs; the default is
// short enough for CI. The figure in README comes from
//
//	RECALL_WAL_SOAK=60s go test -tags sqlite_fts5 -run TestWALStaysBoundedUnderLoad -v ./storage/
const walSoakEnv = "RECALL_WAL_SOAK"

// walLimit is the WAL size the soak must stay under.
const walLimit = 64 << 20

// TestWALStaysBoundedUnderLoad runs 8 writers and 8 readers on one database
// file, as many editor windows and hooks do, and checks that the WAL does not
// grow without bound: readers that never pause starve SQLite's automatic
// checkpoints, which cannot restart the WAL while any reader uses it.
func TestWALStaysBoundedUnderLoad(t *testing.T) {
	soak := 3 * time.Second
	if v := os.Getenv(walSoakEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s=%s: %v", walSoakEnv, v, err)
		}
		soak = d
	}
	if testing.Short() {
		soak = time.Second
	}
	ctx := context.Background()
	db := openTest(t)
	const dim = 1024
	if err := db.ResetEmbeddings(ctx, memory.EmbeddingSpace{Model: "soak", Dimension: dim}); err != nil {
		t.Fatal(err)
	}
	stop := time.Now().Add(soak)
	var writes, reads, maxWAL atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; time.Now().Before(stop); i++ {
				content := fmt.Sprintf("writer %d memory %d: %s", w, i, strings.Repeat("the WAL MUST stay bounded ", 20))
				m := &memory.Memory{
					ID: memory.NewID(time.Now()), Content: content, ContentHash: memory.ContentHash(content),
					Type: memory.TypePattern, Namespace: "global", Importance: 0.5, Confidence: 0.3,
				}
				if _, _, err := db.InsertMemory(ctx, m, unitVector(r, dim)); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
				writes.Add(1)
				if n := walSize(db.Path()); n > maxWAL.Load() {
					maxWAL.Store(n)
				}
			}
		})
	}
	for rd := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(rd), 2))
			for time.Now().Before(stop) {
				if _, err := db.SearchKeyword(ctx, "bounded memory", memory.Filter{}, 10); err != nil {
					errs <- fmt.Errorf("reader %d: %w", rd, err)
					return
				}
				if _, err := db.ListMemories(ctx, memory.ListQuery{Limit: 50}); err != nil {
					errs <- fmt.Errorf("reader %d: %w", rd, err)
					return
				}
				if rd%4 == 0 {
					if _, err := db.SearchVector(ctx, unitVector(r, dim), memory.Filter{}, 5); err != nil {
						errs <- fmt.Errorf("reader %d: %w", rd, err)
						return
					}
				}
				reads.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	dbSize := fileSize(db.Path())
	t.Logf("%v: %d writes, %d reads; database %.1f MB, WAL now %.1f MB, at most %.1f MB",
		soak, writes.Load(), reads.Load(), mb(dbSize), mb(walSize(db.Path())), mb(maxWAL.Load()))
	if maxWAL.Load() > walLimit {
		t.Errorf("the WAL reached %.1f MB, over %d MB", mb(maxWAL.Load()), walLimit>>20)
	}
}

func walSize(dbPath string) int64 { return fileSize(dbPath + "-wal") }

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
