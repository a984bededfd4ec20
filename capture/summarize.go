package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
)

// Summaries are made off the hooks' path, in recall serve: one worker claims a
// session's job (leased, so processes sharing the database never summarise one
// session twice at once, and a dead process's job is taken over), asks the local
// chat model for a title and a few bullets over the entries not yet summarised,
// and writes the summary to the journal and as a `session` memory of low
// importance linked to the entries it covers. Each chat call counts against the
// session's cap; a call that failed for want of Ollama is retried later, a few
// times, then dropped; a reply that does not parse or is empty is dropped.

// Summarizer settings.
const (
	summaryLease       = 5 * time.Minute
	summaryPoll        = 15 * time.Second
	summaryRetryPause  = 30 * time.Second
	maxSummaryAttempts = 3
	maxSummaryEntries  = 200     // entries one summary covers at most
	maxSummaryPrompt   = 6 << 10 // bytes of entries in one prompt
	// SummaryImportance is low: a summary is a record, raised only by use.
	SummaryImportance = 0.3
)

// Rememberer stores curated memories. memory.Service has it.
type Rememberer interface {
	Remember(ctx context.Context, req memory.StoreRequest) (*memory.StoreResult, error)
}

// Summarizer works the summary queue.
type Summarizer struct {
	Store    Store
	Judge    memory.Judge
	Memories Rememberer
	MaxCalls int // chat calls per session, at most
	Logger   *slog.Logger

	mu      sync.Mutex
	abort   context.CancelFunc // interrupts the job in flight
	quit    chan struct{}      // closed by Close: claim nothing more
	done    chan struct{}      // closed when the worker has returned
	started bool
}

// Start runs the worker until Close. It resumes jobs left by earlier runs. A
// Summarizer without a store, a chat model or a memory service never starts.
func (s *Summarizer) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.Store == nil || s.Judge == nil || s.Memories == nil {
		return
	}
	s.started = true
	ctx, s.abort = context.WithCancel(ctx)
	s.quit = make(chan struct{})
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		s.loop(ctx)
	}()
}

// Close stops claiming jobs and lets the one in flight finish, until ctx ends;
// then it interrupts it, and the job is handed back for the next start.
func (s *Summarizer) Close(ctx context.Context) error {
	s.mu.Lock()
	if !s.started {
		s.mu.Unlock()
		return nil
	}
	s.started = false
	abort, quit, done := s.abort, s.quit, s.done
	s.mu.Unlock()
	close(quit)
	defer abort()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		abort()
		<-done
		return fmt.Errorf("summary interrupted at shutdown; it resumes at the next start: %w", ctx.Err())
	}
}

func (s *Summarizer) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Summarizer) loop(ctx context.Context) {
	for {
		select {
		case <-s.quit:
			return
		default:
		}
		worked, err := s.RunOnce(ctx)
		pause := time.Duration(0)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.log().Warn("session summary failed", "err", err)
			}
			pause = summaryRetryPause
		case !worked:
			pause = summaryPoll
		}
		if pause > 0 {
			select {
			case <-s.quit:
				return
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}
}

// RunOnce claims one job and works it; it reports whether there was one.
func (s *Summarizer) RunOnce(ctx context.Context) (bool, error) {
	job, err := s.Store.ClaimSummary(ctx, summaryLease)
	if err != nil || job == nil {
		return false, err
	}
	err = s.summarize(ctx, job)
	finish := context.WithoutCancel(ctx)
	switch {
	case err == nil:
		return true, s.Store.FinishSummary(finish, job.SessionID, "", false)
	case ctx.Err() != nil:
		return true, s.Store.FinishSummary(finish, job.SessionID, "interrupted at shutdown", true)
	default:
		// At temperature 0 the same entries get the same reply: a reply that
		// does not parse or says nothing is not asked for again. Ollama down
		// or slow is retried.
		retry := job.Attempts < maxSummaryAttempts && !errors.Is(err, memory.ErrBadReply) && !errors.Is(err, errEmptySummary)
		if ferr := s.Store.FinishSummary(finish, job.SessionID, err.Error(), retry); ferr != nil {
			return true, ferr
		}
		return true, fmt.Errorf("summary of session %s (attempt %d, retry %v): %w", job.SessionID, job.Attempts, retry, err)
	}
}

// errEmptySummary is a reply that parses but says nothing.
var errEmptySummary = errors.New("the chat model's summary has no title or no bullets")

