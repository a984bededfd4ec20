package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

const journalColumns = `id, kind, namespace, session_id, turn_id, transcript_path, tool_name,
	title, body, files, memory_id, trimmed_bytes, created_at, author, anchor_id, transcript_offset`

// AddEntry appends an entry to the journal and returns its id. It is a hook
// write: behind another writer it may be spooled (see spooled.go), and then
// returns 0.
func (s *DB) AddEntry(ctx context.Context, e *journal.Entry) (int64, error) {
	if err := checkEntry(e); err != nil {
		return 0, err
	}
	e.CreatedAt = orNow(e.CreatedAt, time.Now()) // a spooled entry keeps its time
	e.Author = memory.AuthorOr(ctx, e.Author)
	var id int64
	err := s.hookWrite(ctx, spoolJournal, e, func(tx *sql.Tx) error {
		var err error
		if id, err = insertEntry(ctx, tx, e); err != nil || !s.shortLived {
			return err
		}
		// A hook working alone (no recall serve to merge them) folds the
		// small segments its records leave in the journal's keyword index,
		// which the next prompt's search of past sessions looks in one by
		// one; post-tool-use, paid on every tool call, leaves it to this.
		// A merge that fails costs nothing but speed: SQLite undoes that
		// statement alone and the record is committed all the same.
		if _, err := mergeStep(ctx, tx, journalIndex, hookMergePages); err != nil {
			s.log.Debug("journal's keyword index not merged; a later record tries again", "err", err)
		}
		return nil
	})
	return id, err
}

func checkEntry(e *journal.Entry) error {
	if e.Title == "" {
		return memory.Invalidf("title", `""`, "a one-line title")
	}
	return nil
}

func insertEntry(ctx context.Context, tx *sql.Tx, e *journal.Entry) (int64, error) {
	return insertEntryAt(ctx, tx, e, 0)
}

// insertEntryAt is insertEntry under id (0: the next one), for an import
// that keeps an entry's id.
func insertEntryAt(ctx context.Context, tx *sql.Tx, e *journal.Entry, id int64) (int64, error) {
	if err := checkEntry(e); err != nil {
		return 0, err
	}
	files, err := json.Marshal(orEmpty(e.Files))
	if err != nil {
		return 0, fmt.Errorf("encode files: %w", err)
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO journal (id, kind, namespace, session_id, turn_id, transcript_path,
			tool_name, title, body, files, memory_id, trimmed_bytes, created_at, search_words, author, anchor_id, transcript_offset)
		VALUES (nullif(?, 0), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		id, string(e.Kind), e.Namespace, e.SessionID, e.TurnID, e.TranscriptPath, e.ToolName,
		e.Title, e.Body, string(files), e.MemoryID, e.TrimmedBytes, formatTime(orNow(e.CreatedAt, time.Now())),
		entrySearchWords(e.Title, e.Body), e.Author, e.AnchorID, e.TranscriptOffset).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add journal entry: %w", err)
	}
	e.ID = id
	return id, nil
}

// entrySearchWords are the other spellings of an entry's code words, indexed
// beside it as a memory's are (keywords.SearchWords).
func entrySearchWords(title, body string) string {
	return keywords.SearchWords(title + "\n" + body)
}

