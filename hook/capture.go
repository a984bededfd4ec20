package hook

import (
	"context"
	"fmt"
	"strings"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/project"
)

// The hooks' part in session capture: where entries are anchored, summaries
// queued, and the last sessions listed at session start.

// anchorOf is the anchor of a capture in project p.
func anchorOf(p project.Project, in *Input, turn string) capture.Anchor {
	return capture.Anchor{Namespace: p.Namespace, SessionID: in.SessionID, TurnID: turn, TranscriptPath: in.TranscriptPath}
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
	if err := h.Capture.QueueSummary(ctx, in.SessionID, event, capture.LastUserTurn(in.TranscriptPath)); err != nil {
		return fmt.Errorf("queue summary: %w", err)
	}
	return nil
}

// Settings of the recent-sessions part of the session-start context.
const (
	recentSessionCount  = 3
	recentSessionShare  = 5   // of the token budget, at most 1/recentSessionShare
	recentSessionTokens = 400 // and at most this many tokens
	minContextBudget    = 100 // the least budget memory_context_tool accepts
)

// recentSessions lists the project's last session summaries, newest first, as
// index lines the model can expand with recall_details, within a share of the
// token budget. Nothing when capture is off or there are none.
func (h *Handler) recentSessions(ctx context.Context, namespace string) string {
	if h.Capture == nil {
		return ""
	}
	sums, err := h.Capture.RecentSummaries(ctx, namespace, recentSessionCount)
	if err != nil {
		h.log().Warn("recent sessions not listed", "namespace", namespace, "err", err)
		return ""
	}
	if len(sums) == 0 {
		return ""
	}
	limit := min(h.TokenBudget/recentSessionShare, recentSessionTokens)
	var b strings.Builder
	b.WriteString("## Recent sessions (recall)\n")
	header := b.Len()
	for _, s := range sums {
		line := fmt.Sprintf("- [%s] %s · %s\n", capture.EntryID(s.ID), s.CreatedAt.Format("2006-01-02"), s.Title)
		if estimateTokens(b.Len()+len(line)) > limit {
			break
		}
		b.WriteString(line)
	}
	if b.Len() == header {
		return ""
	}
	b.WriteString("What was done in them: recall_details with ids, recall_timeline for what came around.\n")
	return b.String()
}
