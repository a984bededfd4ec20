package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// A JournalTx is an engine's write transaction as the journal's writes use
// it.
type JournalTx interface {
	// InsertEntry appends an entry to the journal and returns its id.
	InsertEntry(ctx context.Context, e *journal.Entry) (int64, error)
	// AdvanceSummary moves a session's summary progress to through (never
	// back), its draft done with, and counts calls chat calls.
	AdvanceSummary(ctx context.Context, sessionID string, through int64, calls int) error
}

// RecordSummary stores a summary entry and advances the session's progress
// to through, its draft done with; a model's summary (byModel) counts a chat
// call. One transaction.
func (s Shared) RecordSummary(ctx context.Context, e *journal.Entry, through int64, byModel bool) (int64, error) {
	var id int64
	e.Author = memory.AuthorOr(ctx, e.Author)
	err := s.Tx.Write(ctx, func(tx Tx) error {
		var err error
		if id, err = tx.InsertEntry(ctx, e); err != nil {
			return err
		}
		calls := 0
		if byModel {
			calls = 1
		}
		if err := tx.AdvanceSummary(ctx, e.SessionID, through, calls); err != nil {
			return fmt.Errorf("record summary of %s: %w", e.SessionID, err)
		}
		return nil
	})
	return id, err
}

// AdvanceSummary moves a session's summary progress to through (never
// back), its draft done with, and counts calls chat calls.
func (s Statements) AdvanceSummary(ctx context.Context, sessionID string, through int64, calls int) error {
	_, err := s.SQL.Exec(ctx, `INSERT INTO capture_sessions (session_id, summarized_through, model_calls)
		VALUES ($1, $2, $3)
		ON CONFLICT (session_id) DO UPDATE SET model_calls = capture_sessions.model_calls + excluded.model_calls,
			summarized_through = CASE WHEN excluded.summarized_through > capture_sessions.summarized_through
				THEN excluded.summarized_through ELSE capture_sessions.summarized_through END,
			draft_memory_id = ''`, sessionID, through, calls)
	return err
}

// OwnWork is the condition that a row of the journal or of file activity
// (table alias) records the asker's own sessions (its value added to p);
// "TRUE" when they read every one. A person's prompts and tool calls are
// theirs alone, whatever namespace they were captured in; the administrator
// and the machine's own processes read them all.
func OwnWork(ctx context.Context, alias string, p *Params) string {
	who := memory.PrincipalFrom(ctx)
	if !who.Restricted() {
		return "TRUE"
	}
	return alias + ".author = " + p.Add(who.Person)
}

// journalColumns are the columns ScanEntry reads, of the journal aliased j.
const journalColumns = `j.id, j.kind, j.namespace, j.session_id, j.turn_id, j.transcript_path, j.tool_name,
	j.title, j.body, j.files, j.memory_id, j.trimmed_bytes, j.created_at, j.author, j.anchor_id, j.transcript_offset`

