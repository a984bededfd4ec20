// Package capture records what happens in a Claude Code session without the
// agent having to ask: the prompts, one line per tool call, and summaries the
// local chat model writes later. These live in a journal beside the curated
// memories; a session summary enters the curated store only as a `session`
// memory, which the validation loop can raise like any other.
//
// Reading is progressive: a compact index first (Search), the timeline around
// one entry (Timeline), then full records by id (Details).
package capture

import (
	"context"
	"fmt"
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

// Progress is how far a session's summaries have come.
type Progress struct {
	Through    int64 // the last entry a finished summary covers
	ModelCalls int   // chat calls spent on the session
	// DraftMemoryID is the session memory holding the extractive summary of
	// the entries after Through, until the model's summary replaces it.
	DraftMemoryID string
}

// Store keeps the journal. storage implements it in the memory database.
type Store interface {
	AddEntry(ctx context.Context, e *Entry) (int64, error)
	// Entries returns the entries among ids that exist, in the order of ids.
	Entries(ctx context.Context, ids []int64) ([]*Entry, error)
	// SearchEntries ranks entries of the namespaces (all when empty) by BM25
	// over title and body for user text (never FTS5 syntax). Best first.
	SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]EntryHit, error)
	// SessionEntries returns a session's entries with id > afterID, oldest first.
	SessionEntries(ctx context.Context, sessionID string, afterID int64, limit int) ([]*Entry, error)
	// Around returns up to before entries older and after entries newer than the
	// entry id in the same session, and the entry itself, oldest first.
	Around(ctx context.Context, id int64, before, after int) ([]*Entry, error)
	// NamespaceAround is Around for a moment of a namespace (a memory's creation).
	NamespaceAround(ctx context.Context, namespace string, at time.Time, before, after int) ([]*Entry, error)
	// RecentSummaries returns the newest summaries of a namespace, newest first.
	RecentSummaries(ctx context.Context, namespace string, limit int) ([]*Entry, error)
	// ForgetEntries deletes the entries of a session (when set) and/or created
	// before a time (when not zero), with their pending summaries; it returns
	// how many entries went and the ids of the session memories they became.
	ForgetEntries(ctx context.Context, sessionID string, before time.Time) (int, []string, error)
	// CountEntries counts what ForgetEntries would delete.
	CountEntries(ctx context.Context, sessionID string, before time.Time) (int, error)

	// QueueSummary records that a session wants a summary (a job of kind
	// summary); a session already waiting keeps one job.
	QueueSummary(ctx context.Context, sessionID, reason, turnID string) error
	// SummaryProgress reports how far a session's summaries have come.
	SummaryProgress(ctx context.Context, sessionID string) (Progress, error)
	// SetDraftSummary records the memory holding a session's extractive summary.
	SetDraftSummary(ctx context.Context, sessionID, memoryID string) error
	// RecordSummary stores a summary entry and advances the session's progress
	// to through (its draft done with), counting a chat call when byModel, in
	// one transaction.
	RecordSummary(ctx context.Context, e *Entry, through int64, byModel bool) (int64, error)
	// CountModelCall counts a chat call that produced no summary.
	CountModelCall(ctx context.Context, sessionID string) error
}

// ErrNoEntry says a journal id does not exist.
func errNoEntry(id string) error {
	return fmt.Errorf("no journal entry or memory with id %q: use an id from the search tool's results", id)
}
