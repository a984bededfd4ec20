package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/recall-mcp/recall/keywords"
)

// Limits say which conversations the user lets Recall index. The zero value
// indexes everything.
type Limits struct {
	// Projects, when not empty, are the only projects indexed: working
	// directories (/home/dev/shop, subdirectories included) or escaped
	// directory names (-home-dev-shop).
	Projects []string
	// MaxAge, when positive, leaves out transcripts last written longer ago.
	MaxAge time.Duration
}

// UpdateOptions configure one update of the index.
type UpdateOptions struct {
	Root   string // Claude Code's projects directory
	Limits Limits
	Reader Reader
	Now    func() time.Time
	// Progress, when set, is told the bytes read so far of those to read.
	Progress func(done, total int64)
}

// UpdateStats report one update.
type UpdateStats struct {
	Files     int // transcripts found
	Read      int // transcripts with new lines read
	Rewritten int // transcripts read again from the start
	Removed   int // transcripts gone from disk, or newly excluded
	Excluded  int // sessions left out by the limits (a session's subagents are part of it)
	Messages  int // messages added
	Malformed int // lines skipped
	Bytes     int64
}

// fileRow is what the index remembers of a transcript.
type fileRow struct {
	id      int64
	size    int64
	mtime   int64
	offset  int64
	head    []byte // SHA-256 of the file's first headLen bytes
	headLen int
	seq     int64 // messages so far: the next message's position
}

// headBytes is how much of a file's start is fingerprinted to notice a
// rewrite. Only its hash is kept: the start of a transcript may hold a secret.
const headBytes = 256

// sameHead reports whether head, the start of a file, begins with the bytes
// fingerprinted in row (a file not read before matches).
func (r fileRow) sameHead(head []byte) bool {
	if r.head == nil {
		return true
	}
	if len(head) < r.headLen {
		return false
	}
	sum := sha256.Sum256(head[:r.headLen])
	return bytes.Equal(sum[:], r.head)
}

// Update brings the index up to date with the transcripts under opts.Root:
// it reads only what was appended since the last update, reads rewritten
// files again and forgets removed ones. Keywords are searchable as soon as
// each file's transaction commits. Take the Lock first.
func (ix *Index) Update(ctx context.Context, opts UpdateOptions) (UpdateStats, error) {
	var st UpdateStats
	found, err := Scan(opts.Root)
	if err != nil {
		return st, fmt.Errorf("scan %s: %w", opts.Root, err)
	}
	st.Files = len(found)
	known, err := ix.fileRows(ctx)
	if err != nil {
		return st, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	var todo []Transcript
	var total int64
	excluded := map[string]bool{} // sessions, by project and id (or file, when a file names none)
	for _, t := range found {
		row, ok := known[t.Path]
		delete(known, t.Path)
		switch {
		case !opts.Limits.allows(t, now()):
			key := t.ProjectDir + "/" + t.SessionID
			if t.SessionID == "" {
				key = t.Path
			}
			excluded[key] = true
			if ok {
				st.Removed++
				if err := ix.removeFile(ctx, row.id); err != nil {
					return st, err
				}
			}
		case ok && row.size == t.Size && row.mtime == t.ModTime.UnixNano():
			// unchanged
		default:
			todo = append(todo, t)
			total += t.Size - min(row.offset, t.Size)
		}
	}
	for _, row := range known { // gone from disk
		st.Removed++
		if err := ix.removeFile(ctx, row.id); err != nil {
			return st, err
		}
	}
	for _, t := range todo {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if err := ix.updateFile(ctx, t, opts.Reader, &st); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // removed meanwhile: the next update forgets it
			}
			return st, fmt.Errorf("index %s: %w", t.Path, err)
		}
		if opts.Progress != nil {
			opts.Progress(st.Bytes, total)
		}
	}
	st.Excluded = len(excluded)
	if err := ix.setMeta(ctx, "excluded_sessions", strconv.Itoa(st.Excluded)); err != nil {
		return st, err
	}
	return st, ix.setMeta(ctx, "updated_at", now().UTC().Format(time.RFC3339Nano))
}

