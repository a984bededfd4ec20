// Package history makes Claude Code's conversation transcripts searchable:
// it reads the JSONL files Claude Code writes under ~/.claude/projects,
// indexes them incrementally into their own SQLite file (keywords at once,
// vectors in the background) and searches them with context windows.
package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// Roles of indexed messages. A compaction summary is what Claude Code wrote
// in place of the conversation it compacted.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSummary   = "summary"
)

// Message is one indexed message of a transcript.
type Message struct {
	UUID       string
	ParentUUID string
	SessionID  string
	AgentID    string // set in subagent conversations
	Role       string
	Timestamp  time.Time
	Cwd        string
	GitBranch  string
	Sidechain  bool
	Text       string // what is indexed and shown, made safe to keep: see ExtractText

	pieces []piece // the text before it is made safe, while a reader defers that
}

// finish makes the message's text safe to keep, once.
func (m *Message) finish() {
	if m.pieces != nil {
		m.Text, m.pieces = render(m.pieces), nil
	}
}

// record is one line of a transcript, as far as Recall reads it. Claude Code
// adds fields and types over time; unknown ones are ignored.
type record struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	ParentUUID       string          `json:"parentUuid"`
	SessionID        string          `json:"sessionId"`
	AgentID          string          `json:"agentId"`
	Timestamp        json.RawMessage `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// errMalformed marks a line that is not a JSON object with a type.
var errMalformed = errors.New("malformed transcript line")

// parseLine turns one line into a message, its text not yet made safe to
// keep (see Message.finish). ok is false for lines that hold
// nothing to index (other record types, meta records, thinking only);
// err is errMalformed for lines that are not a transcript record at all.
func parseLine(line []byte, opts TextOptions) (m Message, ok bool, err error) {
	var r record
	if err := json.Unmarshal(line, &r); err != nil || r.Type == "" {
		return Message{}, false, errMalformed
	}
	if (r.Type != "user" && r.Type != "assistant") || r.Message == nil || r.IsMeta || r.UUID == "" {
		return Message{}, false, nil // system, summary, progress, snapshots, newer types
	}
	role := r.Type
	if r.IsCompactSummary {
		role = RoleSummary
	}
	ps := pieces(r.Message.Content, opts)
	if blank(ps) {
		return Message{}, false, nil
	}
	ts, _ := parseTimestamp(r.Timestamp)
	return Message{
		UUID: r.UUID, ParentUUID: r.ParentUUID, SessionID: r.SessionID, AgentID: r.AgentID,
		Role: role, Timestamp: ts, Cwd: r.Cwd, GitBranch: r.GitBranch, Sidechain: r.IsSidechain,
		pieces: ps,
	}, true, nil
}

// PromptUUID returns the uuid of a transcript line that is a prompt the user
// typed: a user record, not meta, whose content is not tool results (Claude
// Code writes those as user lines too). "" for any other line.
func PromptUUID(line []byte) string {
	if !bytes.Contains(line, []byte(`"user"`)) {
		return "" // most lines, without decoding them
	}
	var r record
	if json.Unmarshal(line, &r) != nil || r.Type != "user" || r.IsMeta || r.UUID == "" || r.Message == nil {
		return ""
	}
	var text string
	if json.Unmarshal(r.Message.Content, &text) == nil {
		return r.UUID
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.Message.Content, &blocks) != nil {
		return ""
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return ""
		}
	}
	return r.UUID
}

// parseTimestamp reads an RFC 3339 string (with or without a fraction) or a
// number of Unix milliseconds, as older tools wrote.
func parseTimestamp(raw json.RawMessage) (time.Time, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t, err := time.Parse(time.RFC3339Nano, s)
		return t.UTC(), err == nil
	}
	if ms, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), true
	}
	return time.Time{}, false
}
