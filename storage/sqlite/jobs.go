package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// EnqueueJob records pending work of kind about subject (a memory id for
// relate, a session id for summary) and returns the job id; the same (subject,
// kind) already pending returns the pending job's id. Deleting a memory
// deletes its pending jobs.
func (s *DB) EnqueueJob(ctx context.Context, subject, kind string) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = enqueueJob(ctx, tx, subject, kind, time.Now())
		return err
	})
	return id, err
}

func enqueueJob(ctx context.Context, tx *sql.Tx, subject, kind string, at time.Time) (int64, error) {
	if err := storage.CheckJob(subject, kind); err != nil {
		return 0, err
	}
	var id int64
	// A job already pending is the same work; one that is running now may
	// have read its subject before this change, so it runs once more after.
	err := tx.QueryRowContext(ctx, `INSERT INTO jobs (kind, subject, created_at)
		VALUES (?, ?, ?) ON CONFLICT (kind, subject) WHERE failed_at = ''
		DO UPDATE SET rerun = rerun OR (leased_until > ?)
		RETURNING id`,
		kind, subject, formatTime(at), formatTime(at)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("enqueue %s job: %w", kind, err)
	}
	return id, nil
}

// ClaimJobs leases up to limit due jobs of kinds that nobody holds (never
// leased, released, or whose lease ran out). Fresh jobs come first, oldest
// first; jobs waiting for a retry follow in the order they became due, so a
// job that keeps failing never holds up the rest. Jobs of other kinds stay for
// a process that runs them. Claiming counts as an attempt, so Job.Attempts
// includes the current one.
func (s *DB) ClaimJobs(ctx context.Context, kinds []string, limit int, lease time.Duration) ([]memory.Job, error) {
	if ok, err := storage.CheckClaim(kinds, limit, lease); !ok {
		return nil, err
	}
	now := formatTime(time.Now())
	until := formatTime(time.Now().Add(lease))
	kindSQL := "kind IN (" + strings.TrimSuffix(strings.Repeat("?,", len(kinds)), ",") + ")"
	due := `failed_at = '' AND (leased_until = '' OR leased_until < ?) AND run_after <= ? AND ` + kindSQL
	dueArgs := []any{now, now}
	for _, k := range kinds {
		dueArgs = append(dueArgs, k)
	}
	// An idle worker asks often; with nothing to claim it only reads, so it
	// never queues behind (or holds up) another process's writes.
	var claimable int
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE `+due+`)`, dueArgs...).Scan(&claimable); err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	if claimable == 0 {
		return nil, nil
	}
	var claimed []storage.Claimed
	err := s.write(ctx, func(tx *sql.Tx) error {
		args := append([]any{until}, dueArgs...)
		args = append(args, limit)
		rows, err := tx.QueryContext(ctx, `UPDATE jobs SET leased_until = ?, attempts = attempts + 1
			WHERE id IN (SELECT id FROM jobs WHERE `+due+`
				ORDER BY run_after, created_at, id LIMIT ?)
			RETURNING id, subject, kind, attempts, last_error, created_at, run_after`, args...)
		if err != nil {
			return fmt.Errorf("claim jobs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var j storage.Claimed
			var created, runAfter string
			if err := rows.Scan(&j.ID, &j.Subject, &j.Kind, &j.Attempts, &j.LastError, &created, &runAfter); err != nil {
				return fmt.Errorf("claim jobs: %w", err)
			}
			if j.CreatedAt, err = parseTime(created); err != nil {
				return err
			}
			if j.RunAfter, err = parseTime(runAfter); err != nil {
				return err
			}
			claimed = append(claimed, j)
		}
		return errors.Join(rows.Err(), rows.Close())
	})
	if err != nil {
		return nil, err
	}
	return storage.InClaimOrder(claimed), nil
}

// FinishJob removes a job that is done, or makes it due again when it was
// queued anew while it ran. A job that is gone (its memory was deleted
// meanwhile) is no error.
func (s *DB) FinishJob(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE id = ? AND rerun = 0`, id)
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE jobs SET rerun = 0, attempts = 0, last_error = '', leased_until = '',
				run_after = '' WHERE id = ?`, id)
		}
		if err != nil {
			return fmt.Errorf("finish job %d: %w", id, err)
		}
		return nil
	})
}

// RetryJob records errMsg and releases the job, due again at at.
func (s *DB) RetryJob(ctx context.Context, id int64, errMsg string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET last_error = ?, leased_until = '', run_after = ?
			WHERE id = ?`, errMsg, formatTime(at), id)
		if err != nil {
			return fmt.Errorf("release job %d: %w", id, err)
		}
		return nil
	})
}

// keptFailedJobs bounds the record of jobs that failed for good: the newest
// are kept for stats and doctor, older ones go as new ones fail.
const keptFailedJobs = 200

// FailJob marks a job failed for good with its cause: it is never claimed
// again and stays on record (the newest keptFailedJobs of them). The same
// kind and subject may be queued again meanwhile (a later Stop of the session).
func (s *DB) FailJob(ctx context.Context, id int64, cause string) error {
	if strings.TrimSpace(cause) == "" {
		return memory.Invalidf("failure cause", `""`, "why the job can never succeed")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var kind, subject string
		var rerun bool
		err := tx.QueryRowContext(ctx, `SELECT kind, subject, rerun FROM jobs WHERE id = ?`, id).Scan(&kind, &subject, &rerun)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // gone meanwhile (its memory was deleted)
		}
		if err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE jobs SET failed_at = ?, last_error = ?, leased_until = '', rerun = 0
				WHERE id = ?`, formatTime(time.Now()), cause, id)
		}
		if err != nil {
			return fmt.Errorf("fail job %d: %w", id, err)
		}
		if rerun { // queued anew while it ran: the new work gets its own try
			if _, err := enqueueJob(ctx, tx, subject, kind, time.Now()); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM jobs WHERE failed_at != '' AND id NOT IN
			(SELECT id FROM jobs WHERE failed_at != '' ORDER BY failed_at DESC, id DESC LIMIT ?)`, keptFailedJobs)
		if err != nil {
			return fmt.Errorf("fail job %d: %w", id, err)
		}
		return nil
	})
}

// RecordModelHealth counts failures of a model role in a row, or resets them
// on a success. A success when nothing failed writes nothing.
func (s *DB) RecordModelHealth(ctx context.Context, role, errMsg string, at time.Time) error {
	if strings.TrimSpace(role) == "" {
		return memory.Invalidf("model role", `""`, "a role such as chat or embed")
	}
	if errMsg == "" {
		var failing int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM model_health WHERE role = ? AND failures > 0`, role).Scan(&failing)
		if err != nil || failing == 0 {
			return err
		}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if errMsg == "" {
			_, err = tx.ExecContext(ctx, `UPDATE model_health SET failures = 0, last_error = '', failing_since = '',
				updated_at = ? WHERE role = ?`, formatTime(at), role)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO model_health (role, failures, last_error, failing_since, updated_at)
				VALUES (?, 1, ?, ?, ?)
				ON CONFLICT (role) DO UPDATE SET failures = failures + 1, last_error = excluded.last_error,
					failing_since = CASE WHEN failures = 0 THEN excluded.failing_since ELSE failing_since END,
					updated_at = excluded.updated_at`, role, errMsg, formatTime(at), formatTime(at))
		}
		if err != nil {
			return fmt.Errorf("record model health: %w", err)
		}
		return nil
	})
}
