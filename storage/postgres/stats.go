package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// Stats counts what the database holds, in one round trip for the counts.
func (s *DB) Stats(ctx context.Context) (*memory.Stats, error) {
	st, groups := storage.NewStats()
	var oldest *time.Time
	var version string
	// A person's edges, events and pending vectors are those of the
	// memories they may see (an edge: both ends); their journal and file
	// activity their own sessions'; their jobs those about what they see.
	var p params
	visible, own, jobs := visibleCond(ctx, "m", &p), ownWork(ctx, "", &p), ownJobs(ctx, "j", &p)
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM edges e WHERE NOT EXISTS (SELECT 1 FROM memories m
			WHERE m.id IN (e.source_id, e.target_id) AND NOT `+visible+`)),
		(SELECT count(*) FROM validation_events v JOIN memories m ON m.id = v.memory_id WHERE `+visible+`),
		(SELECT count(*) FROM file_activity WHERE `+own+`),
		(SELECT count(*) FROM memories m WHERE m.embedding_pending AND `+visible+`),
		(SELECT count(*) FROM jobs j WHERE failed_at IS NULL AND `+jobs+`),
		(SELECT count(*) FROM jobs j WHERE failed_at IS NULL AND last_error <> '' AND `+jobs+`),
		(SELECT min(created_at) FROM jobs j WHERE failed_at IS NULL AND `+jobs+`),
		coalesce((SELECT last_error FROM jobs j WHERE last_error <> '' AND failed_at IS NULL AND `+jobs+` ORDER BY run_after DESC LIMIT 1), ''),
		(SELECT count(*) FROM jobs j WHERE failed_at IS NOT NULL AND `+jobs+`),
		coalesce((SELECT kind || ' job for ' || subject || ' failed for good at ' ||
			to_char(failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ': ' || last_error
			FROM jobs j WHERE failed_at IS NOT NULL AND `+jobs+` ORDER BY failed_at DESC, id DESC LIMIT 1), ''),
		(SELECT count(*) FROM journal WHERE `+own+`),
		(SELECT count(*) FROM journal WHERE trimmed_bytes > 0 AND `+own+`),
		(SELECT count(*) FROM jobs j WHERE kind = '`+journal.SummaryJobKind+`' AND failed_at IS NULL AND `+jobs+`),
		coalesce((SELECT value FROM meta WHERE key = 'schema_version'), '0'),
		pg_database_size(current_database())`, p...).Scan(
		&st.Edges, &st.ValidationEvents, &st.FileActivity, &st.PendingEmbeddings,
		&st.PendingJobs, &st.RetryingJobs, &oldest, &st.LastJobError, &st.FailedJobs, &st.LastJobFailure, &st.JournalEntries, &st.TrimmedEntries,
		&st.PendingSummaries, &version, &st.FileBytes)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	if oldest != nil {
		st.OldestJobAt = oldest.UTC()
	}
	st.SchemaVersion, _ = strconv.Atoi(version)
	if s.lost != nil {
		st.LostWrites, st.LastLostWrite = s.lost.LostTally()
	}
	for col, counts := range groups {
		if err := s.Read.CountMemoriesInto(ctx, col, counts); err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
	}
	st.TallyMemories()
	rows, err := s.pool.Query(ctx, `SELECT role, failures, last_error, failing_since, updated_at
		FROM model_health WHERE failures > 0 ORDER BY role`)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	st.ModelHealth, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (memory.ModelHealth, error) {
		var h memory.ModelHealth
		var since *time.Time
		err := r.Scan(&h.Role, &h.Failures, &h.LastError, &since, &h.UpdatedAt)
		if since != nil {
			h.FailingSince = since.UTC()
		}
		h.UpdatedAt = h.UpdatedAt.UTC()
		return h, err
	})
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	sp, err := embeddingSpace(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	st.EmbeddingModel, st.EmbeddingDim = sp.Model, sp.Dimension
	return st, nil
}

// UpsertSession records a Claude Code session's start or end: fields given
// replace the stored ones, the earliest start is kept.
func (s *DB) UpsertSession(ctx context.Context, sess *memory.Session) error {
	if sess == nil || sess.ID == "" {
		return memory.Invalidf("session_id", `""`, "a session id")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions AS s (id, namespace, cwd, started_at, ended_at, end_reason)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET
			namespace  = CASE WHEN excluded.namespace <> '' THEN excluded.namespace ELSE s.namespace END,
			cwd        = CASE WHEN excluded.cwd <> '' THEN excluded.cwd ELSE s.cwd END,
			started_at = least(s.started_at, excluded.started_at),
			ended_at   = coalesce(excluded.ended_at, s.ended_at),
			end_reason = CASE WHEN excluded.end_reason <> '' THEN excluded.end_reason ELSE s.end_reason END`,
		sess.ID, sess.Namespace, sess.Cwd, orNow(sess.StartedAt, time.Now()), sess.EndedAt, sess.EndReason)
	if err != nil {
		return fmt.Errorf("upsert session %s: %w", sess.ID, err)
	}
	return nil
}

// GetSession returns a recorded session or an error wrapping ErrNotFound.
func (s *DB) GetSession(ctx context.Context, id string) (*memory.Session, error) {
	var sess memory.Session
	err := s.pool.QueryRow(ctx, `SELECT id, namespace, cwd, started_at, ended_at, end_reason FROM sessions WHERE id = $1`, id).
		Scan(&sess.ID, &sess.Namespace, &sess.Cwd, &sess.StartedAt, &sess.EndedAt, &sess.EndReason)
	if err == pgx.ErrNoRows {
		return nil, memory.NotFound("session", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	sess.StartedAt = sess.StartedAt.UTC()
	if sess.EndedAt != nil {
		t := sess.EndedAt.UTC()
		sess.EndedAt = &t
	}
	return &sess, nil
}