// summaryReply is what the chat model answers.
type summaryReply struct {
	Title   string   `json:"title"`
	Bullets []string `json:"bullets"`
}

var summarySchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "maxLength": 120},
    "bullets": {"type": "array", "items": {"type": "string", "maxLength": 200}, "minItems": 1, "maxItems": 8}
  },
  "required": ["title", "bullets"]
}`)

const summarySystem = "You summarise a coding session for the developer's future self. " +
	"Answer JSON: a title of at most 12 words, and 3 to 8 short bullets on what was asked, " +
	"what was done, decisions, problems solved and files changed. Facts only, no filler."

func (s *Summarizer) summarize(ctx context.Context, job *SummaryJob) error {
	through, calls, err := s.Store.SummaryProgress(ctx, job.SessionID)
	if err != nil {
		return err
	}
	if s.MaxCalls > 0 && calls >= s.MaxCalls {
		s.log().Info("session summary skipped: the session's model calls are spent",
			"session_id", job.SessionID, "calls", calls, "cap", s.MaxCalls)
		return nil
	}
	all, err := s.Store.SessionEntries(ctx, job.SessionID, through, maxSummaryEntries)
	if err != nil {
		return err
	}
	var entries []*Entry
	for _, e := range all {
		if e.Kind != KindSummary {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil // nothing new since the last summary
	}
	var reply summaryReply
	if err := s.Judge.JudgeJSON(ctx, summarySystem, summaryPrompt(entries), summarySchema, &reply); err != nil {
		if cerr := s.Store.CountModelCall(context.WithoutCancel(ctx), job.SessionID); cerr != nil {
			s.log().Warn("summary call not counted", "session_id", job.SessionID, "err", cerr)
		}
		return err
	}
	title := memory.Preview(privacy.Clean(reply.Title), maxTitleRunes)
	if title == "" || len(reply.Bullets) == 0 {
		return fmt.Errorf("%w: %+v", errEmptySummary, reply)
	}
	return s.record(ctx, job, entries, title, reply.Bullets)
}

// record writes the summary as a session memory and a journal entry.
func (s *Summarizer) record(ctx context.Context, job *SummaryJob, entries []*Entry, title string, bullets []string) error {
	var b strings.Builder
	for _, bl := range bullets {
		if bl = memory.Preview(privacy.Clean(bl), 200); bl != "" {
			b.WriteString("- " + bl + "\n")
		}
	}
	body := strings.TrimSpace(b.String())
	first, last := entries[0], entries[len(entries)-1]
	turn := job.TurnID
	if turn == "" {
		turn = last.TurnID
	}
	importance := SummaryImportance
	stored, err := s.Memories.Remember(ctx, memory.StoreRequest{
		Content:    "Session summary: " + title + "\n" + body,
		Type:       memory.TypeSession,
		Namespace:  last.Namespace,
		Importance: &importance,
		Metadata: map[string]any{
			"source": "capture", "session_id": job.SessionID, "turn_id": turn,
			"transcript_path": last.TranscriptPath,
			"journal_from":    EntryID(first.ID), "journal_through": EntryID(last.ID),
		},
	})
	if err != nil {
		return fmt.Errorf("store session memory: %w", err)
	}
	_, err = s.Store.RecordSummary(ctx, &Entry{
		Kind: KindSummary, Namespace: last.Namespace, SessionID: job.SessionID, TurnID: turn,
		TranscriptPath: last.TranscriptPath, Title: title, Body: body, MemoryID: stored.ID,
	}, last.ID)
	if err == nil {
		s.log().Info("session summarised", "session_id", job.SessionID, "entries", len(entries), "memory_id", stored.ID)
	}
	return err
}

// summaryPrompt lists the entries as one line each (prompts with a little more),
// within maxSummaryPrompt bytes, the newest kept when it must cut.
func summaryPrompt(entries []*Entry) string {
	lines := make([]string, 0, len(entries))
	for _, e := range entries {
		switch e.Kind {
		case KindPrompt:
			lines = append(lines, "USER ASKED: "+memory.Preview(e.Body, 400))
		default:
			lines = append(lines, "TOOL "+e.Title)
		}
	}
	size := 0
	start := len(lines)
	for start > 0 && size+len(lines[start-1])+1 <= maxSummaryPrompt {
		start--
		size += len(lines[start]) + 1
	}
	return "Project " + entries[0].Namespace + ". What happened, oldest first:\n" + strings.Join(lines[start:], "\n")
}
