package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
)

// Summaries are made off the hooks' path, as jobs of kind summary (package
// jobs: leased, so processes sharing the database never summarise one session
// twice at once; never dropped while Ollama is away or slow). A job covers the
// session's entries not yet summarised, in two steps:
//
//  1. an extractive summary, made without any model from the entries
//     themselves (what was asked, the commands run and how they ended, the
//     files changed, the errors seen), stored at once as a `session` memory of
//     low importance (metadata summary=extractive), so a session pays off
//     whether a chat model answers or not;
//  2. the chat model's title and bullets over the same entries, which replace
//     the extractive summary in the same memory (metadata summary=model).
//
// Ollama down or slow fails step 2 for a passing cause: the job waits and runs
// again, the extractive summary standing meanwhile. A reply that does not
// parse, or says nothing, fails the job for good (recorded), and the
// extractive summary stays as the session's summary. Without a chat model, or
// once the session's chat calls are spent, the extractive summary is final.

// Summarizer settings.
const (
	// SummaryJobKind is the job kind of a session summary.
	SummaryJobKind    = journal.SummaryJobKind
	maxSummaryEntries = 200     // entries one summary covers at most
	maxSummaryPrompt  = 6 << 10 // bytes of entries in one prompt
	// SummaryImportance is low: a summary is a record, raised only by use.
	SummaryImportance = 0.3
)

// Values of a session memory's metadata.summary.
const (
	SummaryExtractive = "extractive"
	SummaryModel      = "model"
)

// Rememberer stores and replaces curated memories. memory.Service has it.
type Rememberer interface {
	Remember(ctx context.Context, req memory.StoreRequest) (*memory.StoreResult, error)
	Update(ctx context.Context, req memory.UpdateRequest) (*memory.UpdateResult, error)
}

// Summarizer runs the summary jobs.
type Summarizer struct {
	Store    Store
	Judge    memory.Judge // nil: extractive summaries only
	Memories Rememberer
	MaxCalls int // chat calls per session, at most
	Logger   *slog.Logger
}

func (s *Summarizer) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Run summarises the session job.Subject names (a jobs.Handler).
func (s *Summarizer) Run(ctx context.Context, job memory.Job) error {
	sessionID := job.Subject
	prog, err := s.Store.SummaryProgress(ctx, sessionID)
	if err != nil {
		return err
	}
	all, err := s.Store.SessionEntries(ctx, sessionID, prog.Through, maxSummaryEntries)
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
	// A person's session is summarised as theirs: its summary entry and
	// session memory are recorded under their name, and what it reads and
	// writes is what they may see.
	ctx = memory.WithPrincipal(ctx, memory.AuthorPrincipal(entries[0].Author))
	draft, err := s.recordDraft(ctx, sessionID, prog.DraftMemoryID, entries)
	if err != nil {
		return err
	}
	if s.Judge == nil {
		return s.finish(ctx, sessionID, entries, draft, false)
	}
	if s.MaxCalls > 0 && prog.ModelCalls >= s.MaxCalls {
		s.log().Info("session summary stays extractive: the session's model calls are spent",
			"session_id", sessionID, "calls", prog.ModelCalls, "cap", s.MaxCalls)
		return s.finish(ctx, sessionID, entries, draft, false)
	}
	var reply summaryReply
	if err := s.Judge.JudgeJSON(ctx, summarySystem, summaryPrompt(entries), summarySchema, &reply); err != nil {
		if cerr := s.Store.CountModelCall(context.WithoutCancel(ctx), sessionID); cerr != nil {
			s.log().Warn("summary call not counted", "session_id", sessionID, "err", cerr)
		}
		if jobs.IsPermanent(err) {
			// The same entries get the same reply: the extractive summary stays.
			return s.keepDraft(ctx, sessionID, entries, draft, err)
		}
		return fmt.Errorf("summary of session %s by the chat model (the extractive one stands meanwhile): %w", sessionID, err)
	}
	title := memory.Preview(privacy.Clean(reply.Title), maxTitleRunes)
	bullets := cleanBullets(reply.Bullets)
	if title == "" || bullets == "" {
		if cerr := s.Store.CountModelCall(ctx, sessionID); cerr != nil {
			s.log().Warn("summary call not counted", "session_id", sessionID, "err", cerr)
		}
		return s.keepDraft(ctx, sessionID, entries, draft, fmt.Errorf("%w: %+v", errEmptySummary, reply))
	}
	content := "Session summary: " + title + "\n" + bullets
	if _, err := s.Memories.Update(ctx, memory.UpdateRequest{MemoryID: draft.id, Content: &content,
		Metadata: map[string]any{"summary": SummaryModel}, By: "capture"}); err != nil {
		return fmt.Errorf("replace the extractive summary %s: %w", draft.id, err)
	}
	draft.title, draft.body = title, bullets
	return s.finish(ctx, sessionID, entries, draft, true)
}

