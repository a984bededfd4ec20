package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
)

// QueueSummary records that a session wants a summary. One job per session: a
// later Stop while it waits moves its turn anchor and reason. It is a hook
// write: behind another writer it may be spooled (see spooled.go).
func (s *DB) QueueSummary(ctx context.Context, sessionID, reason, turnID string) error {
	if sessionID == "" {
		return fmt.Errorf("queue summary: session_id is empty: want the session id Claude Code sent")
	}
	r := &summaryRequest{SessionID: sessionID, Reason: reason, TurnID: turnID, At: time.Now().UTC()}
	return s.hookWrite(ctx, spoolSummary, r, func(tx *sql.Tx) error { return queueSummary(ctx, tx, r) })
}

// summaryRequest is one call of QueueSummary, as the spool keeps it.
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
	_, err := tx.ExecContext(ctx, `INSERT INTO summary_jobs (session_id, reason, turn_id, created_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET reason = excluded.reason,
			turn_id = CASE WHEN excluded.turn_id != '' THEN excluded.turn_id ELSE turn_id END`,
		r.SessionID, r.Reason, r.TurnID, formatTime(orNow(r.At, time.Now())))
	if err != nil {
		return fmt.Errorf("queue summary of %s: %w", r.SessionID, err)
	}
	return nil
}

// ClaimSummary leases the oldest summary job nobody holds.
func (s *DB) ClaimSummary(ctx context.Context, lease time.Duration) (*journal.SummaryJob, error) {
	now := time.Now()
	var job *journal.SummaryJob
	err := s.write(ctx, func(tx *sql.Tx) error {
		var j journal.SummaryJob
		var created string
		err := tx.QueryRowContext(ctx, `UPDATE summary_jobs SET leased_until = ?, attempts = attempts + 1
			WHERE session_id = (SELECT session_id FROM summary_jobs WHERE leased_until = '' OR leased_until < ?
				ORDER BY created_at LIMIT 1)
			RETURNING session_id, reason, turn_id, attempts, created_at`,
			formatTime(now.Add(lease)), formatTime(now)).Scan(&j.SessionID, &j.Reason, &j.TurnID, &j.Attempts, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("claim summary job: %w", err)
		}
		if j.CreatedAt, err = parseTime(created); err != nil {
			return err
		}
		job = &j
		return nil
	})
	return job, err
}

// FinishSummary removes a job, or records its error and releases it.
func (s *DB) FinishSummary(ctx context.Context, sessionID, errMsg string, retry bool) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if errMsg != "" && retry {
			_, err = tx.ExecContext(ctx, `UPDATE summary_jobs SET last_error = ?, leased_until = '' WHERE session_id = ?`, errMsg, sessionID)
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM summary_jobs WHERE session_id = ?`, sessionID)
		}
		if err != nil {
			return fmt.Errorf("finish summary job of %s: %w", sessionID, err)
		}
		return nil
	})
}

// SummaryProgress reports the last entry summarised and the calls spent.
func (s *DB) SummaryProgress(ctx context.Context, sessionID string) (int64, int, error) {
	var through int64
	var calls int
	err := s.db.QueryRowContext(ctx, `SELECT summarized_through, model_calls FROM capture_sessions WHERE session_id = ?`,
		sessionID).Scan(&through, &calls)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read summary progress of %s: %w", sessionID, err)
	}
	return through, calls, nil
}

// RecordSummary stores a summary, advances the session's progress and counts
// the call, in one transaction.
func (s *DB) RecordSummary(ctx context.Context, e *journal.Entry, through int64) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = insertEntry(ctx, tx, e); err != nil {
			return err
		}
		return countCall(ctx, tx, e.SessionID, through)
	})
	return id, err
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
