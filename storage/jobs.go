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

// ClaimJobs leases up to limit jobs that nobody holds (never leased, released, or
// whose lease ran out), oldest first. Claiming counts as an attempt, so
// Job.Attempts includes the current one.
func (s *DB) ClaimJobs(ctx context.Context, limit int, lease time.Duration) ([]memory.Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	if lease <= 0 {
		return nil, memory.Invalidf("lease", lease, "a positive duration")
	}
	now := time.Now()
	// An idle worker asks often; with nothing to claim it only reads, so it
	// never queues behind (or holds up) another process's writes.
	var claimable int
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM curation_jobs
		WHERE leased_until = '' OR leased_until < ?)`, formatTime(now)).Scan(&claimable); err != nil {
		return nil, fmt.Errorf("claim jobs: %w", err)
	}
	if claimable == 0 {
		return nil, nil
	}
	var jobs []memory.Job
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE curation_jobs SET leased_until = ?, attempts = attempts + 1
			WHERE id IN (SELECT id FROM curation_jobs WHERE leased_until = '' OR leased_until < ?
				ORDER BY created_at, id LIMIT ?)
			RETURNING id, memory_id, kind, attempts, last_error, created_at`,
			formatTime(now.Add(lease)), formatTime(now), limit)
		if err != nil {
			return fmt.Errorf("claim jobs: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var j memory.Job
			var created string
			if err := rows.Scan(&j.ID, &j.MemoryID, &j.Kind, &j.Attempts, &j.LastError, &created); err != nil {
				return fmt.Errorf("claim jobs: %w", err)
			}
			if j.CreatedAt, err = parseTime(created); err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		return errors.Join(rows.Err(), rows.Close())
	})
	if err != nil {
		return nil, err
	}
	// RETURNING gives no order; hand them out oldest first.
	sortJobs(jobs)
	return jobs, nil
}

func sortJobs(jobs []memory.Job) {
	slices.SortFunc(jobs, func(a, b memory.Job) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// FinishJob removes a done job (errMsg empty), or records errMsg and releases the
// job for another attempt (retry) or drops it for good. A job that is gone (its
// memory was deleted meanwhile) is no error.
func (s *DB) FinishJob(ctx context.Context, id int64, errMsg string, retry bool) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if errMsg != "" && retry {
			_, err = tx.ExecContext(ctx, `UPDATE curation_jobs SET last_error = ?, leased_until = '' WHERE id = ?`, errMsg, id)
		} else {
			_, err = tx.ExecContext(ctx, `DELETE FROM curation_jobs WHERE id = ?`, id)
		}
		if err != nil {
			return fmt.Errorf("finish job %d: %w", id, err)
		}
		return nil
	})
}
