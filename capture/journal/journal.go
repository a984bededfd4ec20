// Package journal holds the session journal's records: what the hooks capture
// (prompts, one entry per tool call) and the summaries made of them. It imports
// nothing of Recall, so a store can keep the journal without depending on the
// capture package (and, through it, on the conversation history or Ollama).
package journal

import (
	"strconv"
	"strings"
	"time"
)

// Kind is the kind of a journal entry.
type Kind string

const (
	KindPrompt      Kind = "prompt"
	KindObservation Kind = "observation"
	KindSummary     Kind = "summary"
)

// Entry is one journal record.
type Entry struct {
	ID             int64     `json:"-"`
	Kind           Kind      `json:"kind"`
	Namespace      string    `json:"namespace"`
	SessionID      string    `json:"session_id,omitempty"`
	TurnID         string    `json:"turn_id,omitempty"`
	TranscriptPath string    `json:"transcript_path,omitempty"`
	ToolName       string    `json:"tool_name,omitempty"`
	Title          string    `json:"title"`
	Body           string    `json:"body,omitempty"`
	Files          []string  `json:"files,omitempty"`
	MemoryID       string    `json:"memory_id,omitempty"`
	TrimmedBytes   int       `json:"trimmed_bytes,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	Author         string    `json:"author,omitempty"` // whose session (empty: this machine's); a person reads their own alone
	// AnchorID is the entry's own message in the transcript, by the id Claude
	// Code gives the hook: a tool call's tool_use_id, a prompt's prompt_id.
	AnchorID string `json:"anchor_id,omitempty"`
	// TranscriptOffset is the transcript's size when the entry was captured
	// (the hook stats the file, never reads it): its message lies just
	// before (a tool call) or just after (a prompt), where details read it.
	TranscriptOffset int64 `json:"transcript_offset,omitempty"`
}

// entryPrefix marks journal ids among memory ids: j42 is journal entry 42.
const entryPrefix = "j"

// EntryID is the public id of a journal entry.
func EntryID(id int64) string { return entryPrefix + strconv.FormatInt(id, 10) }

// ParseEntryID reads a public journal id; ok is false for anything else (a
// memory id, say).
func ParseEntryID(s string) (int64, bool) {
	if !strings.HasPrefix(s, entryPrefix) {
		return 0, false
	}
	n, err := strconv.ParseInt(s[len(entryPrefix):], 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// EntryHit is a journal entry found by a keyword search, with its BM25 score
// (higher is better).
type EntryHit struct {
	Entry *Entry
	Score float64
}

// SummaryJobKind is the job kind of a session summary (in the job queue
// curation shares; the subject is the session id).
const SummaryJobKind = "summary"

// Progress is how far a session's summaries have come.
type Progress struct {
	Through    int64 // the last entry a finished summary covers
	ModelCalls int   // chat calls spent on the session
	// DraftMemoryID is the session memory holding the extractive summary of
	// the entries after Through, until the model's summary replaces it.
	DraftMemoryID string
}

// SessionBrief is one recent session of a project, as session start lists it.
type SessionBrief struct {
	SessionID   string
	FirstPrompt *Entry // the session's first prompt
	Prompts     int
	ToolCalls   int
	Summary     *Entry // the session's latest summary; nil when none yet
	// DraftMemoryID is the session memory holding the extractive summary of
	// what came after Summary, until the model's replaces it ("" when none).
	DraftMemoryID string
	LastAt        time.Time
}
