package history

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

// Window is a stretch of one conversation, for drill-down from a search
// match, a session summary's anchor or the CLI.
type Window struct {
	SessionID string `json:"session_id"`
	Project   string `json:"project"`
	Path      string `json:"transcript"`
	Messages  []View `json:"messages"` // the anchor has is_match true
	// NextCursor, when a whole conversation is read, continues it where this
	// page ends; "" on its last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// A page of a whole conversation: at most pageMessages messages and about
// pageBytes of text (some 8,000 tokens), and at least one message.
const (
	pageMessages = 50
	pageBytes    = 32 << 10
)

// FindTranscript returns the path of a session's own transcript (not its
// subagents') under root.
func FindTranscript(root, sessionID string) (string, error) {
	found, err := Scan(root)
	if err != nil {
		return "", err
	}
	for _, t := range found {
		if t.SessionID == sessionID && !t.Subagent() {
			return t.Path, nil
		}
	}
	return "", fmt.Errorf("no transcript of session %q under %s", sessionID, root)
}

// ReadAround reads the conversation around message uuid of a session
// straight from Claude Code's transcripts under root (always up to date,
// nothing indexed needed): at most before messages before it and after after
// it, in file order, and the anchor's index among them. The session's own
// transcript is read first, then its subagents'. Session summaries anchored
// to (session, uuid) drill down with it.
func ReadAround(root, sessionID, uuid string, before, after int) ([]Message, int, error) {
	found, err := Scan(root)
	if err != nil {
		return nil, 0, err
	}
	slices.SortStableFunc(found, func(a, b Transcript) int { return cmp.Compare(a.AgentID, b.AgentID) }) // the session first
	return readFirst(found, root, sessionID, fmt.Sprintf("message %q", uuid), func(path string) ([]Message, int, error) {
		return Reader{}.Around(path, uuid, before, after)
	})
}

// readFirst reads the window from the first of the transcripts found that
// belong to the session (or to no session) and hold it; the error says
// whether the session has no transcript or what (sought) is not in it.
func readFirst(found []Transcript, root, sessionID, sought string, read func(path string) ([]Message, int, error)) ([]Message, int, error) {
	seen := false
	for _, t := range found {
		if t.SessionID != sessionID && t.SessionID != "" {
			continue
		}
		msgs, anchor, err := read(t.Path)
		if err == nil {
			return msgs, anchor, nil
		}
		seen = seen || t.SessionID == sessionID
	}
	if !seen {
		return nil, 0, fmt.Errorf("no transcript of session %q under %s", sessionID, root)
	}
	return nil, 0, fmt.Errorf("%s is not in session %q", sought, sessionID)
}

// Show reads a conversation from its transcript (always up to date, full
// text): the window of before and after messages around uuid, or with uuid
// empty the whole session a page at a time, from cursor ("" for the first
// page). The index only says which file holds uuid (a subagent's, say); a
// session not yet indexed is looked up on disk.
func (ix *Index) Show(ctx context.Context, root, sessionID, uuid string, before, after int, cursor string) (*Window, error) {
	path, project, err := ix.locate(ctx, sessionID, uuid)
	if err != nil {
		return nil, err
	}
	w := &Window{SessionID: sessionID, Project: project, Path: path, Messages: []View{}}
	var msgs []Message
	anchor := -1
	switch {
	case path != "" && uuid != "":
		msgs, anchor, err = Reader{}.Around(path, uuid, before, after)
	case uuid != "": // not indexed yet
		msgs, anchor, err = ReadAround(root, sessionID, uuid, before, after)
	default:
		if path == "" {
			if path, err = FindTranscript(root, sessionID); err != nil {
				return nil, err
			}
			w.Path = path
		}
		var from, next int64
		if from, err = parseCursor(cursor); err != nil {
			return nil, err
		}
		if msgs, next, err = (Reader{}).Page(path, from, pageMessages, pageBytes); err == nil && next > 0 {
			w.NextCursor = strconv.FormatInt(next, 10)
		}
	}
	if err != nil {
		return nil, err
	}
	for i, m := range msgs {
		if w.Project == "" {
			w.Project = m.Cwd
		}
		isAnchor := i == anchor
		v := View{Role: m.Role, Content: m.Text, UUID: m.UUID, IsMatch: &isAnchor}
		if !m.Timestamp.IsZero() {
			v.Timestamp = formatMillis(m.Timestamp.UnixMilli())
		}
		w.Messages = append(w.Messages, v)
	}
	return w, nil
}

// ErrBadCursor says a cursor is not one Show gave.
var ErrBadCursor = errors.New("cursor: want the next_cursor of the previous page, or nothing for the first page")

func parseCursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, ErrBadCursor
	}
	return n, nil
}

// Page reads a transcript's messages from byte offset from (a line start:
// 0, or an offset Page returned), at most maxMsgs of them and, past the
// first, no more than maxBytes of text. next is where the following page
// starts; 0 when the file has no complete line after this page.
func (rd Reader) Page(path string, from int64, maxMsgs, maxBytes int) (msgs []Message, next int64, err error) {
	f, size, err := openTranscript(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if from > size {
		return nil, 0, ErrBadCursor
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, 0, err
	}
	errFull := errors.New("page full")
	text := 0
	end, _, err := rd.Read(f, from, func(m Message) error {
		if len(msgs) > 0 && (len(msgs) == maxMsgs || text+len(m.Text) > maxBytes) {
			return errFull
		}
		msgs = append(msgs, m)
		text += len(m.Text)
		return nil
	})
	switch {
	case errors.Is(err, errFull):
		// end is past the message that did not fit: the next page starts
		// at its line, found again from the last one kept.
		return msgs, lastLineStart(f, from, end), nil
	case err != nil:
		return nil, 0, err
	}
	return msgs, 0, nil
}

// lastLineStart is the start of the last complete line that ends at end
// (a line start after from).
func lastLineStart(f *os.File, from, end int64) int64 {
	start := from
	eachLineBackward(f, end, from, func(s int64, _ []byte) error {
		start = s
		return errors.New("found")
	})
	return start
}

// locate finds the transcript holding (session, uuid) in the index: "" when
// the index does not know it.
func (ix *Index) locate(ctx context.Context, sessionID, uuid string) (path, project string, err error) {
	q := `SELECT f.path, f.project FROM files f WHERE f.session_id = ? AND f.agent_id = '' LIMIT 1`
	args := []any{sessionID}
	if uuid != "" {
		q = `SELECT f.path, f.project FROM messages m JOIN files f ON f.id = m.file_id WHERE m.session_id = ? AND m.uuid = ? LIMIT 1`
		args = append(args, uuid)
	}
	err = ix.db.QueryRowContext(ctx, q, args...).Scan(&path, &project)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return path, project, err
}

// ReadAnchored reads the window around an anchor from a session's
// transcripts under root, from their starts (the anchor's offset is for the
// transcript it was taken in): its subagents' first, since a tool call a
// subagent made is in the subagent's transcript, then the session's own.
func ReadAnchored(root, sessionID string, a Anchor, before, after int) ([]Message, int, error) {
	found, err := Scan(root)
	if err != nil {
		return nil, 0, err
	}
	// Subagents first, the session's own transcript last.
	own := func(t Transcript) int {
		if t.Subagent() {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(found, func(x, y Transcript) int { return cmp.Compare(own(x), own(y)) })
	a.Offset = 0
	return readFirst(found, root, sessionID, fmt.Sprint(a), func(path string) ([]Message, int, error) {
		return Reader{}.AroundAnchor(path, a, before, after)
	})
}
