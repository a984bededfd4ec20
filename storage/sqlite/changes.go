package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// Watch notices commits to the database from any connection: this process's
// pool, another Recall process, a hook or the sqlite3 shell. It holds one
// connection of its own, on which PRAGMA data_version changes whenever another
// connection has committed since the last look, an in-memory check with no
// file read.
type Watch struct {
	conn    *sql.Conn
	version int64
}

// Watch opens a watch; Close gives its connection back.
func (s *DB) Watch(ctx context.Context) (memory.Watcher, error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := &Watch{conn: conn}
	if _, err := w.Changed(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return w, nil
}

// Changed reports whether another connection committed since the last call
// (since Watch for the first).
func (w *Watch) Changed(ctx context.Context) (bool, error) {
	var v int64
	if err := w.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return false, fmt.Errorf("watch: %w", err)
	}
	changed := v != w.version
	w.version = v
	return changed, nil
}

// Close releases the watch's connection.
func (w *Watch) Close() error { return w.conn.Close() }

// changedSinceQuery is the query of ChangedSince (its plan is checked).
const changedSinceQuery = storage.ChangedSinceQuery

// ChangedSince lists the memories updated at or after since (at most limit)
// and sums up the memories, edges and journal entries
// (storage.Statements.ChangedSince), on the watch's connection.
func (w *Watch) ChangedSince(ctx context.Context, since time.Time, limit int) (*memory.Changes, error) {
	return statements(w.conn).ChangedSince(ctx, since, limit)
}
