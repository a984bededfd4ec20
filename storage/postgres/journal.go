package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
)

const journalColumns = `j.id, j.kind, j.namespace, j.session_id, j.turn_id, j.transcript_path, j.tool_name,
	j.title, j.body, j.files, j.memory_id, j.trimmed_bytes, j.created_at`

// AddEntry records a journal entry and returns its id.
func (s *DB) AddEntry(ctx context.Context, e *journal.Entry) (int64, error) {
	return insertEntry(ctx, s.pool, e)
}

func insertEntry(ctx context.Context, q querier, e *journal.Entry) (int64, error) {
	if e == nil || e.Title == "" {
		return 0, memory.Invalidf("title", `""`, "a one-line title")
	}
	files := e.Files
	if files == nil {
		files = []string{}
	}
	body, err := json.Marshal(files)
	if err != nil {
		return 0, fmt.Errorf("encode files: %w", err)
	}
	e.CreatedAt = orNow(e.CreatedAt, time.Now())
	err = q.QueryRow(ctx, `INSERT INTO journal (kind, namespace, session_id, turn_id, transcript_path,
			tool_name, title, body, files, memory_id, trimmed_bytes, created_at, search_words)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, to_tsvector('`+plain+`', $13)) RETURNING id`,
		string(e.Kind), e.Namespace, e.SessionID, e.TurnID, e.TranscriptPath, e.ToolName,
		e.Title, e.Body, string(body), e.MemoryID, e.TrimmedBytes, e.CreatedAt, journalWords(e.Title, e.Body)).Scan(&e.ID)
	if err != nil {
		return 0, fmt.Errorf("add journal entry: %w", err)
	}
	return e.ID, nil
}

func scanEntry(row pgx.CollectableRow) (*journal.Entry, error) {
	var e journal.Entry
	var kind string
	var files []byte
	if err := row.Scan(&e.ID, &kind, &e.Namespace, &e.SessionID, &e.TurnID, &e.TranscriptPath, &e.ToolName,
		&e.Title, &e.Body, &files, &e.MemoryID, &e.TrimmedBytes, &e.CreatedAt); err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	e.Kind, e.CreatedAt = journal.Kind(kind), e.CreatedAt.UTC()
	if err := json.Unmarshal(files, &e.Files); err != nil {
		return nil, fmt.Errorf("read journal entry %d files: %w", e.ID, err)
	}
	return &e, nil
}

func (s *DB) queryEntries(ctx context.Context, query string, args ...any) ([]*journal.Entry, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return pgx.CollectRows(rows, scanEntry)
}

// Entries returns the entries among ids that exist, in the order of ids.
func (s *DB) Entries(ctx context.Context, ids []int64) ([]*journal.Entry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j WHERE j.id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*journal.Entry, len(found))
	for _, e := range found {
		byID[e.ID] = e
	}
	out := make([]*journal.Entry, 0, len(found))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// SearchEntries ranks entries of the namespaces (all when empty) over title
// and body for user text, best first.
func (s *DB) SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]journal.EntryHit, error) {
	var p params
	q := tsQuery(keywords.Terms(text), "||", plain, &p)
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	where := "true"
	if len(namespaces) > 0 {
		where = "j.namespace = ANY(" + p.add(namespaces) + ")"
	}
	rows, err := s.pool.Query(ctx, `SELECT `+journalColumns+`, ts_rank(j.search_words, `+q+`, `+rankNormalization+`) AS rank
		FROM journal j WHERE j.search_words @@ (`+q+`) AND `+where+`
		ORDER BY rank DESC, j.id DESC LIMIT `+p.add(limit), p...)
	if err != nil {
		return nil, fmt.Errorf("journal search: %w", err)
	}
	hits, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (journal.EntryHit, error) {
		var rank float32
		var e journal.Entry
		var kind string
		var files []byte
		if err := r.Scan(&e.ID, &kind, &e.Namespace, &e.SessionID, &e.TurnID, &e.TranscriptPath, &e.ToolName,
			&e.Title, &e.Body, &files, &e.MemoryID, &e.TrimmedBytes, &e.CreatedAt, &rank); err != nil {
			return journal.EntryHit{}, err
		}
		e.Kind, e.CreatedAt = journal.Kind(kind), e.CreatedAt.UTC()
		if err := json.Unmarshal(files, &e.Files); err != nil {
			return journal.EntryHit{}, err
		}
		return journal.EntryHit{Entry: &e, Score: float64(rank)}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal search: %w", err)
	}
	return hits, nil
}