func orEmpty(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// Entries returns the entries among ids that exist, in the order of ids.
func (s *DB) Entries(ctx context.Context, ids []int64) ([]*journal.Entry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	own, oargs := ownWork(ctx, "journal")
	found, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal WHERE id IN (`+placeholders(len(ids))+`) AND `+own,
		append(anySlice(ids), oargs...)...)
	if err != nil {
		return nil, err
	}
	return journal.InOrder(ids, found), nil
}

// SearchEntries ranks entries by BM25 over title and body, best first.
//
// The prompt hook searches the journal on every prompt, and the journal grows
// with every prompt and tool call, so that any of a prompt's words matches
// thousands of entries. Joining each match to its row for the filter cost
// most of the search (8.3 of 10 ms over 1,200 matches), so the best
// max(rankPrefilter*limit, minRankPrefilter) matches by BM25 alone are joined
// and filtered first; when at least limit of them pass, they are exactly the
// best limit that pass (both steps keep the same total order), otherwise
// every match is joined.
func (s *DB) SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]journal.EntryHit, error) {
	q := ftsQuery(text, "OR")
	if q == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = storage.DefaultSearchLimit
	}
	where, args := ownWork(ctx, "j")
	if len(namespaces) > 0 {
		where += " AND j.namespace IN (" + placeholders(len(namespaces)) + ")"
		args = append(args, anySlice(namespaces)...)
	}
	top := max(rankPrefilter*limit, minRankPrefilter)
	hits, err := s.queryEntryHits(ctx, `WITH top AS MATERIALIZED (
			SELECT journal_fts.rowid AS id, bm25(journal_fts) AS rank FROM journal_fts
			WHERE journal_fts MATCH ? ORDER BY rank, journal_fts.rowid DESC LIMIT ?
		)
		SELECT `+prefixColumns("j.", journalColumns)+`, top.rank FROM top JOIN journal j ON j.id = top.id
		WHERE `+where+`
		ORDER BY top.rank, j.id DESC LIMIT ?`, append(append([]any{q, top}, args...), limit)...)
	if err != nil || len(hits) >= limit {
		return hits, err
	}
	return s.queryEntryHits(ctx, `SELECT `+prefixColumns("j.", journalColumns)+`, bm25(journal_fts) AS rank
		FROM journal_fts JOIN journal j ON j.id = journal_fts.rowid
		WHERE journal_fts MATCH ? AND `+where+`
		ORDER BY rank, j.id DESC LIMIT ?`, append(append([]any{q}, args...), limit)...)
}

// HasPastEntries reports whether the journal holds an entry of namespaces
// (all when empty) written in another session than current ("": in any
// session) (capture.PastEntryChecker). It seeks the journal's index of
// namespaces and sessions, twice a namespace, whatever the journal's size:
// a project's first session, with nothing in the past to show, skips the
// prompt hook's search of the journal (0.7-0.9 ms of a hook's process,
// mostly FTS5 opening the journal's index and compiling its query).
func (s *DB) HasPastEntries(ctx context.Context, namespaces []string, current string) (bool, error) {
	query, args := pastEntriesQuery(namespaces, current)
	var past bool
	if err := s.db.QueryRowContext(ctx, query, args...).Scan(&past); err != nil {
		return false, fmt.Errorf("journal's past sessions: %w", err)
	}
	return past, nil
}

// pastEntriesQuery is HasPastEntries' query, with its arguments.
func pastEntriesQuery(namespaces []string, current string) (string, []any) {
	ops := []string{"<", ">"} // two seeks, where <> would read the current session's entries
	if current == "" {
		ops = []string{">="} // any session, none included
	}
	scopes := []string{""}
	if len(namespaces) > 0 {
		scopes = namespaces
	}
	var exists []string
	var args []any
	for _, ns := range scopes {
		for _, op := range ops {
			cond := "session_id " + op + " ?"
			if len(namespaces) > 0 {
				cond = "namespace = ? AND " + cond
				args = append(args, ns)
			}
			exists = append(exists, "EXISTS (SELECT 1 FROM journal WHERE "+cond+")")
			args = append(args, current)
		}
	}
	return "SELECT " + strings.Join(exists, " OR "), args
}

// queryEntryHits runs a journal ranking query returning an entry's columns and
// its BM25 rank.
func (s *DB) queryEntryHits(ctx context.Context, query string, args ...any) ([]journal.EntryHit, error) {
	return queryAll(ctx, s, "journal search", query, args, func(r storage.Row) (journal.EntryHit, error) {
		var rank float64
		e, err := storage.ScanEntry(r, &rank)
		return journal.EntryHit{Entry: e, Score: -rank}, err
	})
}

func prefixColumns(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// SessionEntries returns a session's entries after afterID, oldest first.
func (s *DB) SessionEntries(ctx context.Context, sessionID string, afterID int64, limit int) ([]*journal.Entry, error) {
	return s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal
		WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`, sessionID, afterID, limit)
}

