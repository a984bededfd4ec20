package history

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// Window is a stretch of one conversation, for drill-down from a search
// match, a session summary's anchor or the CLI.
type Window struct {
	SessionID string `json:"session_id"`
	Project   string `json:"project"`
	Path      string `json:"transcript"`
	Messages  []View `json:"messages"` // the anchor has is_match true
	Truncated bool   `json:"truncated,omitempty"`
}

// maxShown bounds the messages of a whole conversation shown at once.
const maxShown = 500

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
	seen := false
	for _, t := range found {
		if t.SessionID != sessionID && t.SessionID != "" {
			continue
		}
		msgs, anchor, err := Reader{}.Around(t.Path, uuid, before, after)
		if err == nil {
			return msgs, anchor, nil
		}
		seen = seen || t.SessionID == sessionID
	}
	if !seen {
		return nil, 0, fmt.Errorf("no transcript of session %q under %s", sessionID, root)
	}
	return nil, 0, fmt.Errorf("message %q is not in session %q", uuid, sessionID)
}

// Show reads a conversation from its transcript (always up to date, full
// text): the window of before and after messages around uuid, or with uuid
// empty the whole session. The index only says which file holds uuid (a
// subagent's, say); a session not yet indexed is looked up on disk.
func (ix *Index) Show(ctx context.Context, root, sessionID, uuid string, before, after int) (*Window, error) {
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
		msgs, _, err = Reader{}.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	if len(msgs) > maxShown {
		msgs, w.Truncated = msgs[:maxShown], true
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
