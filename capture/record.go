package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
)

// Limits of what one entry keeps. A tool's output can be megabytes (a 5 MB file
// read); the journal keeps the start, says how much it dropped, and the
// transcript anchor leads to the rest.
const (
	MaxPromptBytes   = 16 << 10
	MaxInputBytes    = 2 << 10 // of a tool's arguments, in the body
	MaxResponseBytes = 4 << 10 // of a tool's output, in the body
	maxTitleRunes    = 160
	maxOutcomeRunes  = 80
)

// Recorder writes the journal on the hooks' hot path: no network, no model.
type Recorder struct {
	Store RecorderStore
	Now   func() time.Time
}

func (r *Recorder) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

// QueueSummary asks for a summary of a session, anchored to turnID; the chat
// model is never called here: recall serve works the queue.
func (r *Recorder) QueueSummary(ctx context.Context, sessionID, reason, turnID string) error {
	return r.Store.QueueSummary(ctx, sessionID, reason, turnID)
}

// Turn is the transcript turn (the uuid of the prompt the user typed) that a
// hook event of the session comes under, read from as little of the
// transcript as the journal allows (the hook runs after every tool call, on
// transcripts of any size): after a tool call of the same transcript with a
// turn, no prompt came since (a prompt is captured before its tool calls), so
// it is that turn and nothing is read; after a prompt, its line is next to
// the prompt's anchor. Without either, the transcript's last 256 KB.
func (r *Recorder) Turn(ctx context.Context, sessionID, transcriptPath string) string {
	return r.TurnAfter(ctx, nil, sessionID, transcriptPath, -1)
}

// TurnAsOf is Turn as it was when the transcript was size bytes long (below
// zero: as it is now).
func (r *Recorder) TurnAsOf(ctx context.Context, sessionID, transcriptPath string, size int64) string {
	return r.TurnAfter(ctx, nil, sessionID, transcriptPath, size)
}

// TurnAfter is Turn as it was when the transcript was size bytes long (below
// zero: as it is now), with pending entries written after what the store
// holds but not yet committed (oldest first): for a tool call recorded after
// its hook ran (kept in the spool), by when the transcript may hold the next
// prompt, in a drain that writes many in one transaction (each tool call's
// turn depends on the capture before it).
func (r *Recorder) TurnAfter(ctx context.Context, pending []*Entry, sessionID, transcriptPath string, size int64) string {
	var last *Entry
	for i := len(pending) - 1; i >= 0 && sessionID != ""; i-- {
		if e := pending[i]; e.SessionID == sessionID && (e.Kind == KindPrompt || e.Kind == KindObservation) {
			last = e
			break
		}
	}
	if last == nil && sessionID != "" {
		last, _ = r.Store.LastCapture(ctx, sessionID) // unread: as without one
	}
	switch {
	case last == nil || last.TranscriptPath != transcriptPath || last.TranscriptOffset < 0:
		return lastUserTurnBefore(transcriptPath, size)
	case size >= 0 && last.TranscriptOffset > size:
		// The last capture came after the event (a later prompt or tool
		// call, written before this one was applied): it says nothing of the
		// event's turn, which is the last prompt before size.
		return lastUserTurnBefore(transcriptPath, size)
	case last.Kind == KindObservation && last.TurnID != "":
		return last.TurnID
	}
	// After a prompt, or a tool call whose turn was not found: the prompt's
	// line is next to the anchor, and before the event's size (a prompt
	// written since is not the event's).
	return turnNear(transcriptPath, last.TranscriptOffset, size)
}

// Anchor places an entry in a session and its transcript.
type Anchor struct {
	Namespace      string
	SessionID      string
	TurnID         string
	TranscriptPath string
	// MessageID is the entry's own message, by the id Claude Code gives the
	// hook: a tool call's tool_use_id, a prompt's prompt_id.
	MessageID string
	// TranscriptOffset is the transcript's size as the hook ran (see
	// TranscriptSize); details read the message from there.
	TranscriptOffset int64
}

// Prompt records what the user asked, private sections and secrets removed.
func (r *Recorder) Prompt(ctx context.Context, a Anchor, prompt string) (*Entry, error) {
	e := r.PromptEntry(a, prompt)
	if e == nil {
		return nil, nil
	}
	if _, err := r.Store.AddEntry(ctx, e); err != nil {
		return nil, err
	}
	return e, nil
}

// PromptEntry is the entry Prompt records, for a caller that makes it apart
// from the write (the prompt hook, while its search runs). Nil for a prompt
// with nothing to keep.
func (r *Recorder) PromptEntry(a Anchor, prompt string) *Entry {
	text, cut := keep(prompt, MaxPromptBytes)
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	e := r.entry(a, KindPrompt)
	e.Title = memory.Preview(text, maxTitleRunes)
	e.Body = text
	e.TrimmedBytes = cut
	return e
}

// Tool is one tool call as PostToolUse reports it.
type Tool struct {
	Name     string
	Input    json.RawMessage
	Response json.RawMessage
	Cwd      string
}

// Observation records one tool call: a one-line title (tool, file or command,
// outcome) for the index and a trimmed body (arguments and output) for details.
func (r *Recorder) Observation(ctx context.Context, a Anchor, t Tool) (*Entry, error) {
	e, err := r.ObservationEntry(a, t)
	if err != nil || e == nil {
		return nil, err
	}
	if _, err := r.Store.AddEntry(ctx, e); err != nil {
		return nil, err
	}
	return e, nil
}

