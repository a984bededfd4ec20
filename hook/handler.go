package hook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
)

// ContextFunc builds the token-budgeted context of a project (golden rules first,
// then the most relevant memories of the project and global namespaces).
// validation provides it; cmd plugs it in.
type ContextFunc func(ctx context.Context, query, project string, tokenBudget int) (string, error)

// Handler answers hook events over the memory service.
type Handler struct {
	Memory      *memory.Service
	Projects    *project.Resolver // which project a cwd belongs to
	Context     ContextFunc
	TokenBudget int // of the session-start context
	// Floor is what a memory must clear to be injected on a prompt.
	Floor memory.Floor
	// Capture writes the session journal; nil when capture is off.
	Capture *capture.Recorder
	// ToolCalls writes post-tool-use's entry and file touch in one write;
	// nil writes them one after the other.
	ToolCalls ToolCallWriter
	// KeepToolCalls, when set, keeps post-tool-use's entry and file touch
	// for later instead of writing them: the hook has not opened the
	// database (see KeptToolCall).
	KeepToolCalls KeepFunc
	// ApplyKept applies what waits in the spool, the tool calls kept by
	// post-tool-use hooks above all; Stop, PreCompact and SessionEnd call it
	// first, so that the next prompt finds nothing to apply. Nil: nothing
	// is kept beside the store.
	ApplyKept func(ctx context.Context) error
	// Summaries queues a summary of the session at Stop, PreCompact and
	// SessionEnd (made later by recall serve).
	Summaries bool
	// Losses tells session start what could not be kept since the last
	// one; nil when the store loses nothing it could tell of.
	Losses LossReporter
	// Lost records a hook write the store failed to make, for a store that
	// keeps no such record itself (PostgreSQL: nothing spools beside it);
	// nil where the store records its own (SQLite's spool).
	Lost   LostRecorder
	Logger *slog.Logger
	Now    func() time.Time
	// Beside runs the prompt hook's search of past sessions and the
	// prompt's record beside its search of memories, each on a connection
	// of its own: for a server, whose connections are open already. A hook
	// working alone keeps them on its one connection, after the search
	// (see recordPrompt): a second connection there reads the whole schema
	// again, which costs more than running beside saves.
	Beside bool
	// Vectors says in the log when the prompt hook's recall goes to keywords
	// only and back; a server shares one among its events, so that it says so
	// once per change rather than on every prompt. Nil: one for this Handler.
	Vectors *VectorLog
}

// VectorLog logs the prompt hook's changes between recall with vectors and
// recall on keywords only, once per change: a skipped prompt while nothing
// changed is logged at debug level only.
type VectorLog struct {
	mu       sync.Mutex
	keywords bool // the last prompt's recall was on keywords only
}

// note records how one prompt was recalled (reason: why keywords only; empty:
// with vectors).
func (v *VectorLog) note(log *slog.Logger, reason string) {
	v.mu.Lock()
	was := v.keywords
	v.keywords = reason != ""
	v.mu.Unlock()
	switch {
	case reason != "" && !was:
		log.Info("prompt recall on keywords only", "reason", reason)
	case reason != "":
		log.Debug("prompt recall on keywords only", "reason", reason)
	case was:
		log.Info("prompt recall uses vectors again")
	}
}

// Settings of the prompt hook's compact index.
const (
	minPromptChars   = 10  // shorter prompts ("yes", "go on") get no memories
	promptResults    = 5   // memories listed at most
	promptTokenLimit = 600 // the index stays under this many tokens, as estimateTokens counts them
	previewChars     = 200 // of each memory's content
	promptEntries    = 3   // entries of past sessions listed at most
)

// entryKind names a journal entry's kind as the prompt index shows it.
func entryKind(e *capture.Entry) string {
	switch e.Kind {
	case capture.KindPrompt:
		return "prompt"
	case capture.KindSummary:
		return "session summary"
	}
	return "tool call"
}

// Handle answers one event. A nil Output means "say nothing".
func (h *Handler) Handle(ctx context.Context, event string, in *Input) (*Output, error) {
	switch event {
	case SessionStart:
		h.applyKept(ctx) // the last sessions' index shows what was kept
		return h.sessionStart(ctx, in)
	case UserPromptSubmit:
		out, rest, err := h.userPromptSubmit(ctx, in, false)
		rest()
		return out, err
	case PostToolUse:
		return nil, h.postToolUse(ctx, in)
	case Stop, PreCompact:
		h.applyKept(ctx)
		return nil, h.queueSummary(ctx, event, in)
	case SessionEnd:
		h.applyKept(ctx)
		return nil, errors.Join(h.sessionEnd(ctx, in), h.queueSummary(ctx, event, in))
	}
	_, err := ParseEvent(event)
	return nil, err
}

