package hook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recall-mcp/recall/memory"
)

// ContextFunc builds the token-budgeted context of a project (golden rules first,
// then the most relevant memories of the project and global namespaces).
// validation provides it; cmd plugs it in.
type ContextFunc func(ctx context.Context, query, project string, tokenBudget int) (string, error)

// Handler answers hook events over the memory service.
type Handler struct {
	Memory      *memory.Service
	Context     ContextFunc
	TokenBudget int // of the session-start context
	// Floor is what a memory must clear to be injected on a prompt.
	Floor  memory.Floor
	Logger *slog.Logger
	Now    func() time.Time

	degraded bool // already logged that recall fell back to keywords
}

// Settings of the prompt hook's compact index.
const (
	minPromptChars   = 10  // shorter prompts ("yes", "go on") get no memories
	promptResults    = 5   // memories listed at most
	promptTokenLimit = 600 // the index stays under this estimate
	previewChars     = 200 // of each memory's content
)

// Handle answers one event. A nil Output means "say nothing".
func (h *Handler) Handle(ctx context.Context, event string, in *Input) (*Output, error) {
	switch event {
	case SessionStart:
		return h.sessionStart(ctx, in)
	case UserPromptSubmit:
		return h.userPromptSubmit(ctx, in)
	case PostToolUse:
		return nil, h.postToolUse(ctx, in)
	case SessionEnd:
		return nil, h.sessionEnd(ctx, in)
	case PreCompact:
		return nil, nil // the caller starts the history indexer; nothing to say
	}
	_, err := ParseEvent(event)
	return nil, err
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now().UTC()
	}
	return time.Now().UTC()
}

func (h *Handler) log() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// sessionStart injects the project's context and records that the session began.
// The context is answered even when the session cannot be recorded.
func (h *Handler) sessionStart(ctx context.Context, in *Input) (*Output, error) {
	p := FindProject(in.Cwd)
	text, err := h.Context(ctx, "", p.Name, h.TokenBudget)
	if err != nil {
		return nil, fmt.Errorf("build context for %s: %w", p.Namespace, err)
	}
	if in.SessionID != "" {
		s := &memory.Session{ID: in.SessionID, Namespace: p.Namespace, Cwd: in.Cwd, StartedAt: h.now()}
		if err := h.Memory.Store().UpsertSession(ctx, s); err != nil {
			h.log().Warn("session start not recorded", "session_id", in.SessionID, "err", err)
		}
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	text += fmt.Sprintf("\n\nThis project's memories are in namespace `%s`; store lasting preferences, decisions and patterns there with memory_store_tool (or in `global` when they hold for every project).\n", p.Namespace)
	return contextOutput(SessionStart, text), nil
}

// userPromptSubmit lists the few memories most relevant to the prompt, as an
// index of ids the model can expand with the memory tools.
func (h *Handler) userPromptSubmit(ctx context.Context, in *Input) (*Output, error) {
	prompt := strings.TrimSpace(in.Prompt)
	if utf8.RuneCountInString(prompt) < minPromptChars {
		return nil, nil
	}
	if len(prompt) > memory.MaxQueryBytes {
		prompt = truncateBytes(prompt, memory.MaxQueryBytes)
	}
	found, err := h.relevant(ctx, prompt, FindProject(in.Cwd).Namespace)
	if err != nil {
		return nil, err
	}
	return contextOutput(UserPromptSubmit, formatIndex(found)), nil
}

// relevant returns the memories of the project's and the global namespace that
// clear the relevance floor for the prompt, best first: a prompt about nothing
// stored gets nothing. It only reads: a hook never waits on a writer to count
// an access.
func (h *Handler) relevant(ctx context.Context, prompt, project string) ([]memory.ScoredMemory, error) {
	f := memory.Filter{Namespaces: []string{project, memory.GlobalNamespace}}
	res, err := h.Memory.Matching(ctx, prompt, f, promptResults, h.Floor)
	if err != nil {
		return nil, fmt.Errorf("recall in %s and global: %w", project, err)
	}
	if res.Reason != "" && !h.degraded {
		h.degraded = true
		h.log().Info("prompt recall on keywords only", "reason", res.Reason)
	}
	found := make([]memory.ScoredMemory, len(res.Matches))
	for i, m := range res.Matches {
		found[i] = m.ScoredMemory
	}
	return found, nil
}

// formatIndex renders memories as a compact list of ids, types and previews,
// stopping before the token limit.
func formatIndex(ms []memory.ScoredMemory) string {
	if len(ms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Relevant memories (recall)\n")
	header := b.Len()
	for i, m := range ms {
		if i == promptResults {
			break
		}
		line := fmt.Sprintf("- [%s] %s · %s\n", m.ID, m.Type, preview(m.Content))
		if estimateTokens(b.Len()+len(line)) > promptTokenLimit {
			break
		}
		b.WriteString(line)
	}
	if b.Len() == header {
		return ""
	}
	b.WriteString("Full text and related memories: memory_recall_tool or memory_inspect_graph_tool with an id.\n")
	return b.String()
}

// estimateTokens assumes four bytes of English text per token.
func estimateTokens(bytes int) int { return (bytes + 3) / 4 }

// preview is the first previewChars characters of s on one line.
func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= previewChars {
		return s
	}
	r := []rune(s)
	return string(r[:previewChars]) + "…"
}

// truncateBytes cuts s to at most n bytes without splitting a character.
func truncateBytes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// fileActions maps Claude Code's file tools to recorded actions.
var fileActions = map[string]memory.FileAction{
	"Read":         memory.ActionRead,
	"Write":        memory.ActionWrite,
	"Edit":         memory.ActionEdit,
	"MultiEdit":    memory.ActionMultiEdit,
	"NotebookEdit": memory.ActionEdit,
}

// postToolUse records which file a file tool touched. Other tools are ignored.
func (h *Handler) postToolUse(ctx context.Context, in *Input) error {
	action, ok := fileActions[in.ToolName]
	if !ok {
		return nil
	}
	path := in.ToolInput.FilePath
	if path == "" {
		path = in.ToolInput.NotebookPath
	}
	if path == "" {
		return errors.New("file tool input without file_path or notebook_path")
	}
	if !filepath.IsAbs(path) && in.Cwd != "" {
		path = filepath.Join(in.Cwd, path)
	}
	p := FindProject(in.Cwd)
	_, err := h.Memory.AddFileActivity(ctx, memory.FileActivityRequest{
		FilePath:    path,
		Action:      string(action),
		SessionID:   in.SessionID,
		ProjectRoot: p.Root,
		Metadata:    map[string]any{"tool_name": in.ToolName},
	})
	if err != nil {
		return fmt.Errorf("record file activity: %w", err)
	}
	return nil
}

// sessionEnd records the end of the session. Nothing is queued in this process,
// so nothing can be lost when it exits.
func (h *Handler) sessionEnd(ctx context.Context, in *Input) error {
	if in.SessionID == "" {
		return errors.New("session end without session_id")
	}
	ended := h.now()
	s := &memory.Session{
		ID:        in.SessionID,
		Namespace: FindProject(in.Cwd).Namespace,
		Cwd:       in.Cwd,
		StartedAt: ended, // kept by the store when the start was recorded
		EndedAt:   &ended,
		EndReason: in.Reason,
	}
	if err := h.Memory.Store().UpsertSession(ctx, s); err != nil {
		return fmt.Errorf("record session end: %w", err)
	}
	return nil
}
