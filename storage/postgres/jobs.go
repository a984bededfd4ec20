package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

// EnqueueJob records pending work of kind for a memory and returns the job
// id; the same (memory, kind) already pending returns the pending job's id.
func (s *DB) EnqueueJob(ctx context.Context, memoryID, kind string) (int64, error) {
	if strings.TrimSpace(kind) == "" {
		return 0, memory.Invalidf("job kind", `""`, "a job kind")
	}
	var id int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO curation_jobs (memory_id, kind, created_at)
			VALUES ($1, $2, $3) ON CONFLICT (memory_id, kind) DO NOTHING RETURNING id`,
			memoryID, kind, time.Now()).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			err = tx.QueryRow(ctx, `SELECT id FROM curation_jobs WHERE memory_id = $1 AND kind = $2`, memoryID, kind).Scan(&id)
		}
		if isForeignKeyViolation(err) {
			return memory.NotFound("memory", memoryID)
		}
		if err != nil {
			return fmt.Errorf("enqueue job: %w", err)
		}
		return nil
	})
	return id, err
}

// ClaimJobs leases up to limit due jobs that nobody holds. Fresh jobs come
// first, oldest first; jobs waiting for a retry follow in the order they
// became due. Rows another server is claiming at the same moment are skipped
// (FOR UPDATE SKIP LOCKED), so each job runs once across servers.
func (s *DB) ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]memory.Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	if lease <= 0 {
		return nil, memory.Invalidf("lease", lease, "a positive duration")
	}
	now := time.Now()
	rows, err := s.pool.Query(ctx, `WITH picked AS (
			SELECT id FROM curation_jobs
			WHERE (leased_until IS NULL OR leased_until < $1) AND run_after <= $1
			ORDER BY run_after, created_at, id LIMIT $2
			FOR UPDATE SKIP LOCKED)
		UPDATE curation_jobs j SET leased_until = $3, attempts = attempts + 1
		FROM picked WHERE j.id = picked.id
		RETURNING j.id, j.memory_id, j.kind, j.attempts, j.last_error, j.created_at, j.run_after`,
		now, limit, now.Add(lease))
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	type claimed struct {
		memory.Job
		runAfter time.Time
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (claimed, error) {
		var j claimed
		err := r.Scan(&j.ID, &j.MemoryID, &j.Kind, &j.Attempts, &j.LastError, &j.CreatedAt, &j.runAfter)
		j.CreatedAt = j.CreatedAt.UTC()
		return j, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	// RETURNING gives no order; hand them out in the order they were picked.
	sortFunc(got, func(a, b claimed) bool {
		if !a.runAfter.Equal(b.runAfter) {
			return a.runAfter.Before(b.runAfter)
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	jobs := make([]memory.Job, len(got))
	for i, j := range got {
		jobs[i] = j.Job
	}
	return jobs, nil
}

// FinishJob removes a job that is done. A job that is gone is no error.
func (s *DB) FinishJob(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM curation_jobs WHERE id = $1`, id); err != nil {
		return fmt.Errorf("finish job %d: %w", id, err)
	}
	return nil
}

// RetryJob records errMsg and releases the job, due again at at.
func (s *DB) RetryJob(ctx context.Context, id int64, errMsg string, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE curation_jobs SET last_error = $1, leased_until = NULL, run_after = $2
		WHERE id = $3`, errMsg, at, id); err != nil {
		return fmt.Errorf("release job %d: %w", id, err)
	}
	return nil
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
