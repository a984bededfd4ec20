package sqlite

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// Stats counts what the database holds. FileBytes is the database file plus its
// write-ahead log.
func (s *DB) Stats(ctx context.Context) (*memory.Stats, error) {
	st, groups := storage.NewStats()
	// A person's edges, events and pending vectors are those of the
	// memories they may see (an edge: both ends); their journal and file
	// activity their own sessions'; their jobs those about what they see.
	edges, events, pending := `SELECT count(*) FROM edges`, `SELECT count(*) FROM validation_events`,
		`SELECT count(*) FROM memories WHERE embedding_pending = 1`
	var vargs []any
	if memory.PrincipalFrom(ctx).Restricted() {
		var visible string
		visible, vargs = visibleCond(ctx, "m")
		edges = `SELECT count(*) FROM edges e WHERE NOT EXISTS (SELECT 1 FROM memories m
			WHERE m.id IN (e.source_id, e.target_id) AND NOT ` + visible + `)`
		events = `SELECT count(*) FROM validation_events v JOIN memories m ON m.id = v.memory_id WHERE ` + visible
		pending = `SELECT count(*) FROM memories m WHERE m.embedding_pending = 1 AND ` + visible
	}
	own, oargs := ownWork(ctx, "")
	jobs, jargs := ownJobs(ctx, "j")
	counts := []struct {
		query string
		args  []any
		dest  *int
	}{
		{edges, vargs, &st.Edges},
		{events, vargs, &st.ValidationEvents},
		{`SELECT count(*) FROM file_activity WHERE ` + own, oargs, &st.FileActivity},
		{pending, vargs, &st.PendingEmbeddings},
		{`SELECT count(*) FROM jobs j WHERE failed_at = '' AND ` + jobs, jargs, &st.PendingJobs},
		{`SELECT count(*) FROM jobs j WHERE failed_at != '' AND ` + jobs, jargs, &st.FailedJobs},
		{`SELECT count(*) FROM journal WHERE ` + own, oargs, &st.JournalEntries},
		{`SELECT count(*) FROM journal WHERE trimmed_bytes > 0 AND ` + own, oargs, &st.TrimmedEntries},
		{`SELECT count(*) FROM jobs j WHERE kind = '` + journal.SummaryJobKind + `' AND failed_at = '' AND ` + jobs, jargs, &st.PendingSummaries},
	}
	for _, c := range counts {
		if err := s.db.QueryRowContext(ctx, c.query, c.args...).Scan(c.dest); err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
	}
	for col, counts := range groups {
		if err := s.Read.CountMemoriesInto(ctx, col, counts); err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
	}
	st.TallyMemories()
	if err := s.jobStats(ctx, st); err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	st.EmbeddingModel, st.EmbeddingDim = sp.Model, sp.Dimension
	v, err := getMeta(ctx, s.db, metaSchemaVersion)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	st.SchemaVersion, _ = strconv.Atoi(v)
	if st.SpooledWrites, st.FailedSpooledWrites, err = s.SpoolCounts(); err != nil {
		// A spool that cannot be read (its place is a file, say) must not
		// hide the rest, nor the lost writes it may have caused.
		s.log.Warn("stats: spooled writes not counted", "spool", s.spool.Dir(), "err", err)
	}
	st.LostWrites, st.LastLostWrite = s.spool.LostTally()
	for _, p := range []string{s.path, s.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	return st, nil
}

// jobStats adds the backlog of the job queue (the jobs about what the asker
// sees) and the model roles failing lately.
func (s *DB) jobStats(ctx context.Context, st *memory.Stats) error {
	var oldest, lastErr, failure string
	jobs, jargs := ownJobs(ctx, "j")
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE last_error != ''), coalesce(min(created_at), ''),
		coalesce((SELECT last_error FROM jobs j WHERE last_error != '' AND failed_at = '' AND `+jobs+` ORDER BY run_after DESC LIMIT 1), ''),
		coalesce((SELECT kind || ' job for ' || subject || ' failed for good at ' || failed_at || ': ' || last_error
			FROM jobs j WHERE failed_at != '' AND `+jobs+` ORDER BY failed_at DESC, id DESC LIMIT 1), '')
		FROM jobs j WHERE failed_at = '' AND `+jobs, slices.Concat(jargs, jargs, jargs)...).Scan(&st.RetryingJobs, &oldest, &lastErr, &failure)
	if err != nil {
		return err
	}
	st.LastJobError, st.LastJobFailure = lastErr, failure
	if oldest != "" {
		if st.OldestJobAt, err = parseTime(oldest); err != nil {
			return err
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT role, failures, last_error, failing_since, updated_at
		FROM model_health WHERE failures > 0 ORDER BY role`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h memory.ModelHealth
		var since, updated string
		if err := rows.Scan(&h.Role, &h.Failures, &h.LastError, &since, &updated); err != nil {
			return err
		}
		if h.FailingSince, err = parseTime(since); err != nil {
			return err
		}
		if h.UpdatedAt, err = parseTime(updated); err != nil {
			return err
		}
		st.ModelHealth = append(st.ModelHealth, h)
	}
	return rows.Err()
}