// LastCapture returns the session's newest prompt or tool call entry, nil
// when it has none.
func (s *DB) LastCapture(ctx context.Context, sessionID string) (*journal.Entry, error) {
	es, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal
		WHERE session_id = ? AND kind IN ('prompt', 'observation') ORDER BY id DESC LIMIT 1`, sessionID)
	if err != nil || len(es) == 0 {
		return nil, err
	}
	return es[0], nil
}

// Around returns the entry id with its neighbours in the same session.
func (s *DB) Around(ctx context.Context, id int64, before, after int) ([]*journal.Entry, error) {
	var session string
	own, oargs := ownWork(ctx, "journal")
	err := s.db.QueryRowContext(ctx, `SELECT session_id FROM journal WHERE id = ? AND `+own, append([]any{id}, oargs...)...).Scan(&session)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, memory.NotFound("journal entry", journal.EntryID(id))
	}
	if err != nil {
		return nil, fmt.Errorf("read journal entry: %w", err)
	}
	older, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal
		WHERE session_id = ? AND id < ? AND `+own+` ORDER BY id DESC LIMIT ?`, append(append([]any{session, id}, oargs...), before)...)
	if err != nil {
		return nil, err
	}
	rest, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal
		WHERE session_id = ? AND id >= ? AND `+own+` ORDER BY id LIMIT ?`, append(append([]any{session, id}, oargs...), after+1)...)
	if err != nil {
		return nil, err
	}
	slices.Reverse(older)
	return append(older, rest...), nil
}

// NamespaceAround returns the entries of a namespace nearest a moment.
func (s *DB) NamespaceAround(ctx context.Context, namespace string, at time.Time, before, after int) ([]*journal.Entry, error) {
	t := formatTime(at)
	where, args := ownWork(ctx, "journal")
	// An empty namespace is every namespace (a global memory's moment).
	if namespace != "" {
		where += " AND namespace = ?"
		args = append(args, namespace)
	}
	older, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal
		WHERE `+where+` AND created_at <= ? ORDER BY created_at DESC, id DESC LIMIT ?`, append(slices.Clip(args), t, before)...)
	if err != nil {
		return nil, err
	}
	newer, err := s.queryEntries(ctx, `SELECT `+journalColumns+` FROM journal
		WHERE `+where+` AND created_at > ? ORDER BY created_at, id LIMIT ?`, append(slices.Clip(args), t, after)...)
	if err != nil {
		return nil, err
	}
	slices.Reverse(older)
	return append(older, newer...), nil
}