// ObservationEntry is the entry Observation records, for a caller that
// writes it together with other things (the post-tool-use hook, in one
// transaction). Nil when the call is not recorded (Recall's own tools).
func (r *Recorder) ObservationEntry(a Anchor, t Tool) (*Entry, error) {
	if t.Name == "" {
		return nil, fmt.Errorf("tool_name is empty: want the name of the tool that ran")
	}
	if OwnTool(t.Name) {
		return nil, nil
	}
	args := decodeObject(t.Input)
	input, inputCut := keep(compactJSON(t.Input), MaxInputBytes)
	text, isText := responseText(t.Response)
	output, outputCut := keep(text, MaxResponseBytes)

	e := r.entry(a, KindObservation)
	e.ToolName = t.Name
	e.Files = filesOf(args, t.Cwd)
	outcome := output
	if !isText {
		outcome = "" // a JSON object says nothing in one line (Edit's is the patch)
	}
	e.Title = privacy.Clean(observationTitle(t.Name, args, e.Files, outcome))
	e.Body = fmt.Sprintf("tool: %s\ninput: %s\noutput:\n%s", t.Name, input, output)
	e.TrimmedBytes = inputCut + outputCut
	return e, nil
}

// OwnTool reports whether a tool is one of Recall's own, as Claude Code names
// MCP tools (mcp__recall__recall_search, mcp__plugin_recall_recall__...). Their
// calls are not captured: reading memories would fill the journal with copies
// of itself.
func OwnTool(name string) bool {
	return strings.HasPrefix(name, "mcp__") && strings.Contains(strings.ToLower(name), "recall")
}

func (r *Recorder) entry(a Anchor, k Kind) *Entry {
	return &Entry{Kind: k, Namespace: a.Namespace, SessionID: a.SessionID, TurnID: a.TurnID,
		TranscriptPath: a.TranscriptPath, AnchorID: a.MessageID, TranscriptOffset: a.TranscriptOffset, CreatedAt: r.now()}
}

// observationTitle is "Tool target → outcome" on one line.
func observationTitle(tool string, args map[string]any, files []string, output string) string {
	target := ""
	for _, k := range []string{"command", "pattern", "query", "url", "description", "prompt"} {
		if s, ok := args[k].(string); ok && s != "" {
			target = s
			break
		}
	}
	if target == "" && len(files) > 0 {
		target = strings.Join(files, ", ")
	} else if len(files) > 0 && tool != "Bash" {
		target += " in " + strings.Join(files, ", ")
	}
	title := tool
	if target != "" {
		title += ": " + memory.Preview(target, maxTitleRunes)
	}
	if out := memory.Preview(output, maxOutcomeRunes); out != "" {
		title += " → " + out
	}
	return memory.Preview(title, maxTitleRunes)
}

// fileKeys are the arguments of Claude Code's tools that name files.
var fileKeys = []string{"file_path", "notebook_path", "path"}

// filesOf lists the files a tool's arguments name, absolute.
func filesOf(args map[string]any, cwd string) []string {
	var files []string
	for _, k := range fileKeys {
		p, ok := args[k].(string)
		if !ok || p == "" {
			continue
		}
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		files = append(files, p)
	}
	sort.Strings(files)
	return files
}

func decodeObject(raw json.RawMessage) map[string]any {
	var m map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m) // not an object: no named arguments
	}
	return m
}

// compactJSON renders a tool's arguments on as few bytes as possible.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// toolResponse holds the text fields of Claude Code's tool responses (stdout and
// stderr of Bash, a file's content, a result); other fields are skipped unread.
type toolResponse struct {
	Error   string `json:"error"`
	Stderr  string `json:"stderr"`
	Stdout  string `json:"stdout"`
	Result  string `json:"result"`
	Output  string `json:"output"`
	Content any    `json:"content"`
	Message string `json:"message"`
	File    struct {
		Content string `json:"content"`
	} `json:"file"`
}

// responseText is a tool's output as text: its text fields when it has them
// (isText), else the JSON itself. It decodes the response once, whatever its
// shape, since a response can be megabytes.
func responseText(raw json.RawMessage) (text string, isText bool) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 {
		return "", true
	}
	switch trimmed[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
	case '{':
		var r toolResponse
		if json.Unmarshal(raw, &r) == nil {
			content, _ := r.Content.(string)
			var parts []string
			for _, p := range []string{r.Error, r.Stderr, r.Stdout, r.Result, r.Output, content, r.Message, r.File.Content} {
				if strings.TrimSpace(p) != "" {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, "\n"), true
			}
		}
	}
	return string(raw), false
}

// scanMargin is how far past a cut the text is scanned for secrets, so that a
// secret straddling the cut is recognised whole and not kept half.
const scanMargin = 1 << 10

// keep makes at most limit bytes of s safe to store: private sections removed,
// secrets redacted, then trimmed with a note of what was left out. It returns
// how many bytes of s were not kept.
func keep(s string, limit int) (string, int) {
	clean := privacy.Clean(cutAt(s, limit+scanMargin))
	if len(clean) <= limit && len(s) <= limit+scanMargin {
		return clean, 0
	}
	kept := cutAt(clean, limit)
	dropped := len(s) - len(kept)
	return kept + fmt.Sprintf("\n[… %d bytes not kept]", dropped), dropped
}

// cutAt keeps at most n bytes of s, cut at a line end where one is near and
// never inside a character.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = memory.Cut(s, n)
	if nl := strings.LastIndexByte(s, '\n'); nl > len(s)/2 {
		s = s[:nl]
	}
	return s
}
