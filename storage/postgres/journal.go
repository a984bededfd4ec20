package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

const journalColumns = `j.id, j.kind, j.namespace, j.session_id, j.turn_id, j.transcript_path, j.tool_name,
	j.title, j.body, j.files, j.memory_id, j.trimmed_bytes, j.created_at, j.author, j.anchor_id, j.transcript_offset`

// AddEntry records a journal entry and returns its id.
// The viewers' Journal pages follow it: AddEntry, RecordSummary,
// RecordToolCall and ForgetEntries announce what they committed (announce.go).
func (s *DB) AddEntry(ctx context.Context, e *journal.Entry) (int64, error) {
	id, err := insertEntry(ctx, s.pool, e)
	if err == nil {
		s.changed(ctx)
	}
	return id, err
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
	e.Author = memory.AuthorOr(ctx, e.Author)
	err = q.QueryRow(ctx, `INSERT INTO journal (kind, namespace, session_id, turn_id, transcript_path,
			tool_name, title, body, files, memory_id, trimmed_bytes, created_at, search_words, author, anchor_id, transcript_offset)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, to_tsvector('`+stemmed+`', $13), $14, $15, $16) RETURNING id`,
		string(e.Kind), e.Namespace, e.SessionID, e.TurnID, e.TranscriptPath, e.ToolName,
		e.Title, e.Body, string(body), e.MemoryID, e.TrimmedBytes, e.CreatedAt, journalWords(e.Title, e.Body), e.Author,
		e.AnchorID, e.TranscriptOffset).Scan(&e.ID)
	if err != nil {
		return 0, fmt.Errorf("add journal entry: %w", err)
	}
	return e.ID, nil
}

func scanEntry(row pgx.CollectableRow) (*journal.Entry, error) { return storage.ScanEntry(row) }

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
	p := params{ids}
	found, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j WHERE j.id = ANY($1) AND `+ownWork(ctx, "j", &p), p...)
	if err != nil {
		return nil, err
	}
	return journal.InOrder(ids, found), nil
}

// SearchEntries ranks entries of the namespaces (all when empty) over title
// and body for user text, best first.
func (s *DB) SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]journal.EntryHit, error) {
	var p params
	q := tsQuery(keywords.Terms(text), "||", stemmed, &p)
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	where := ownWork(ctx, "j", &p)
	if len(namespaces) > 0 {
		where += " AND j.namespace = ANY(" + p.add(namespaces) + ")"
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
			&e.Title, &e.Body, &files, &e.MemoryID, &e.TrimmedBytes, &e.CreatedAt, &e.Author, &e.AnchorID, &e.TranscriptOffset, &rank); err != nil {
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

// LastCapture returns the session's newest prompt or tool call entry, nil
// when it has none.
func (s *DB) LastCapture(ctx context.Context, sessionID string) (*journal.Entry, error) {
	es, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND j.kind IN ('prompt', 'observation') ORDER BY j.id DESC LIMIT 1`, sessionID)
	if err != nil || len(es) == 0 {
		return nil, err
	}
	return es[0], nil
}

// Around returns up to before entries older and after entries newer than the
// entry id in the same session, and the entry itself, oldest first.
func (s *DB) Around(ctx context.Context, id int64, before, after int) ([]*journal.Entry, error) {
	var session string
	p := params{id}
	err := s.pool.QueryRow(ctx, `SELECT session_id FROM journal j WHERE j.id = $1 AND `+ownWork(ctx, "j", &p), p...).Scan(&session)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, memory.NotFound("journal entry", journal.EntryID(id))
	}
	if err != nil {
		return nil, fmt.Errorf("read journal entry: %w", err)
	}
	p = params{session, id, before}
	older, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND j.id < $2 AND `+ownWork(ctx, "j", &p)+` ORDER BY j.id DESC LIMIT $3`, p...)
	if err != nil {
		return nil, err
	}
	p = params{session, id, after + 1}
	rest, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND j.id >= $2 AND `+ownWork(ctx, "j", &p)+` ORDER BY j.id LIMIT $3`, p...)
	if err != nil {
		return nil, err
	}
	slices.Reverse(older)
	return append(older, rest...), nil
}