// SessionEntries returns a session's entries with id > afterID, oldest first.
func (s *DB) SessionEntries(ctx context.Context, sessionID string, afterID int64, limit int) ([]*journal.Entry, error) {
	return s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND j.id > $2 ORDER BY j.id LIMIT $3`, sessionID, afterID, limit)
}

// Around returns up to before entries older and after entries newer than the
// entry id in the same session, and the entry itself, oldest first.
func (s *DB) Around(ctx context.Context, id int64, before, after int) ([]*journal.Entry, error) {
	var session string
	err := s.pool.QueryRow(ctx, `SELECT session_id FROM journal WHERE id = $1`, id).Scan(&session)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.NotFound("journal entry", journal.EntryID(id))
	}
	if err != nil {
		return nil, fmt.Errorf("read journal entry: %w", err)
	}
	older, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND j.id < $2 ORDER BY j.id DESC LIMIT $3`, session, id, before)
	if err != nil {
		return nil, err
	}
	rest, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND j.id >= $2 ORDER BY j.id LIMIT $3`, session, id, after+1)
	if err != nil {
		return nil, err
	}
	return append(reversed(older), rest...), nil
}

// NamespaceAround is Around for a moment of a namespace; an empty namespace
// is every namespace (a global memory's moment).
func (s *DB) NamespaceAround(ctx context.Context, namespace string, at time.Time, before, after int) ([]*journal.Entry, error) {
	older, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE ($1 = '' OR j.namespace = $1) AND j.created_at <= $2 ORDER BY j.created_at DESC, j.id DESC LIMIT $3`, namespace, at, before)
	if err != nil {
		return nil, err
	}
	newer, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE ($1 = '' OR j.namespace = $1) AND j.created_at > $2 ORDER BY j.created_at, j.id LIMIT $3`, namespace, at, after)
	if err != nil {
		return nil, err
	}
	return append(reversed(older), newer...), nil
}

func reversed(es []*journal.Entry) []*journal.Entry {
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
	return es
}

// RecentSummaries returns the newest summaries of a namespace, newest first.
func (s *DB) RecentSummaries(ctx context.Context, namespace string, limit int) ([]*journal.Entry, error) {
	return s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.namespace = $1 AND j.kind = $2 ORDER BY j.created_at DESC, j.id DESC LIMIT $3`,
		namespace, string(journal.KindSummary), limit)
}

// entryWhere selects the entries of a session (when set) and/or created
// before a time (when not zero).
func entryWhere(sessionID string, before time.Time, p *params) string {
	where := "true"
	if sessionID != "" {
		where += " AND session_id = " + p.add(sessionID)
	}
	if !before.IsZero() {
		where += " AND created_at < " + p.add(before)
	}
	return where
}

// ForgetEntries deletes the entries of a session and/or created before a
// time, with their file activity and pending summaries; it returns how many
// entries went and the ids of the session memories they became.
func (s *DB) ForgetEntries(ctx context.Context, sessionID string, before time.Time) (int, []string, error) {
	if sessionID == "" && before.IsZero() {
		return 0, nil, memory.Invalidf("session or before", `""`, "a session id or a date")
	}
	var p params
	where := entryWhere(sessionID, before, &p)
	var n int
	var memIDs []string
	err := s.write(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM journal WHERE `+where+` RETURNING memory_id`, p...)
		if err != nil {
			return fmt.Errorf("forget journal: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("forget journal: %w", err)
		}
		n = len(ids)
		for _, id := range ids {
			if id != "" {
				memIDs = append(memIDs, id)
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM file_activity WHERE `+where, p...); err != nil {
			return fmt.Errorf("forget file activity: %w", err)
		}
		if sessionID != "" {
			for _, q := range []string{`DELETE FROM summary_jobs WHERE session_id = $1`, `DELETE FROM capture_sessions WHERE session_id = $1`, `DELETE FROM sessions WHERE id = $1`} {
				if _, err := tx.Exec(ctx, q, sessionID); err != nil {
					return fmt.Errorf("forget journal: %w", err)
				}
			}
		}
		if !before.IsZero() {
			if _, err := tx.Exec(ctx, `DELETE FROM summary_jobs WHERE created_at < $1`, before); err != nil {
				return fmt.Errorf("forget journal: %w", err)
			}
		}
		return nil
	})
	return n, memIDs, err
}