// ForgetEntries deletes captured material of a session and/or before a time.
func (s *DB) ForgetEntries(ctx context.Context, sessionID string, before time.Time) (int, []string, error) {
	if sessionID == "" && before.IsZero() {
		return 0, nil, memory.Invalidf("session or before", `""`, "a session id or a date")
	}
	var conds []string
	var args []any
	if sessionID != "" {
		conds = append(conds, "session_id = ?")
		args = append(args, sessionID)
	}
	if !before.IsZero() {
		conds = append(conds, "created_at < ?")
		args = append(args, formatTime(before))
	}
	// A person forgets their own sessions alone.
	restricted := memory.PrincipalFrom(ctx).Restricted()
	own, oargs := ownWork(ctx, "")
	if restricted {
		conds, args = append(conds, own), append(args, oargs...)
	}
	where := strings.Join(conds, " AND ")
	var n int
	var memIDs []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT memory_id FROM journal WHERE memory_id != '' AND `+where, args...)
		if err != nil {
			return fmt.Errorf("forget journal: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			memIDs = append(memIDs, id)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE `+where, args...)
		if err != nil {
			return fmt.Errorf("forget journal: %w", err)
		}
		n64, _ := res.RowsAffected()
		n = int(n64)
		// File activity is captured by the same hooks.
		if _, err := tx.ExecContext(ctx, `DELETE FROM file_activity WHERE `+where, args...); err != nil {
			return fmt.Errorf("forget file activity: %w", err)
		}
		if restricted && (sessionID == "" || n == 0) {
			// The session bookkeeping and jobs below are shared by every
			// author's rows; a person's forget by date leaves them to the
			// summariser, which finds nothing left to summarise.
			return nil
		}
		if sessionID != "" {
			// The extractive summary awaiting the model's is the session's too.
			var draft string
			err := tx.QueryRowContext(ctx, `SELECT draft_memory_id FROM capture_sessions WHERE session_id = ?`, sessionID).Scan(&draft)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("forget journal: %w", err)
			}
			if draft != "" {
				memIDs = append(memIDs, draft)
			}
			for _, q := range []string{`DELETE FROM jobs WHERE kind = '` + journal.SummaryJobKind + `' AND subject = ? AND failed_at = ''`,
				`DELETE FROM capture_sessions WHERE session_id = ?`, `DELETE FROM sessions WHERE id = ?`} {
				if _, err := tx.ExecContext(ctx, q, sessionID); err != nil {
					return fmt.Errorf("forget journal: %w", err)
				}
			}
		}
		if !before.IsZero() {
			if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE kind = '`+journal.SummaryJobKind+`' AND failed_at = '' AND created_at < ?`, formatTime(before)); err != nil {
				return fmt.Errorf("forget journal: %w", err)
			}
		}
		return nil
	})
	return n, memIDs, err
}

// CountEntries counts the journal entries of a session (when set) and/or
// created before a time (when not zero).
func (s *DB) CountEntries(ctx context.Context, sessionID string, before time.Time) (int, error) {
	own, oargs := ownWork(ctx, "journal")
	q := `SELECT count(*) FROM journal WHERE (? = '' OR session_id = ?) AND (? = '' OR created_at < ?) AND ` + own
	b := ""
	if !before.IsZero() {
		b = formatTime(before)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, q, append([]any{sessionID, sessionID, b, b}, oargs...)...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count journal: %w", err)
	}
	return n, nil
}

func (s *DB) queryEntries(ctx context.Context, query string, args ...any) ([]*journal.Entry, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer rows.Close()
	var out []*journal.Entry
	for rows.Next() {
		e, err := storage.ScanEntry(cursor{rows})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// toolCall is what the post-tool-use hook records of one tool call: its
// journal entry and, for a file tool, the touch of the file. Either may be nil.
type toolCall struct {
	Entry    *journal.Entry       `json:"entry,omitempty"`
	Activity *memory.FileActivity `json:"file_activity,omitempty"`
}

// RecordToolCall writes a tool call's entry and file touch in one transaction
// (one commit, one sync of the WAL): the post-tool-use hook runs after every
// tool call, so each commit is paid hundreds of times a session. Behind
// another writer both go to the spool as one write.
func (s *DB) RecordToolCall(ctx context.Context, e *journal.Entry, a *memory.FileActivity) error {
	if e == nil && a == nil {
		return nil
	}
	if e != nil {
		e.Author = memory.AuthorOr(ctx, e.Author)
	}
	if a != nil {
		a.Author = memory.AuthorOr(ctx, a.Author)
	}
	c := toolCall{Entry: e, Activity: a}
	write, err := toolCallWrite(ctx, &c)
	if err != nil {
		return err
	}
	return s.hookWrite(ctx, spoolToolCall, &c, write)
}

// toolCallWrite checks a tool call and returns the statements that record it.
func toolCallWrite(ctx context.Context, c *toolCall) (func(tx *sql.Tx) error, error) {
	if c.Entry != nil {
		if err := checkEntry(c.Entry); err != nil {
			return nil, err
		}
		c.Entry.CreatedAt = orNow(c.Entry.CreatedAt, time.Now())
	}
	var insertActivity func(tx *sql.Tx) (int64, error)
	if c.Activity != nil {
		c.Activity.CreatedAt = orNow(c.Activity.CreatedAt, time.Now())
		var err error
		if insertActivity, err = fileActivityInsert(ctx, c.Activity); err != nil {
			return nil, err
		}
	}
	return func(tx *sql.Tx) error {
		if c.Entry != nil {
			id, err := insertEntry(ctx, tx, c.Entry)
			if err != nil {
				return err
			}
			c.Entry.ID = id
		}
		if insertActivity != nil {
			id, err := insertActivity(tx)
			if err != nil {
				return err
			}
			c.Activity.ID = id
		}
		return nil
	}, nil
}