// HandleFirst answers one event as soon as its answer is known and returns
// the rest of its work, its writes, for the caller to do after sending the
// answer (nil: nothing is left). It is for a server that keeps the event
// until the rest is done (see Server.InFlight): a hook working alone exits
// once it answers, so Handle does the writes first. post-tool-use, stop,
// pre-compact and session-end answer nothing, so all their work is the rest;
// the prompt's answer is its search, and its record and the access counts of
// the memories it lists are the rest; session-start, once a session, answers
// after its record as Handle does.
func (h *Handler) HandleFirst(ctx context.Context, event string, in *Input) (*Output, func() error, error) {
	switch event {
	case UserPromptSubmit:
		out, rest, err := h.userPromptSubmit(ctx, in, true)
		return out, func() error { rest(); return nil }, err
	case PostToolUse, Stop, PreCompact, SessionEnd:
		return nil, func() error {
			_, err := h.Handle(ctx, event, in)
			return err
		}, nil
	}
	out, err := h.Handle(ctx, event, in)
	return out, nil, err
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
	p, err := h.project(ctx, in.Cwd)
	if err != nil {
		return nil, err
	}
	// The last sessions take their share of the budget first; memories the rest.
	recent := h.recentSessions(ctx, p.Namespace, in.SessionID)
	budget := max(h.TokenBudget-estimateTokens(len(recent)), minContextBudget)
	text, err := h.Context(ctx, "", p.Namespace, budget)
	if err != nil {
		return nil, fmt.Errorf("build context for %s: %w", p.Namespace, err)
	}
	if in.SessionID != "" {
		h.recordSessionStart(ctx, &memory.Session{ID: in.SessionID, Namespace: p.Namespace, Cwd: in.Cwd, StartedAt: h.now()})
	}
	text = strings.TrimSpace(text + "\n\n" + recent + "\n\n" + h.lossNotice())
	if text == "" {
		return nil, nil
	}
	text += fmt.Sprintf("\n\nThis project's memories are in namespace `%s` (%s); store lasting preferences, decisions and patterns there with memory_store_tool (or in `global` when they hold for every project).\n", p.Namespace, projectOrigin(p))
	return contextOutput(SessionStart, text), nil
}

// project resolves the project of the event's working directory.
func (h *Handler) project(ctx context.Context, cwd string) (project.Project, error) {
	if h.Projects == nil {
		return project.Project{}, errors.New("hook handler without a project resolver")
	}
	return h.Projects.ForDir(ctx, cwd)
}

// projectOrigin says in a few words how the session's project was found.
func projectOrigin(p project.Project) string {
	if p.Source == project.SourcePinned {
		return "pinned by RECALL_PROJECT"
	}
	return "the project rooted at " + p.Root
}

// recordSessionStart records the session's start. The answer goes out even
// when it cannot be recorded: the context matters more than the record. Behind
// another process's write lock the store spools it instead of waiting.
func (h *Handler) recordSessionStart(ctx context.Context, s *memory.Session) {
	if err := h.Memory.RecordSession(ctx, s); err != nil {
		h.log().Warn("session start not recorded", "session_id", s.ID, "err", err)
		h.lostWrite(writeSession, err)
	}
}

// LostRecorder records a hook write that was kept nowhere (see spool.Lost).
type LostRecorder interface {
	RecordLost(kind, cause string) error
}

// The kinds of hook writes, as a record of lost writes names them.
const (
	writeSession  = "session"
	writePrompt   = "journal_entry"
	writeToolCall = "tool_call"
	writeSummary  = "summary_request"
)

// WriteOf is the kind of write an event makes, with capture and summaries
// on or off; "" for an event that writes nothing then.
func WriteOf(event string, capture, summaries bool) string {
	switch event {
	case SessionStart, SessionEnd:
		return writeSession
	case UserPromptSubmit:
		if capture {
			return writePrompt
		}
	case PostToolUse:
		if capture { // off, only file tools write (their file touch)
			return writeToolCall
		}
	case Stop, PreCompact:
		if capture && summaries {
			return writeSummary
		}
	}
	return ""
}

// lostWrite records, through Lost, a write of kind that failed with err:
// the store was unreachable, refused it, or the hook's time ran out. Input
// refused as invalid is no lost write: it was never going to be kept.
func (h *Handler) lostWrite(kind string, err error) {
	if h.Lost == nil || err == nil || errors.Is(err, memory.ErrInvalid) {
		return
	}
	if rerr := h.Lost.RecordLost(kind, err.Error()); rerr != nil {
		h.log().Error("a lost write could not be recorded either", "kind", kind, "err", rerr)
	}
}

