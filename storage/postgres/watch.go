package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-mcp/recall/memory"
)

// watch listens for the change notifications on a connection of its own, so
// a viewer served by one server sees what another server wrote at once,
// without reading tables to find out.
type watch struct {
	pool *pgxpool.Pool
	conn *pgxpool.Conn // nil after a lost connection, until listening again
}

// Watch starts listening for changes to memories and edges.
func (s *DB) Watch(ctx context.Context) (memory.Watcher, error) {
	w := &watch{pool: s.pool}
	if err := w.listen(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *watch) listen(ctx context.Context) error {
	conn, err := w.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if _, err := conn.Exec(ctx, `LISTEN `+notifyChannel); err != nil {
		conn.Release()
		return fmt.Errorf("watch: %w", err)
	}
	w.conn = conn
	return nil
}

// Changed reports whether a change was announced since the last call. After
// a lost connection (the server restarted) it listens again and reports a
// change, as some may have been missed meanwhile.
func (w *watch) Changed(ctx context.Context) (bool, error) {
	if w.conn == nil {
		if err := w.listen(ctx); err != nil {
			return false, err
		}
		return true, nil
	}
	changed := false
	for {
		wait, cancel := context.WithTimeout(ctx, time.Millisecond)
		_, err := w.conn.Conn().WaitForNotification(wait)
		cancel()
		if err == nil {
			changed = true
			continue
		}
		if ctx.Err() != nil {
			return changed, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) && !w.conn.Conn().IsClosed() {
			return changed, nil // nothing more announced
		}
		// The connection is gone: drop it and listen again next time.
		w.conn.Hijack().Close(context.Background())
		w.conn = nil
		return true, fmt.Errorf("watch: %w", err)
	}
}

// ChangedSince reads what changed (storage.Statements.ChangedSince).
func (w *watch) ChangedSince(ctx context.Context, since time.Time, limit int) (*memory.Changes, error) {
	return statements(w.pool).ChangedSince(ctx, since, limit)
}

// Close stops listening.
func (w *watch) Close() error {
	if w.conn != nil {
		// The listening session is not handed back to the pool.
		w.conn.Hijack().Close(context.Background())
		w.conn = nil
	}
	return nil
}
