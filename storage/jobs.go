package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// EnqueueJob records pending work of kind for a memory and returns the job id;
// the same (memory, kind) already pending returns the pending job's id. Deleting
// the memory deletes its jobs.
func (s *DB) EnqueueJob(ctx context.Context, memoryID, kind string) (int64, error) {
	if strings.TrimSpace(kind) == "" {
		return 0, memory.Invalidf("job kind", `""`, "a job kind")
	}
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, _, err := getMemory(ctx, tx, memoryID); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO curation_jobs (memory_id, kind, created_at)
			VALUES (?, ?, ?) ON CONFLICT (memory_id, kind) DO NOTHING RETURNING id`,
			memoryID, kind, formatTime(time.Now())).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, `SELECT id FROM curation_jobs WHERE memory_id = ? AND kind = ?`,
				memoryID, kind).Scan(&id)
		}
		if err != nil {
			return fmt.Errorf("enqueue job: %w", err)
		}
		return nil
	})
	return id, err
}

// ClaimJobs leases up to limit due jobs that nobody holds (never leased,
// released, or whose lease ran out). Fresh jobs come first, oldest first; jobs
// waiting for a retry follow in the order they became due, so a job that keeps
// failing never holds up the rest. Claiming counts as an attempt, so
// Job.Attempts includes the current one.
func (s *DB) ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]memory.Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	if lease <= 0 {
		return nil, memory.Invalidf("lease", lease, "a positive duration")
	}
	now := formatTime(time.Now())
	until := formatTime(time.Now().Add(lease))
	// An idle worker asks often; with nothing to claim it only reads, so it
	// never queues behind (or holds up) another process's writes.
	var claimable int
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM curation_jobs
		WHERE (leased_until = '' OR leased_until < ?) AND run_after <= ?)`, now, now).Scan(&claimable); err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	if claimable == 0 {
		return nil, nil
	}
	var claimed []claimedJob
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE curation_jobs SET leased_until = ?, attempts = attempts + 1
			WHERE id IN (SELECT id FROM curation_jobs
				WHERE (leased_until = '' OR leased_until < ?) AND run_after <= ?
				ORDER BY run_after, created_at, id LIMIT ?)
			RETURNING id, memory_id, kind, attempts, last_error, created_at, run_after`,
			until, now, now, limit)
		if err != nil {
			return fmt.Errorf("claim jobs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var j claimedJob
			var created string
			if err := rows.Scan(&j.ID, &j.MemoryID, &j.Kind, &j.Attempts, &j.LastError, &created, &j.runAfter); err != nil {
				return fmt.Errorf("claim jobs: %w", err)
			}
			if j.CreatedAt, err = parseTime(created); err != nil {
				return err
			}
			claimed = append(claimed, j)
		}
		return errors.Join(rows.Err(), rows.Close())
	})
	if err != nil {
		return nil, err
	}
	// RETURNING gives no order; hand them out in the order they were picked.
	slices.SortFunc(claimed, func(a, b claimedJob) int {
		return cmp.Or(cmp.Compare(a.runAfter, b.runAfter), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	jobs := make([]memory.Job, len(claimed))
	for i, j := range claimed {
		jobs[i] = j.Job
	}
	return jobs, nil
}

// claimedJob is a job with the due time it was picked by (text sorts as time).
type claimedJob struct {
	memory.Job
	runAfter string
}

// FinishJob removes a job that is done. A job that is gone (its memory was
// deleted meanwhile) is no error.
func (s *DB) FinishJob(ctx context.Context, id int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM curation_jobs WHERE id = ?`, id); err != nil {
			return fmt.Errorf("finish job %d: %w", id, err)
		}
		return nil
	})
}

// RetryJob records errMsg and releases the job, due again at at.
func (s *DB) RetryJob(ctx context.Context, id int64, errMsg string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE curation_jobs SET last_error = ?, leased_until = '', run_after = ?
			WHERE id = ?`, errMsg, formatTime(at), id)
		if err != nil {
			return fmt.Errorf("release job %d: %w", id, err)
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
