package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// writes gives storage.Shared (the port methods whose steps both engines
// share) SQLite's write transactions.
type writes struct{ s *DB }

func (w writes) Write(ctx context.Context, fn func(storage.Tx) error) error {
	return w.s.write(ctx, func(tx *sql.Tx) error { return fn(newSharedTx(tx)) })
}

// sharedTx is an IMMEDIATE transaction, which holds the database's write
// lock: the rows it reads need no lock of their own. The steps whose SQL
// both engines share are its storage.Statements.
type sharedTx struct {
	storage.Statements
	tx *sql.Tx
}

func newSharedTx(tx *sql.Tx) sharedTx { return sharedTx{statements(tx), tx} }

// statements are the steps whose SQL both engines share, on q.
func statements(q querier) storage.Statements { return storage.Statements{SQL: dialect{q}} }

func (t sharedTx) ReadMemory(ctx context.Context, id string) (*memory.Memory, error) {
	m, _, err := getMemory(ctx, t.tx, id)
	return m, err
}

func (t sharedTx) RecordForgotten(ctx context.Context, m *memory.Memory) error {
	_, err := t.tx.ExecContext(ctx, `INSERT INTO forgotten (memory_id, namespace, content_hash, at, author)
		VALUES (?, ?, ?, ?, ?)`, m.ID, m.Namespace, m.ContentHash, formatTime(time.Now()), memory.PrincipalFrom(ctx).Author())
	return err
}

func (t sharedTx) LockPair(context.Context, string, string) error { return nil }

func (t sharedTx) InsertEdge(ctx context.Context, e *memory.Edge, meta string) (int64, error) {
	return insertEdge(ctx, t.tx, e, meta)
}

func (t sharedTx) InsertEntry(ctx context.Context, e *journal.Entry) (int64, error) {
	return insertEntry(ctx, t.tx, e)
}