// userPromptSubmit lists the few memories most relevant to the prompt, as an
// index of ids the model can expand with the memory tools, and returns it with
// the rest of the work: the prompt's record and the access counts of the
// memories listed. Handle does the rest before answering (the prompt is kept
// even when the search fails, and recorded before the answer goes out);
// HandleFirst after. With first the record waits for the rest, so that the
// search has the machine to itself; without, it is written as recordPrompt
// says.
func (h *Handler) userPromptSubmit(ctx context.Context, in *Input, first bool) (*Output, func(), error) {
	// The project is resolved once, for the record and the search.
	p, perr := h.project(ctx, in.Cwd)
	recorded := h.recordPrompt(ctx, p, perr, in, first)
	text, shown, err := h.promptIndex(ctx, p, perr, in)
	rest := func() {
		recorded()
		// The access counts are a write too: after the record's, so that
		// neither meets the other's lock (and spools or is dropped).
		if len(shown) > 0 {
			h.Memory.MarkAccessed(ctx, shown)
		}
	}
	if err != nil || text == "" {
		return nil, rest, err
	}
	return contextOutput(UserPromptSubmit, text), rest, nil
}

// promptRecordWait is how long the prompt's record waits for the search to
// end before it is written beside it.
const promptRecordWait = 50 * time.Millisecond

// recordPrompt records the prompt in the journal, its secrets removed, and
// returns what tells it the search is over and waits for the record; a no-op
// without capture. The entry is made on another core while the search runs;
// it is written once the search is over, on the connection the search read
// with, or beside a search still running after promptRecordWait, on a
// connection of its own (a second connection reads the whole schema again, a
// millisecond of a 10 ms hook, but a slow search must not keep the record
// from being written before the hook's time runs out); with Beside (a
// server, its connections open) it is written at once, beside the search;
// with untilOver (a server that answers first) only once searched is called,
// after the answer. Failures are logged and recorded as lost writes, never
// returned: the answer matters more than the record.
func (h *Handler) recordPrompt(ctx context.Context, p project.Project, perr error, in *Input, untilOver bool) (searched func()) {
	if h.Capture == nil {
		return func() {}
	}
	over := make(chan struct{})
	written := make(chan struct{})
	go func() {
		defer close(written)
		defer func() {
			if r := recover(); r != nil {
				h.log().Error("prompt not captured", "session_id", in.SessionID, "err", fmt.Errorf("internal error: %v\n%s", r, debug.Stack()))
			}
		}()
		var e *capture.Entry
		if perr == nil {
			e = h.Capture.PromptEntry(anchorOf(p, in, "", in.PromptID), in.Prompt)
		}
		switch {
		case untilOver:
			<-over
		case !h.Beside:
			wait := time.NewTimer(promptRecordWait)
			select {
			case <-over:
			case <-wait.C:
			}
			wait.Stop()
		}
		err := perr
		if err == nil && e != nil {
			// Behind another writer the store spools it after 100 ms.
			_, err = h.Capture.Store.AddEntry(ctx, e)
		}
		if err != nil {
			h.log().Warn("prompt not captured", "session_id", in.SessionID, "err", err)
			h.lostWrite(writePrompt, err)
		}
	}()
	return func() {
		close(over)
		<-written
	}
}

// promptIndex is the index of memories and past sessions' entries relevant to
// the prompt ("" for none) and the ids of the memories it lists.
func (h *Handler) promptIndex(ctx context.Context, p project.Project, perr error, in *Input) (string, []string, error) {
	prompt, ok := PromptQuery(in)
	if !ok {
		return "", nil, nil
	}
	if perr != nil {
		return "", nil, perr
	}
	var found []memory.ScoredMemory
	searched := make(chan struct{})
	listed := func() map[string]bool {
		<-searched
		ids := make(map[string]bool, len(found))
		for _, m := range found {
			ids[m.ID] = true
		}
		return ids
	}
	var past []*capture.Entry
	pastDone := make(chan struct{})
	if h.Beside {
		go func() {
			defer close(pastDone)
			defer func() {
				if r := recover(); r != nil {
					h.log().Error("past sessions not searched for the prompt", "err", fmt.Errorf("internal error: %v\n%s", r, debug.Stack()))
				}
			}()
			past = h.pastEntries(ctx, prompt, p.Namespace, in.SessionID, listed)
		}()
	}
	var err error
	func() {
		// Closed even when the search panics, so that the past sessions'
		// search beside it, waiting in listed, ends instead of leaking.
		defer close(searched)
		found, err = h.relevant(ctx, prompt, p.Namespace)
	}()
	if h.Beside {
		<-pastDone
	} else if err == nil {
		past = h.pastEntries(ctx, prompt, p.Namespace, in.SessionID, listed)
	}
	if err != nil {
		return "", nil, err
	}
	text, shown := formatIndex(found, past)
	return text, shown, nil
}