// allows reports whether the limits let t be indexed.
func (l Limits) allows(t Transcript, now time.Time) bool {
	if l.MaxAge > 0 && now.Sub(t.ModTime) > l.MaxAge {
		return false
	}
	if len(l.Projects) == 0 {
		return true
	}
	for _, p := range l.Projects {
		if p == t.ProjectDir || EscapeProject(p) == t.ProjectDir {
			return true
		}
	}
	return false
}

func (ix *Index) fileRows(ctx context.Context) (map[string]fileRow, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT id, path, size, mtime, offset, head, head_len, messages FROM files`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]fileRow{}
	for rows.Next() {
		var r fileRow
		var path string
		if err := rows.Scan(&r.id, &path, &r.size, &r.mtime, &r.offset, &r.head, &r.headLen, &r.seq); err != nil {
			return nil, err
		}
		out[path] = r
	}
	return out, rows.Err()
}

func (ix *Index) removeFile(ctx context.Context, id int64) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := deleteMessages(ctx, tx, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, id); err != nil {
		return err
	}
	return tx.Commit()
}

func deleteMessages(ctx context.Context, tx *sql.Tx, fileID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages WHERE file_id = ?)`, fileID); err != nil {
		return err
	}
	if err := deleteVectors(ctx, tx, fileID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE file_id = ?`, fileID)
	return err
}

// updateFile reads what is new in one transcript, in one transaction.
func (ix *Index) updateFile(ctx context.Context, t Transcript, rd Reader, st *UpdateStats) error {
	f, err := os.Open(t.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	row, err := fileRowFor(ctx, tx, t)
	if err != nil {
		return err
	}
	head := make([]byte, headBytes)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if t.Size < row.offset || !row.sameHead(head) {
		// Rewritten (shorter, or different from the start): read it again.
		if err := deleteMessages(ctx, tx, row.id); err != nil {
			return err
		}
		row.offset, row.seq = 0, 0
		st.Rewritten++
	}
	if _, err := f.Seek(row.offset, io.SeekStart); err != nil {
		return err
	}
	w, err := newMessageWriter(ctx, tx, row.id, row.seq, t)
	if err != nil {
		return err
	}
	defer w.close()
	end, rs, err := rd.Read(f, row.offset, w.write)
	if err != nil {
		return err
	}
	st.Read++
	st.Messages += rs.Messages
	st.Malformed += rs.Malformed
	st.Bytes += end - row.offset
	if end < headBytes {
		head = head[:min(int64(len(head)), end)]
	}
	headSum := sha256.Sum256(head)
	_, err = tx.ExecContext(ctx, `UPDATE files SET size = ?, mtime = ?, offset = ?, head = ?, head_len = ?, messages = ?,
		malformed = malformed + ?, project = CASE WHEN project = '' THEN ? ELSE project END,
		session_id = CASE WHEN session_id = '' THEN ? ELSE session_id END WHERE id = ?`,
		t.Size, t.ModTime.UnixNano(), end, headSum[:], len(head), w.seq, rs.Malformed, w.cwd, w.session, row.id)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// fileRowFor returns the file's row, creating it when new.
func fileRowFor(ctx context.Context, tx *sql.Tx, t Transcript) (fileRow, error) {
	var r fileRow
	err := tx.QueryRowContext(ctx, `SELECT id, offset, head, head_len, messages FROM files WHERE path = ?`, t.Path).Scan(&r.id, &r.offset, &r.head, &r.headLen, &r.seq)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return r, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO files(path, project_dir, session_id, agent_id) VALUES(?, ?, ?, ?)`,
		t.Path, t.ProjectDir, t.SessionID, t.AgentID)
	if err != nil {
		return r, err
	}
	r.id, err = res.LastInsertId()
	return r, err
}

// messageWriter inserts one file's messages with prepared statements.
type messageWriter struct {
	ctx          context.Context
	msg, fts     *sql.Stmt
	file, seq    int64
	session, cwd string // the first seen, for the file's row
}

