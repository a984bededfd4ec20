package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Opening an up-to-date database only reads, so it does not queue behind a
// writer: a hook fired while a server holds a write transaction still opens.
func TestOpenDoesNotWaitForAWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	writer, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	conn, err := writer.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)

	// Well under the busy timeout: an Open that took the write lock would fail.
	openCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	reader, err := Open(openCtx, path)
	if err != nil {
		t.Fatalf("Open while another connection writes: %v", err)
	}
	defer reader.Close()
	if n, err := reader.CountMemories(ctx, memory.Filter{}); err != nil || n != 0 {
		t.Fatalf("count while another connection writes: %d, %v", n, err)
	}
}
