package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// writes gives storage.Shared (the port methods whose steps both engines
// share) PostgreSQL's transactions; each commit is announced to the viewers
// of every server.
type writes struct{ s *DB }

func (w writes) Write(ctx context.Context, fn func(storage.Tx) error) error {
	return w.s.writeChanged(ctx, func(tx pgx.Tx) error { return fn(newSharedTx(tx)) })
}

// sharedTx is a transaction that locks the rows it reads to change them
// (FOR UPDATE): two servers changing one memory take turns. The steps whose
// SQL both engines share are its storage.Statements.
type sharedTx struct {
	storage.Statements
	tx pgx.Tx
}

func newSharedTx(tx pgx.Tx) sharedTx { return sharedTx{statements(tx), tx} }

// statements are the steps whose SQL both engines share, on q.
func statements(q querier) storage.Statements { return storage.Statements{SQL: dialect{q}} }

func (t sharedTx) ReadMemory(ctx context.Context, id string) (*memory.Memory, error) {
	m, _, err := getMemory(ctx, t.tx, id, true)
	return m, err
}

func (t sharedTx) RecordForgotten(ctx context.Context, m *memory.Memory) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO forgotten (memory_id, namespace, content_hash, at, author)
		VALUES ($1, $2, $3, now(), $4)`, m.ID, m.Namespace, m.ContentHash, memory.AuthorOr(ctx, ""))
	return err
}

func (t sharedTx) LockPair(ctx context.Context, a, b string) error { return lockPair(ctx, t.tx, a, b) }

func (t sharedTx) InsertEdge(ctx context.Context, e *memory.Edge, meta string) (int64, error) {
	return insertEdge(ctx, t.tx, e, meta)
}

func (t sharedTx) InsertEntry(ctx context.Context, e *journal.Entry) (int64, error) {
	return insertEntry(ctx, t.tx, e)
}
