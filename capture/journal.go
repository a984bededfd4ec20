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
	"time"

	"github.com/recall-mcp/recall/capture/journal"
)

// The journal's records live in capture/journal, which imports nothing of
// Recall, so that a store keeps them without importing this package.
type (
	Kind     = journal.Kind
	Entry    = journal.Entry
	EntryHit = journal.EntryHit
	Progress = journal.Progress
	// SessionBrief is one recent session of a project.
	SessionBrief = journal.SessionBrief
)

const (
	KindPrompt      = journal.KindPrompt
	KindObservation = journal.KindObservation
	KindSummary     = journal.KindSummary
)

// EntryID is the public id of a journal entry (j42).
func EntryID(id int64) string { return journal.EntryID(id) }

// ParseEntryID reads a public journal id; ok is false for anything else (a
// memory id, say).
func ParseEntryID(s string) (int64, bool) { return journal.ParseEntryID(s) }

// EntryWriter is what the Recorder needs: somewhere to add entries.
type EntryWriter interface {
	AddEntry(ctx context.Context, e *Entry) (int64, error)
}

// RecorderStore is what the Recorder needs on the hooks' side: add entries,
// queue a session's summary, list the last sessions and find entries that
// match a prompt.
type RecorderStore interface {
	EntryWriter
	// QueueSummary records that a session wants a summary (a job of kind
	// summary); a session already waiting keeps one job.
	QueueSummary(ctx context.Context, sessionID, reason, turnID string) error
	// LastCapture returns the session's newest prompt or tool call entry,
	// nil when it has none.
	LastCapture(ctx context.Context, sessionID string) (*Entry, error)
	// RecentSessions lists the namespace's sessions with the newest prompts,
	// newest first, but exclude, each with its first prompt, counts and latest
	// summary.
	RecentSessions(ctx context.Context, namespace, exclude string, limit int) ([]SessionBrief, error)
	// SearchEntries ranks entries of the namespaces (all when empty) by BM25
	// over title and body for user text (never FTS5 syntax). Best first.
	SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]EntryHit, error)
	// EntryCoverage tells, for each entry of ids, the fraction of text's
	// content words it contains (the keyword rules of memories).
	EntryCoverage(ctx context.Context, text string, ids []int64) (map[int64]float64, error)
}

// EntryReader is what the Reader needs: the journal's entries by id, by words
// and around a moment.
type EntryReader interface {
	// Entries returns the entries among ids that exist, in the order of ids.
	Entries(ctx context.Context, ids []int64) ([]*Entry, error)
	// SearchEntries ranks entries of the namespaces (all when empty) by BM25
	// over title and body for user text (never FTS5 syntax). Best first.
	SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]EntryHit, error)
	// Around returns up to before entries older and after entries newer than the
	// entry id in the same session, and the entry itself, oldest first.
	Around(ctx context.Context, id int64, before, after int) ([]*Entry, error)
	// NamespaceAround is Around for a moment of a namespace (a memory's
	// creation); an empty namespace is every namespace.
	NamespaceAround(ctx context.Context, namespace string, at time.Time, before, after int) ([]*Entry, error)
}

// EntryForgetter is what Forget needs: the journal's entries of a session or
// before a time, counted and deleted.
type EntryForgetter interface {
	// ForgetEntries deletes the entries of a session (when set) and/or created
	// before a time (when not zero), with their pending summaries; it returns
	// how many entries went and the ids of the session memories they became.
	ForgetEntries(ctx context.Context, sessionID string, before time.Time) (int, []string, error)
	// CountEntries counts what ForgetEntries would delete.
	CountEntries(ctx context.Context, sessionID string, before time.Time) (int, error)
}

// Store keeps the journal; storage implements it in the memory database. It is
// the union of what the journal's users need, for wiring and for the store's
// compile-time check: each user takes its own small port (RecorderStore,
// EntryReader, EntryForgetter); the Summarizer's methods are the rest (its
// jobs are in the job queue curation shares, package jobs).
type Store interface {
	RecorderStore
	EntryReader
	EntryForgetter
	// SessionEntries returns a session's entries with id > afterID, oldest first.
	SessionEntries(ctx context.Context, sessionID string, afterID int64, limit int) ([]*Entry, error)
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
