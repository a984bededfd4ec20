package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// EnqueueJob records work of kind about subject (a memory or session id) and
// returns the job id; the same kind and subject pending already is one job,
// run once more when it was queued again while running.
func (s *DB) EnqueueJob(ctx context.Context, subject, kind string) (int64, error) {
	return enqueueJob(ctx, s.pool, subject, kind, time.Now())
}

func enqueueJob(ctx context.Context, q querier, subject, kind string, at time.Time) (int64, error) {
	if err := storage.CheckJob(subject, kind); err != nil {
		return 0, err
	}
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO jobs AS j (kind, subject, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (kind, subject) WHERE failed_at IS NULL
		DO UPDATE SET rerun = j.rerun OR coalesce(j.leased_until > $3, false)
		RETURNING id`, kind, subject, at).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("enqueue %s job: %w", kind, err)
	}
	return id, nil
}

// ClaimJobs leases up to limit due jobs of kinds that nobody holds: fresh
// ones first, oldest first, then retried ones in the order they became due.
// Rows another server is claiming at the same moment are skipped (FOR UPDATE
// SKIP LOCKED), so each job runs once across servers.
func (s *DB) ClaimJobs(ctx context.Context, kinds []string, limit int, lease time.Duration) ([]memory.Job, error) {
	if ok, err := storage.CheckClaim(kinds, limit, lease); !ok {
		return nil, err
	}
	now := time.Now()
	rows, err := s.pool.Query(ctx, `WITH picked AS (
			SELECT id FROM jobs
			WHERE failed_at IS NULL AND (leased_until IS NULL OR leased_until < $1) AND run_after <= $1
				AND kind = ANY($2)
			ORDER BY run_after, created_at, id LIMIT $3
			FOR UPDATE SKIP LOCKED)
		UPDATE jobs j SET leased_until = $4, attempts = attempts + 1
		FROM picked WHERE j.id = picked.id
		RETURNING j.id, j.subject, j.kind, j.attempts, j.last_error, j.created_at, j.run_after`,
		now, kinds, limit, now.Add(lease))
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	claimed, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Claimed, error) {
		var j storage.Claimed
		err := r.Scan(&j.ID, &j.Subject, &j.Kind, &j.Attempts, &j.LastError, &j.CreatedAt, &j.RunAfter)
		j.CreatedAt = j.CreatedAt.UTC()
		return j, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	return storage.InClaimOrder(claimed), nil
}

// FinishJob removes a job that is done, or makes it due again at once when
// it was queued again while it ran. A job that is gone is no error.
func (s *DB) FinishJob(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM jobs WHERE id = $1 AND NOT rerun`, id)
		if err == nil {
			_, err = tx.Exec(ctx, `UPDATE jobs SET rerun = false, attempts = 0, last_error = '', leased_until = NULL,
				run_after = '1970-01-01Z' WHERE id = $1`, id)
		}
		if err != nil {
			return fmt.Errorf("finish job %d: %w", id, err)
		}
		return nil
	})
}

// RetryJob records errMsg and releases the job, due again at at.
func (s *DB) RetryJob(ctx context.Context, id int64, errMsg string, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE jobs SET last_error = $1, leased_until = NULL, run_after = $2
		WHERE id = $3`, errMsg, at, id); err != nil {
		return fmt.Errorf("release job %d: %w", id, err)
	}
	return nil
}

// keptFailedJobs bounds the failed jobs kept on record.
const keptFailedJobs = 200

// FailJob marks a job that can never succeed as failed for good, with why;
// it is kept on record (the newest keptFailedJobs) and never claimed again.
func (s *DB) FailJob(ctx context.Context, id int64, cause string) error {
	if strings.TrimSpace(cause) == "" {
		return memory.Invalidf("failure cause", `""`, "why the job can never succeed")
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		var kind, subject string
		var rerun bool
		err := tx.QueryRow(ctx, `UPDATE jobs j SET failed_at = now(), last_error = $1, leased_until = NULL, rerun = false
			FROM (SELECT id, rerun FROM jobs WHERE id = $2 FOR UPDATE) old WHERE j.id = old.id
			RETURNING j.kind, j.subject, old.rerun`, cause, id).Scan(&kind, &subject, &rerun)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // gone meanwhile (its memory was deleted)
		}
		if err != nil {
			return fmt.Errorf("fail job %d: %w", id, err)
		}
		if rerun { // queued anew while it ran: the new work gets its own try
			if _, err := enqueueJob(ctx, tx, subject, kind, time.Now()); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `DELETE FROM jobs WHERE failed_at IS NOT NULL AND id NOT IN
			(SELECT id FROM jobs WHERE failed_at IS NOT NULL ORDER BY failed_at DESC, id DESC LIMIT $1)`, keptFailedJobs)
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
	var err error
	if errMsg == "" {
		_, err = s.pool.Exec(ctx, `UPDATE model_health SET failures = 0, last_error = '', failing_since = NULL,
			updated_at = $1 WHERE role = $2 AND failures > 0`, at, role)
	} else {
		_, err = s.pool.Exec(ctx, `INSERT INTO model_health AS h (role, failures, last_error, failing_since, updated_at)
			VALUES ($1, 1, $2, $3, $3)
			ON CONFLICT (role) DO UPDATE SET failures = h.failures + 1, last_error = excluded.last_error,
				failing_since = CASE WHEN h.failures = 0 THEN excluded.failing_since ELSE h.failing_since END,
				updated_at = excluded.updated_at`, role, errMsg, at)
	}
	if err != nil {
		return fmt.Errorf("record model health: %w", err)
	}
	return nil
}
