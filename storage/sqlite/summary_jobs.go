package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
)

// QueueSummary records that a session wants a summary: a job of kind summary
// in the one job queue. One job per session: a later Stop while it waits is
// the same job (the summary anchors to the session's last entry). It is a
// hook write: behind another writer it may be spooled (see spooled.go).
func (s *DB) QueueSummary(ctx context.Context, sessionID, reason, turnID string) error {
	if sessionID == "" {
		return fmt.Errorf("queue summary: session_id is empty: want the session id Claude Code sent")
	}
	r := &summaryRequest{SessionID: sessionID, Reason: reason, TurnID: turnID, At: time.Now().UTC()}
	return s.hookWrite(ctx, spoolSummary, r, func(tx *sql.Tx) error { return queueSummary(ctx, tx, r) })
}

// summaryRequest is one call of QueueSummary, as the spool keeps it (reason
// and turn are kept for spool files of earlier versions; the job needs neither).
type summaryRequest struct {
	SessionID string    `json:"session_id"`
	Reason    string    `json:"reason"`
	TurnID    string    `json:"turn_id,omitempty"`
	At        time.Time `json:"at"`
}

func queueSummary(ctx context.Context, tx *sql.Tx, r *summaryRequest) error {
	if r.SessionID == "" {
		return fmt.Errorf("queue summary: session_id is empty: want the session id Claude Code sent")
	}
	if _, err := enqueueJob(ctx, tx, r.SessionID, journal.SummaryJobKind, orNow(r.At, time.Now())); err != nil {
		return fmt.Errorf("queue summary of %s: %w", r.SessionID, err)
	}
	return nil
}

// SetDraftSummary records the memory holding a session's extractive summary.
func (s *DB) SetDraftSummary(ctx context.Context, sessionID, memoryID string) error {
	return s.write(ctx, func(tx *sql.Tx) error { return statements(tx).SetDraftSummary(ctx, sessionID, memoryID) })
}

// CountModelCall counts a chat call that produced no summary.
func (s *DB) CountModelCall(ctx context.Context, sessionID string) error {
	return s.write(ctx, func(tx *sql.Tx) error { return countCall(ctx, tx, sessionID, 0) })
}

func countCall(ctx context.Context, tx *sql.Tx, sessionID string, through int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO capture_sessions (session_id, summarized_through, model_calls)
		VALUES (?, ?, 1)
		ON CONFLICT (session_id) DO UPDATE SET model_calls = model_calls + 1,
			summarized_through = max(summarized_through, excluded.summarized_through)`, sessionID, through)
	if err != nil {
		return fmt.Errorf("count summary call of %s: %w", sessionID, err)
	}
	return nil
}
