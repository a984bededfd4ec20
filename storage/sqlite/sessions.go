package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// UpsertSession records a session's start or end. A second call for the same id
// fills in what it brings (end time and reason, cwd, namespace) and keeps the
// first start time. It is a hook write: behind another writer it may be
// spooled (see spooled.go).
func (s *DB) UpsertSession(ctx context.Context, sess *memory.Session) error {
	if sess == nil || sess.ID == "" {
		return memory.Invalidf("session_id", `""`, "a session id")
	}
	rec := *sess
	rec.StartedAt = orNow(sess.StartedAt, time.Now())
	return s.hookWrite(ctx, spoolSession, &rec, func(tx *sql.Tx) error { return upsertSession(ctx, tx, &rec) })
}

func upsertSession(ctx context.Context, tx *sql.Tx, sess *memory.Session) error {
	if sess.ID == "" {
		return memory.Invalidf("session_id", `""`, "a session id")
	}
	ended := ""
	if sess.EndedAt != nil {
		ended = formatTime(*sess.EndedAt)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, namespace, cwd, started_at, ended_at, end_reason)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			namespace  = CASE WHEN excluded.namespace != '' THEN excluded.namespace ELSE namespace END,
			cwd        = CASE WHEN excluded.cwd != '' THEN excluded.cwd ELSE cwd END,
			started_at = min(started_at, excluded.started_at),
			ended_at   = CASE WHEN excluded.ended_at != '' THEN excluded.ended_at ELSE ended_at END,
			end_reason = CASE WHEN excluded.end_reason != '' THEN excluded.end_reason ELSE end_reason END`,
		sess.ID, sess.Namespace, sess.Cwd, formatTime(orNow(sess.StartedAt, time.Now())), ended, sess.EndReason)
	if err != nil {
		return fmt.Errorf("upsert session %s: %w", sess.ID, err)
	}
	return nil
}