// relevant returns the memories of the project's and the global namespace that
// clear the relevance floor for the prompt, best first: a prompt about nothing
// stored gets nothing. It only reads; userPromptSubmit counts an access, best
// effort, for the memories it lists.
func (h *Handler) relevant(ctx context.Context, prompt, project string) ([]memory.ScoredMemory, error) {
	f := memory.Filter{Namespaces: []string{project, memory.GlobalNamespace}}
	res, err := h.Memory.Matching(ctx, prompt, f, promptResults, h.Floor)
	if err != nil {
		return nil, fmt.Errorf("recall in %s and global: %w", project, err)
	}
	if h.Vectors == nil {
		h.Vectors = &VectorLog{}
	}
	h.Vectors.note(h.log(), res.Reason)
	found := make([]memory.ScoredMemory, len(res.Matches))
	for i, m := range res.Matches {
		found[i] = m.ScoredMemory
	}
	return found, nil
}

// pastEntries are the journal entries of the project's past sessions that
// clear the same keyword floor as memories for the prompt (nothing for an
// unrelated prompt), leaving out the current session and the summaries whose
// session memory is listed already. Best effort: a failure lists none.
func (h *Handler) pastEntries(ctx context.Context, prompt, project, current string, listed func() map[string]bool) []*capture.Entry {
	if h.Capture == nil {
		return nil
	}
	es, err := h.Capture.Matching(ctx, prompt, []string{project}, current, promptEntries, h.Floor.MinCoverage, listed)
	if err != nil {
		h.log().Warn("past sessions not searched for the prompt", "err", err)
		return nil
	}
	return es
}

// formatIndex renders memories, then entries of past sessions, as a compact
// list of ids, kinds and previews, stopping before the token limit, and returns
// the ids of the memories it listed.
func formatIndex(ms []memory.ScoredMemory, past []*capture.Entry) (string, []string) {
	if len(ms) == 0 && len(past) == 0 {
		return "", nil
	}
	var shown []string
	var b strings.Builder
	b.WriteString("## Relevant memories (recall)\n")
	header := b.Len()
	for i, m := range ms {
		if i == promptResults {
			break
		}
		line := fmt.Sprintf("- [%s] %s · %s\n", m.ID, m.Type, memory.Preview(m.Content, previewChars))
		if estimateTokens(b.Len()+len(line)) > promptTokenLimit {
			break
		}
		b.WriteString(line)
		shown = append(shown, m.ID)
	}
	for i, e := range past {
		line := fmt.Sprintf("- [%s] %s %s · %s\n", capture.EntryID(e.ID), e.CreatedAt.Local().Format("2006-01-02"),
			entryKind(e), memory.Preview(e.Title, previewChars))
		if i == 0 {
			line = "From past sessions:\n" + line
		}
		if estimateTokens(b.Len()+len(line)) > promptTokenLimit {
			break
		}
		b.WriteString(line)
	}
	if b.Len() == header {
		return "", nil
	}
	b.WriteString("Full text: recall_details with ids; related memories: memory_inspect_graph_tool; past sessions: recall_search.\n")
	return b.String(), shown
}

// estimateTokens counts four bytes of text a token, rounded up. For English
// prose that is close to real tokenizers; for ids, code and non-Latin text it
// counts fewer tokens than there are, so the index can run over 600 real
// tokens (its five previews of 200 characters bound it in any case). The
// context tool counts with validation.EstimateTokens instead.
func estimateTokens(bytes int) int { return (bytes + 3) / 4 }

// fileActions maps Claude Code's file tools to recorded actions.
var fileActions = map[string]memory.FileAction{
	"Read":         memory.ActionRead,
	"Write":        memory.ActionWrite,
	"Edit":         memory.ActionEdit,
	"MultiEdit":    memory.ActionMultiEdit,
	"NotebookEdit": memory.ActionEdit,
}

// ToolCallWriter writes what post-tool-use records of one tool call, its
// journal entry and its file touch (either may be nil), in one write: the hook
// runs after every tool call, so each commit is paid hundreds of times.
type ToolCallWriter interface {
	RecordToolCall(ctx context.Context, e *capture.Entry, a *memory.FileActivity) error
}