// NamespaceAround is Around for a moment of a namespace; an empty namespace
// is every namespace (a global memory's moment).
func (s *DB) NamespaceAround(ctx context.Context, namespace string, at time.Time, before, after int) ([]*journal.Entry, error) {
	p := params{namespace, at, before}
	older, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE ($1 = '' OR j.namespace = $1) AND j.created_at <= $2 AND `+ownWork(ctx, "j", &p)+` ORDER BY j.created_at DESC, j.id DESC LIMIT $3`, p...)
	if err != nil {
		return nil, err
	}
	p = params{namespace, at, after}
	newer, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE ($1 = '' OR j.namespace = $1) AND j.created_at > $2 AND `+ownWork(ctx, "j", &p)+` ORDER BY j.created_at, j.id LIMIT $3`, p...)
	if err != nil {
		return nil, err
	}
	slices.Reverse(older)
	return append(older, newer...), nil
}

// entryWhere selects the asker's own entries (see ownWork) of a session
// (when set) and/or created before a time (when not zero).
func entryWhere(ctx context.Context, sessionID string, before time.Time, p *params) string {
	where := ownWork(ctx, "", p)
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
	where := entryWhere(ctx, sessionID, before, &p)
	var n int
	var memIDs []string
	err := s.writeChanged(ctx, func(tx pgx.Tx) error {
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
		if memory.PrincipalFrom(ctx).Restricted() && (sessionID == "" || n == 0) {
			// The session bookkeeping and jobs below are shared by every
			// author's rows; a person's forget by date leaves them to the
			// summariser, which finds nothing left to summarise.
			return nil
		}
		if sessionID != "" {
			var draft string
			err := tx.QueryRow(ctx, `SELECT draft_memory_id FROM capture_sessions WHERE session_id = $1`, sessionID).Scan(&draft)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("forget journal: %w", err)
			}
			if draft != "" {
				memIDs = append(memIDs, draft)
			}
			for _, q := range []string{`DELETE FROM jobs WHERE kind = '` + journal.SummaryJobKind + `' AND subject = $1 AND failed_at IS NULL`,
				`DELETE FROM capture_sessions WHERE session_id = $1`, `DELETE FROM sessions WHERE id = $1`} {
				if _, err := tx.Exec(ctx, q, sessionID); err != nil {
					return fmt.Errorf("forget journal: %w", err)
				}
			}
		}
		if !before.IsZero() {
			if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE kind = '`+journal.SummaryJobKind+`' AND failed_at IS NULL AND created_at < $1`, before); err != nil {
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
	where := entryWhere(ctx, sessionID, before, &p)
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM journal WHERE `+where, p...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count journal: %w", err)
	}
	return n, nil
}

// QueueSummary records that a session wants a summary: a job of kind
// summary; a session already waiting keeps one job.
func (s *DB) QueueSummary(ctx context.Context, sessionID, reason, turnID string) error {
	if sessionID == "" {
		return fmt.Errorf("queue summary: session_id is empty: want the session id Claude Code sent")
	}
	if _, err := enqueueJob(ctx, s.pool, sessionID, journal.SummaryJobKind, time.Now()); err != nil {
		return fmt.Errorf("queue summary of %s: %w", sessionID, err)
	}
	return nil
}

// SetDraftSummary records the memory holding a session's extractive summary.
func (s *DB) SetDraftSummary(ctx context.Context, sessionID, memoryID string) error {
	return s.Read.SetDraftSummary(ctx, sessionID, memoryID)
}

// CountModelCall counts a chat call that produced no summary.
func (s *DB) CountModelCall(ctx context.Context, sessionID string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO capture_sessions AS c (session_id, model_calls) VALUES ($1, 1)
		ON CONFLICT (session_id) DO UPDATE SET model_calls = c.model_calls + 1`, sessionID)
	if err != nil {
		return fmt.Errorf("count summary call of %s: %w", sessionID, err)
	}
	return nil
}

// RecordToolCall writes a hook's tool call, its journal entry and its file
// touch (either may be nil), in one transaction.
func (s *DB) RecordToolCall(ctx context.Context, e *journal.Entry, a *memory.FileActivity) error {
	if e == nil && a == nil {
		return nil
	}
	if a != nil {
		if err := checkFileActivity(a); err != nil {
			return err
		}
	}
	if e != nil && e.Title == "" {
		return memory.Invalidf("title", `""`, "a one-line title")
	}
	return s.writeChanged(ctx, func(tx pgx.Tx) error {
		if e != nil {
			if _, err := insertEntry(ctx, tx, e); err != nil {
				return err
			}
		}
		if a != nil {
			id, err := insertFileActivity(ctx, tx, a)
			if err != nil {
				return err
			}
			a.ID = id
		}
		return nil
	})
}

// EntryCoverage tells, for each of the journal entries ids that exist, the
// fraction of text's content words it contains.
func (s *DB) EntryCoverage(ctx context.Context, text string, ids []int64) (map[int64]float64, error) {
	return coverage(ctx, s, "entry coverage", text, "journal", ids, nil)
}