func newMessageWriter(ctx context.Context, tx *sql.Tx, file, seq int64, t Transcript) (*messageWriter, error) {
	msg, err := tx.PrepareContext(ctx, `INSERT INTO messages(file_id, seq, uuid, session_id, role, ts, text) VALUES(?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	fts, err := tx.PrepareContext(ctx, `INSERT INTO messages_fts(rowid, words) VALUES(?, ?)`)
	if err != nil {
		msg.Close()
		return nil, err
	}
	return &messageWriter{ctx: ctx, msg: msg, fts: fts, file: file, seq: seq, session: t.SessionID}, nil
}

func (w *messageWriter) write(m Message) error {
	if w.session == "" {
		w.session = m.SessionID
	}
	if w.cwd == "" {
		w.cwd = m.Cwd
	}
	session := m.SessionID
	if session == "" {
		session = w.session
	}
	var ts int64
	if !m.Timestamp.IsZero() {
		ts = m.Timestamp.UnixMilli()
	}
	res, err := w.msg.ExecContext(w.ctx, w.file, w.seq, m.UUID, session, m.Role, ts, m.Text)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	w.seq++
	_, err = w.fts.ExecContext(w.ctx, id, keywords.Expand(m.Text))
	return err
}

func (w *messageWriter) close() {
	w.msg.Close()
	w.fts.Close()
}

// CatchUpOptions configure a catch-up read of some projects' transcripts.
type CatchUpOptions struct {
	Root string // Claude Code's projects directory
	// Projects are the working directories whose transcripts are read (and
	// their subdirectories'); empty, every project's.
	Projects []string
	Limits   Limits
	// MaxBytes bounds what is read: transcripts with more to read than is
	// left (a first index) are left to Update.
	MaxBytes int64
	Now      func() time.Time
}

// CatchUp reads into the index what was appended to some projects'
// transcripts since they were last read, so that a search sees the messages
// written just before it at the cost of a bounded read: it lists only those
// projects' directories and reads no more than MaxBytes. It forgets nothing
// (removed transcripts, newly excluded ones: Update's work). Take the Lock
// first. Left reports the bytes it left unread.
func (ix *Index) CatchUp(ctx context.Context, opts CatchUpOptions) (st UpdateStats, left int64, err error) {
	found, err := scanProjects(opts.Root, opts.Projects)
	if err != nil {
		return st, 0, fmt.Errorf("scan %s: %w", opts.Root, err)
	}
	st.Files = len(found)
	known, err := ix.fileRows(ctx)
	if err != nil {
		return st, 0, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	budget := opts.MaxBytes
	for _, t := range found {
		row, ok := known[t.Path]
		if !opts.Limits.allows(t, now()) || (ok && row.size == t.Size && row.mtime == t.ModTime.UnixNano()) {
			continue
		}
		todo := t.Size - min(row.offset, t.Size)
		if todo > budget {
			left += todo
			continue
		}
		read := st.Bytes
		if err := ix.updateFile(ctx, t, Reader{}, &st); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return st, left, fmt.Errorf("index %s: %w", t.Path, err)
		}
		budget -= st.Bytes - read
	}
	return st, left, nil
}

// scanProjects lists the transcripts of the projects' directories under
// root: each project's own (its escaped path) and its subdirectories'
// (escaped names that extend it: Claude Code keys a session by the working
// directory it started in). Every project's when projects is empty.
func scanProjects(root string, projects []string) ([]Transcript, error) {
	if len(projects) == 0 {
		return Scan(root)
	}
	return scanWhere(root, func(name string) bool { return ofProjects(name, projects) })
}

// ofProjects reports whether an escaped directory name is one of the
// projects' or of a subdirectory of one.
func ofProjects(name string, projects []string) bool {
	for _, p := range projects {
		e := EscapeProject(strings.TrimSuffix(p, "/"))
		if name == e || strings.HasPrefix(name, e+"-") {
			return true
		}
	}
	return false
}
