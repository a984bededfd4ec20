package postgres_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/postgres/pgtest"
)

// TestServerRestartUnderLoad restarts the database server while eight
// writers store memories through one open store: writes fail while it is
// down, work again afterwards without reopening the store, and every write
// that was acknowledged is there. It restarts the server, so it runs only
// when RECALL_TEST_PG_RESTART names the command that does it, e.g.
//
//	RECALL_TEST_PG_RESTART="su postgres -s /bin/sh -c '/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/recall-pg/data -m fast -w restart'"
func TestServerRestartUnderLoad(t *testing.T) {
	restart := os.Getenv("RECALL_TEST_PG_RESTART")
	if restart == "" {
		t.Skip("set RECALL_TEST_PG_RESTART to the command that restarts the test server (it is restarted)")
	}
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var acked sync.Map
	var failures, afterRestart atomic.Int64
	var failure atomic.Value
	var restarted atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				m := &memory.Memory{ID: fmt.Sprintf("mem_%d_%x", w, i), Content: fmt.Sprintf("writer %d note %d", w, i),
					Type: memory.TypeDecision, Namespace: "global", Importance: 0.5, Confidence: 0.3}
				if _, _, err := db.InsertMemory(ctx, m, nil); err != nil {
					failures.Add(1)
					failure.Store(err.Error())
					time.Sleep(50 * time.Millisecond)
					continue
				}
				acked.Store(m.ID, true)
				if restarted.Load() {
					afterRestart.Add(1)
				}
			}
		})
	}
	time.Sleep(time.Second)
	out, err := exec.Command("sh", "-c", restart).CombinedOutput()
	if err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("restart: %v\n%s", err, out)
	}
	restarted.Store(true)
	time.Sleep(3 * time.Second)
	close(stop)
	wg.Wait()
	if msg, _ := failure.Load().(string); failures.Load() > 0 && !strings.Contains(msg, "is not answering") {
		t.Errorf("a write during the restart failed with %q, want one saying the server is not answering", msg)
	}
	if afterRestart.Load() == 0 {
		t.Fatalf("no write succeeded after the restart (%d failed)", failures.Load())
	}
	n := 0
	acked.Range(func(k, _ any) bool {
		if _, err := db.GetMemory(ctx, k.(string)); err != nil {
			t.Errorf("acknowledged %s lost: %v", k, err)
		}
		n++
		return true
	})
	total, err := db.CountMemories(ctx, memory.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes acknowledged, %d failed during the restart, %d after it; %d rows", n, failures.Load(), afterRestart.Load(), total)
	if total < n {
		t.Fatalf("%d rows for %d acknowledged writes", total, n)
	}
}