// postToolUse records the tool call in the journal and, for file tools, which
// file was touched, in one write.
func (h *Handler) postToolUse(ctx context.Context, in *Input) error {
	if h.KeepToolCalls != nil {
		return h.keepToolCall(ctx, in)
	}
	// The project is resolved once, for the journal and the file activity.
	p, err := h.project(ctx, in.Cwd)
	if err != nil {
		h.lostWrite(writeToolCall, err)
		return err
	}
	turn := ""
	if h.Capture != nil {
		// The turn as of the transcript when the event came: a server
		// writes the call after its answer, or the next server after a
		// crash, by when the transcript may hold the next prompt.
		turn = h.Capture.TurnAsOf(ctx, in.SessionID, in.TranscriptPath, transcriptOffset(in))
	}
	entry, touch, entryErr, touchErr := h.toolCall(in, p, turn)
	if entry == nil && touch == nil {
		return errors.Join(entryErr, touchErr)
	}
	var writeErr error
	if h.ToolCalls != nil {
		writeErr = h.ToolCalls.RecordToolCall(ctx, entry, touch)
	} else {
		writeErr = h.recordSeparately(ctx, entry, touch)
	}
	if writeErr != nil {
		writeErr = fmt.Errorf("record tool call: %w", writeErr)
		h.lostWrite(writeToolCall, writeErr)
	}
	return errors.Join(entryErr, touchErr, writeErr)
}

// toolCall is a tool call's journal entry (nil with capture off) and, for a
// file tool, the touch of its file, in project p and turn.
func (h *Handler) toolCall(in *Input, p project.Project, turn string) (entry *capture.Entry, touch *memory.FileActivity, entryErr, touchErr error) {
	if h.Capture != nil {
		entry, entryErr = h.Capture.ObservationEntry(anchorOf(p, in, turn, in.ToolUseID), capture.Tool{
			Name: in.ToolName, Input: in.ToolInput.Raw, Response: in.ToolResponse, Cwd: in.Cwd,
		})
		if entryErr != nil {
			entryErr = fmt.Errorf("capture tool call: %w", entryErr)
		}
	}
	touch, touchErr = h.fileActivity(in, p)
	if touchErr != nil {
		touchErr = fmt.Errorf("record file activity: %w", touchErr)
	}
	return entry, touch, entryErr, touchErr
}

// recordSeparately writes a tool call through the journal's and the memory
// service's own writes, for a handler without a ToolCallWriter.
func (h *Handler) recordSeparately(ctx context.Context, e *capture.Entry, a *memory.FileActivity) error {
	var errs []error
	if e != nil {
		if _, err := h.Capture.Store.AddEntry(ctx, e); err != nil {
			errs = append(errs, err)
		}
	}
	if a != nil {
		if _, err := h.Memory.SaveFileActivity(ctx, a); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fileActivity is the touch of the file a file tool worked on; nil for other
// tools.
func (h *Handler) fileActivity(in *Input, p project.Project) (*memory.FileActivity, error) {
	action, ok := fileActions[in.ToolName]
	if !ok {
		return nil, nil
	}
	path := in.ToolInput.FilePath
	if path == "" {
		path = in.ToolInput.NotebookPath
	}
	if path == "" {
		return nil, errors.New("file tool input without file_path or notebook_path")
	}
	if !filepath.IsAbs(path) && in.Cwd != "" {
		path = filepath.Join(in.Cwd, path)
	}
	return h.Memory.NewFileActivity(memory.FileActivityRequest{
		FilePath:    path,
		Action:      string(action),
		SessionID:   in.SessionID,
		ProjectRoot: p.Root,
		Metadata:    map[string]any{"tool_name": in.ToolName},
	})
}

// sessionEnd records the end of the session. Nothing is queued in this process,
// so nothing can be lost when it exits: the record is committed or spooled
// before the hook returns.
func (h *Handler) sessionEnd(ctx context.Context, in *Input) error {
	if in.SessionID == "" {
		return errors.New("session end without session_id")
	}
	p, err := h.project(ctx, in.Cwd)
	if err != nil {
		h.lostWrite(writeSession, err)
		return err
	}
	ended := h.now()
	s := &memory.Session{
		ID:        in.SessionID,
		Namespace: p.Namespace,
		Cwd:       in.Cwd,
		StartedAt: ended, // kept by the store when the start was recorded
		EndedAt:   &ended,
		EndReason: in.Reason,
	}
	if err := h.Memory.RecordSession(ctx, s); err != nil {
		h.lostWrite(writeSession, err)
		return fmt.Errorf("record session end: %w", err)
	}
	return nil
}