// ScanEntry reads a journal entry from a row of the columns id, kind,
// namespace, session_id, turn_id, transcript_path, tool_name, title, body,
// files, memory_id, trimmed_bytes, created_at, author, anchor_id and
// transcript_offset, and then into extra any columns after them.
func ScanEntry(row Row, extra ...any) (*journal.Entry, error) {
	var e journal.Entry
	var kind string
	var files []byte
	dest := append([]any{&e.ID, &kind, &e.Namespace, &e.SessionID, &e.TurnID, &e.TranscriptPath, &e.ToolName,
		&e.Title, &e.Body, &files, &e.MemoryID, &e.TrimmedBytes, &e.CreatedAt, &e.Author, &e.AnchorID, &e.TranscriptOffset}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	e.Kind, e.CreatedAt = journal.Kind(kind), e.CreatedAt.UTC()
	if err := json.Unmarshal(files, &e.Files); err != nil {
		return nil, fmt.Errorf("read journal entry %d files: %w", e.ID, err)
	}
	return &e, nil
}

// firstEntry reads the first entry a query of journalColumns finds; nil
// when none.
func (s Statements) firstEntry(ctx context.Context, query string, args ...any) (*journal.Entry, error) {
	e, err := ScanEntry(s.SQL.QueryRow(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return e, err
}

// recentPromptWindow bounds the prompts RecentSessions reads to find the
// newest sessions of a namespace: the newest ones, through the (namespace,
// kind, created_at) index.
const recentPromptWindow = 500

// RecentSessions lists the namespace's sessions with the newest prompts,
// newest first, except the session exclude (the one starting): each with its
// first prompt, its counts, its latest summary and its draft. Sessions
// without a prompt are left out. It reads a bounded window of prompts and
// each session's own entries through the session index, so its cost does not
// grow with the journal.
func (s Shared) RecentSessions(ctx context.Context, namespace, exclude string, limit int) ([]journal.SessionBrief, error) {
	if limit <= 0 {
		return nil, nil
	}
	p := Params{namespace, recentPromptWindow, exclude, limit}
	rows, err := s.Read.SQL.Query(ctx, `SELECT session_id FROM (
			SELECT j.session_id, j.created_at FROM journal j WHERE j.namespace = $1 AND j.kind = 'prompt' AND `+OwnWork(ctx, "j", &p)+`
			ORDER BY j.created_at DESC LIMIT $2) recent
		WHERE session_id <> '' AND session_id <> $3
		GROUP BY session_id ORDER BY max(created_at) DESC LIMIT $4`, p...)
	if err != nil {
		return nil, fmt.Errorf("recent sessions: %w", err)
	}
	ids, err := ReadAll(rows, func() (string, error) {
		var id string
		err := rows.Scan(&id)
		return id, err
	})
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("recent sessions: %w", err)
	}
	out := make([]journal.SessionBrief, 0, len(ids))
	for _, id := range ids {
		b, err := s.Read.sessionBrief(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// sessionBrief reads a session's first prompt, counts, latest summary and
// draft, of the entries the asker may read.
func (s Statements) sessionBrief(ctx context.Context, sessionID string) (journal.SessionBrief, error) {
	b := journal.SessionBrief{SessionID: sessionID}
	p := Params{sessionID}
	own := OwnWork(ctx, "j", &p)
	err := s.SQL.QueryRow(ctx, `SELECT count(*) FILTER (WHERE j.kind = 'prompt'), count(*) FILTER (WHERE j.kind = 'observation'),
		max(j.created_at) FROM journal j WHERE j.session_id = $1 AND `+own, p...).Scan(&b.Prompts, &b.ToolCalls, &b.LastAt)
	if err != nil {
		return b, fmt.Errorf("recent session %s: %w", sessionID, err)
	}
	if b.FirstPrompt, err = s.firstEntry(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND `+own+` AND j.kind = 'prompt' ORDER BY j.id LIMIT 1`, p...); err != nil {
		return b, err
	}
	if b.Summary, err = s.firstEntry(ctx, `SELECT `+journalColumns+` FROM journal j
		WHERE j.session_id = $1 AND `+own+` AND j.kind = 'summary' ORDER BY j.id DESC LIMIT 1`, p...); err != nil {
		return b, err
	}
	err = s.SQL.QueryRow(ctx, `SELECT draft_memory_id FROM capture_sessions WHERE session_id = $1`, sessionID).Scan(&b.DraftMemoryID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("recent session %s: %w", sessionID, err)
	}
	return b, nil
}

// SummaryProgress reports the last entry summarised, the chat calls spent on
// a session and the memory holding its extractive summary awaiting the
// model's ("" when none).
func (s Shared) SummaryProgress(ctx context.Context, sessionID string) (journal.Progress, error) {
	var p journal.Progress
	err := s.Read.SQL.QueryRow(ctx, `SELECT summarized_through, model_calls, draft_memory_id FROM capture_sessions
		WHERE session_id = $1`, sessionID).Scan(&p.Through, &p.ModelCalls, &p.DraftMemoryID)
	if errors.Is(err, sql.ErrNoRows) {
		return journal.Progress{}, nil
	}
	if err != nil {
		return journal.Progress{}, fmt.Errorf("read summary progress of %s: %w", sessionID, err)
	}
	return p, nil
}

// SetDraftSummary records the memory holding a session's extractive summary.
func (s Statements) SetDraftSummary(ctx context.Context, sessionID, memoryID string) error {
	_, err := s.SQL.Exec(ctx, `INSERT INTO capture_sessions (session_id, draft_memory_id) VALUES ($1, $2)
		ON CONFLICT (session_id) DO UPDATE SET draft_memory_id = excluded.draft_memory_id`, sessionID, memoryID)
	if err != nil {
		return fmt.Errorf("record draft summary of %s: %w", sessionID, err)
	}
	return nil
}
