package hook

import (
	"context"
	"fmt"
	"strings"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// The hooks' part in session capture: where entries are anchored, summaries
// queued, and the last sessions listed at session start.

// anchorOf is the anchor of a capture in project p: its session, turn, and
// own message (messageID, and the transcript's size as the hook runs).
func anchorOf(p project.Project, in *Input, turn, messageID string) capture.Anchor {
	return capture.Anchor{Namespace: p.Namespace, SessionID: in.SessionID, TurnID: turn, TranscriptPath: in.TranscriptPath,
		MessageID: messageID, TranscriptOffset: transcriptOffset(in)}
}

// transcriptOffset is the transcript's size as the hook ran: the client
// machine's word for it when it sent one, else the file's size here.
func transcriptOffset(in *Input) int64 {
	if in.TranscriptOffset != nil {
		return *in.TranscriptOffset
	}
	return capture.TranscriptSize(in.TranscriptPath)
}

// queueSummary asks for a summary of the session so far, anchored to its last
// turn. The chat model is never called here: recall serve works the queue.
func (h *Handler) queueSummary(ctx context.Context, event string, in *Input) error {
	if h.Capture == nil || !h.Summaries {
		return nil
	}
	if in.SessionID == "" {
		return fmt.Errorf("%s without session_id: no session to summarise", eventNames[event])
	}
	if err := h.Capture.QueueSummary(ctx, in.SessionID, event, h.Capture.TurnAsOf(ctx, in.SessionID, in.TranscriptPath, transcriptOffset(in))); err != nil {
		h.lostWrite(writeSummary, err)
		return fmt.Errorf("queue summary: %w", err)
	}
	return nil
}

// Settings of the recent-sessions part of the session-start context.
const (
	recentSessionCount  = 5
	recentSessionShare  = 5   // of the token budget, at most 1/recentSessionShare
	recentSessionTokens = 500 // and at most this many tokens
	minContextBudget    = 100 // the least budget memory_context_tool accepts
	recentTitleRunes    = 90
)

// recentSessions is a compact index of the project's last sessions, newest
// first, within a share of the token budget: for each, when it was, what was
// asked first, how much happened, and its summary when one was made, with ids
// the model can expand (recall_details, recall_timeline). It reads the journal
// itself, so it shows the last sessions whether or not a summary was made yet.
// The session starting (current) is left out. Nothing when capture is off or
// the project has no past session.
func (h *Handler) recentSessions(ctx context.Context, namespace, current string) string {
	if h.Capture == nil {
		return ""
	}
	sessions, err := h.Capture.RecentSessions(ctx, namespace, current, recentSessionCount)
	if err != nil {
		h.log().Warn("recent sessions not listed", "namespace", namespace, "err", err)
		return ""
	}
	if len(sessions) == 0 {
		return ""
	}
	limit := min(h.TokenBudget/recentSessionShare, recentSessionTokens)
	var b strings.Builder
	b.WriteString("## Recent sessions in this project (recall, newest first)\n")
	header := b.Len()
	for _, s := range sessions {
		line := sessionLine(s)
		if estimateTokens(b.Len()+len(line)) > limit {
			break
		}
		b.WriteString(line)
	}
	if b.Len() == header {
		return ""
	}
	b.WriteString("To drill down: recall_details with an id (a summary, or the session's first prompt); " +
		"recall_timeline with an id for what came around it; recall_search for words.\n")
	return b.String()
}

// sessionLine is one session of the index: "- 2025-03-04 14:05 · [j12] first
// prompt (+2 prompts, 31 tool calls) · summary [mem_…]: title".
func sessionLine(s capture.SessionBrief) string {
	var b strings.Builder
	b.WriteString("- " + s.LastAt.Local().Format("2006-01-02 15:04"))
	if p := s.FirstPrompt; p != nil {
		fmt.Fprintf(&b, " · [%s] %s", capture.EntryID(p.ID), memory.Preview(p.Title, recentTitleRunes))
	}
	var counts []string
	if s.Prompts > 1 {
		counts = append(counts, "+"+describe.Count(s.Prompts-1, "prompt", "prompts"))
	}
	if s.ToolCalls > 0 {
		counts = append(counts, describe.Count(s.ToolCalls, "tool call", "tool calls"))
	}
	if len(counts) > 0 {
		b.WriteString(" (" + strings.Join(counts, ", ") + ")")
	}
	if sum := s.Summary; sum != nil {
		id := capture.EntryID(sum.ID)
		if sum.MemoryID != "" {
			id = sum.MemoryID
		}
		fmt.Fprintf(&b, " · summary [%s]: %s", id, memory.Preview(sum.Title, recentTitleRunes))
	}
	if s.DraftMemoryID != "" {
		// Made without a model; the chat model's replaces it when it answers.
		fmt.Fprintf(&b, " · extractive summary [%s]", s.DraftMemoryID)
	}
	return b.String() + "\n"
}