// keepDraft ends a job whose model summary can never be made: the extractive
// summary becomes final and the job fails for good with cause.
func (s *Summarizer) keepDraft(ctx context.Context, sessionID string, entries []*Entry, d draft, cause error) error {
	if err := s.finish(ctx, sessionID, entries, d, false); err != nil {
		return err
	}
	return jobs.Permanent(fmt.Errorf("summary of session %s by the chat model (the extractive one is kept): %w", sessionID, cause))
}

// draft is the session memory a summary of entries is written to.
type draft struct {
	id, title, body string
}

// recordDraft writes the extractive summary of entries: a new session memory,
// or the session's draft of an earlier run updated to cover the new entries.
func (s *Summarizer) recordDraft(ctx context.Context, sessionID, draftID string, entries []*Entry) (draft, error) {
	title, body := Extract(entries)
	content := "Session summary: " + title + "\n" + body
	first, last := entries[0], entries[len(entries)-1]
	md := map[string]any{
		"source": "capture", "summary": SummaryExtractive, "session_id": sessionID, "turn_id": last.TurnID,
		"transcript_path": last.TranscriptPath,
		"journal_from":    EntryID(first.ID), "journal_through": EntryID(last.ID),
	}
	d := draft{id: draftID, title: title, body: body}
	if draftID != "" {
		_, err := s.Memories.Update(ctx, memory.UpdateRequest{MemoryID: draftID, Content: &content, Metadata: md, By: memory.SourceCapture})
		if err == nil {
			return d, nil
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return d, fmt.Errorf("update the extractive summary %s: %w", draftID, err)
		}
		// Someone deleted the draft: write a new one.
	}
	importance := SummaryImportance
	stored, err := s.Memories.Remember(memory.WithSource(ctx, memory.SourceCapture), memory.StoreRequest{
		Content: content, Type: memory.TypeSession, Namespace: last.Namespace, Importance: &importance, Metadata: md,
	})
	if err != nil {
		return d, fmt.Errorf("store the extractive summary: %w", err)
	}
	d.id = stored.ID
	if err := s.Store.SetDraftSummary(ctx, sessionID, d.id); err != nil {
		return d, err
	}
	return d, nil
}

// finish records the summary of entries in the journal and moves the
// session's progress past them.
func (s *Summarizer) finish(ctx context.Context, sessionID string, entries []*Entry, d draft, byModel bool) error {
	last := entries[len(entries)-1]
	_, err := s.Store.RecordSummary(ctx, &Entry{
		Kind: KindSummary, Namespace: last.Namespace, SessionID: sessionID, TurnID: last.TurnID,
		TranscriptPath: last.TranscriptPath, Title: d.title, Body: d.body, MemoryID: d.id,
	}, last.ID, byModel)
	if err == nil {
		s.log().Info("session summarised", "session_id", sessionID, "entries", len(entries), "memory_id", d.id, "by_model", byModel)
	}
	return err
}

func cleanBullets(bullets []string) string {
	var b strings.Builder
	for _, bl := range bullets {
		if bl = memory.Preview(privacy.Clean(bl), 200); bl != "" {
			b.WriteString("- " + bl + "\n")
		}
	}
	return strings.TrimSpace(b.String())
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