// CountEntries counts what ForgetEntries would delete.
func (s *DB) CountEntries(ctx context.Context, sessionID string, before time.Time) (int, error) {
	var p params
	where := entryWhere(sessionID, before, &p)
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM journal WHERE `+where, p...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count journal: %w", err)
	}
	return n, nil
}

// QueueSummary records that a session wants a summary; a session already
// waiting keeps one job, with the newer turn anchor.
func (s *DB) QueueSummary(ctx context.Context, sessionID, reason, turnID string) error {
	if sessionID == "" {
		return fmt.Errorf("queue summary: session_id is empty: want the session id Claude Code sent")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO summary_jobs AS j (session_id, reason, turn_id, created_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (session_id) DO UPDATE SET reason = excluded.reason,
			turn_id = CASE WHEN excluded.turn_id <> '' THEN excluded.turn_id ELSE j.turn_id END`,
		sessionID, reason, turnID, time.Now())
	if err != nil {
		return fmt.Errorf("queue summary of %s: %w", sessionID, err)
	}
	return nil
}

// ClaimSummary leases the oldest summary job nobody holds, or returns nil.
func (s *DB) ClaimSummary(ctx context.Context, lease time.Duration) (*journal.SummaryJob, error) {
	now := time.Now()
	var j journal.SummaryJob
	err := s.pool.QueryRow(ctx, `UPDATE summary_jobs SET leased_until = $1, attempts = attempts + 1
		WHERE session_id = (SELECT session_id FROM summary_jobs WHERE leased_until IS NULL OR leased_until < $2
			ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING session_id, reason, turn_id, attempts, created_at`,
		now.Add(lease), now).Scan(&j.SessionID, &j.Reason, &j.TurnID, &j.Attempts, &j.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim summary job: %w", err)
	}
	j.CreatedAt = j.CreatedAt.UTC()
	return &j, nil
}

// FinishSummary removes a job (errMsg empty or retry false), or records the
// error and releases it for another attempt.
func (s *DB) FinishSummary(ctx context.Context, sessionID, errMsg string, retry bool) error {
	var err error
	if errMsg != "" && retry {
		_, err = s.pool.Exec(ctx, `UPDATE summary_jobs SET last_error = $1, leased_until = NULL WHERE session_id = $2`, errMsg, sessionID)
	} else {
		_, err = s.pool.Exec(ctx, `DELETE FROM summary_jobs WHERE session_id = $1`, sessionID)
	}
	if err != nil {
		return fmt.Errorf("finish summary job of %s: %w", sessionID, err)
	}
	return nil
}

// SummaryProgress reports the last entry summarised and the chat calls spent
// on a session.
func (s *DB) SummaryProgress(ctx context.Context, sessionID string) (int64, int, error) {
	var through int64
	var calls int
	err := s.pool.QueryRow(ctx, `SELECT summarized_through, model_calls FROM capture_sessions WHERE session_id = $1`,
		sessionID).Scan(&through, &calls)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read summary progress of %s: %w", sessionID, err)
	}
	return through, calls, nil
}

// RecordSummary stores a summary entry, advances the session's progress to
// through and counts one model call, in one transaction.
func (s *DB) RecordSummary(ctx context.Context, e *journal.Entry, through int64) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx pgx.Tx) error {
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
	return countCall(ctx, s.pool, sessionID, 0)
}

func countCall(ctx context.Context, q querier, sessionID string, through int64) error {
	_, err := q.Exec(ctx, `INSERT INTO capture_sessions AS c (session_id, summarized_through, model_calls)
		VALUES ($1, $2, 1)
		ON CONFLICT (session_id) DO UPDATE SET model_calls = c.model_calls + 1,
			summarized_through = greatest(c.summarized_through, excluded.summarized_through)`, sessionID, through)
	if err != nil {
		return fmt.Errorf("count summary call of %s: %w", sessionID, err)
	}
	return nil
}
