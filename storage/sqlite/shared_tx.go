package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// writes gives storage.Shared (the port methods whose steps both engines
// share) SQLite's write transactions.
type writes struct{ s *DB }

func (w writes) Write(ctx context.Context, fn func(storage.Tx) error) error {
	return w.s.write(ctx, func(tx *sql.Tx) error { return fn(sharedTx{tx}) })
}

// sharedTx is an IMMEDIATE transaction, which holds the database's write
// lock: the rows it reads need no lock of their own.
type sharedTx struct{ tx *sql.Tx }

func (t sharedTx) ReadMemory(ctx context.Context, id string) (*memory.Memory, error) {
	m, _, err := getMemory(ctx, t.tx, id)
	return m, err
}

func (t sharedTx) UpdateMemory(ctx context.Context, id string, fn func(*memory.Memory) error) (*memory.Memory, error) {
	return updateMemory(ctx, t.tx, id, fn)
}

func (t sharedTx) DeleteRow(ctx context.Context, id string, keepGolden bool) (bool, error) {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ? AND NOT (? AND memory_type = ?)`,
		id, keepGolden, string(memory.TypeGoldenRule))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (t sharedTx) AddEvent(ctx context.Context, ev *memory.ValidationEvent) (int64, error) {
	return insertEvent(ctx, t.tx, ev)
}

func (t sharedTx) RecordForgotten(ctx context.Context, m *memory.Memory) error {
	_, err := t.tx.ExecContext(ctx, `INSERT INTO forgotten (memory_id, namespace, content_hash, at, author)
		VALUES (?, ?, ?, ?, ?)`, m.ID, m.Namespace, m.ContentHash, formatTime(time.Now()), memory.PrincipalFrom(ctx).Author())
	return err
}

func (t sharedTx) AddChange(ctx context.Context, c *memory.Change) (int64, error) {
	return writeChange(ctx, t.tx, c)
}

func (t sharedTx) KeepInTrash(ctx context.Context, id string, archived bool) error {
	return toTrash(ctx, t.tx, id, archived)
}

func (t sharedTx) Meta(ctx context.Context, key string) (string, error) {
	return getMeta(ctx, t.tx, key)
}

func (t sharedTx) DropStaged(ctx context.Context) error {
	_, err := t.tx.ExecContext(ctx, `DELETE FROM reindex_vectors`)
	return err
}

func (t sharedTx) SetMeta(ctx context.Context, key, value string) error {
	return setMeta(ctx, t.tx, key, value)
}

func (t sharedTx) CountStaged(ctx context.Context) (int, error) {
	var n int
	err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM reindex_vectors r JOIN memories m ON m.seq = r.seq
		WHERE r.content_hash = m.content_hash`).Scan(&n)
	return n, err
}

func (t sharedTx) LockPair(context.Context, string, string) error { return nil }

func (t sharedTx) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	return notContradiction(ctx, t.tx, a, b)
}

func (t sharedTx) EdgeBetween(ctx context.Context, source, target string, rel memory.Relation, both bool) (int64, error) {
	return edgeBetween(ctx, t.tx, source, target, rel, both)
}

func (t sharedTx) InsertEdge(ctx context.Context, e *memory.Edge, meta string) (int64, error) {
	return insertEdge(ctx, t.tx, e, meta)
}

func (t sharedTx) ProjectInUse(ctx context.Context, ns string) (bool, error) {
	return projectInUse(ctx, t.tx, ns)
}

func (t sharedTx) CountRoots(ctx context.Context, ns string) (int, error) {
	var n int
	err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM project_roots WHERE namespace = ?`, ns).Scan(&n)
	return n, err
}

func (t sharedTx) MoveNamespace(ctx context.Context, from, to string) (int, error) {
	return moveNamespace(ctx, t.tx, from, to)
}

func (t sharedTx) FoldDuplicates(ctx context.Context, from, into string) ([]memory.MergedDuplicate, error) {
	return foldDuplicates(ctx, t.tx, from, into)
}
