// Package hook answers Claude Code's hooks: it reads the JSON Claude Code writes
// to a hook command's stdin and answers on stdout in the form Claude Code reads.
//
// A hook must never break the user's session: whatever goes wrong (malformed
// input, a locked database, Ollama down or hanging) the hook answers nothing,
// logs why to stderr and exits 0, within its deadline.
package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Events, by the names `recall hook <event>` takes.
const (
	SessionStart     = "session-start"
	UserPromptSubmit = "user-prompt-submit"
	PostToolUse      = "post-tool-use"
	Stop             = "stop"
	PreCompact       = "pre-compact"
	SessionEnd       = "session-end"
)

// Events lists the events Recall answers, in the order of a session.
var Events = []string{SessionStart, UserPromptSubmit, PostToolUse, Stop, PreCompact, SessionEnd}

// eventNames maps an event to Claude Code's name for it (hook_event_name).
var eventNames = map[string]string{
	SessionStart:     "SessionStart",
	UserPromptSubmit: "UserPromptSubmit",
	PostToolUse:      "PostToolUse",
	Stop:             "Stop",
	PreCompact:       "PreCompact",
	SessionEnd:       "SessionEnd",
}

// ParseEvent accepts an event as `recall hook` takes it (session-start) or as
// Claude Code names it (SessionStart).
func ParseEvent(s string) (string, error) {
	for ev, name := range eventNames {
		if s == ev || s == name {
			return ev, nil
		}
	}
	return "", fmt.Errorf("invalid hook event %q: accepted %s", s, strings.Join(Events, ", "))
}

// Input is what Claude Code writes to a hook's stdin. Every event carries the
// common fields; the others belong to one event each.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`

	// SessionStart: startup, resume, clear or compact.
	Source string `json:"source,omitempty"`
	// SessionEnd: clear, logout, prompt_input_exit, other.
	Reason string `json:"reason,omitempty"`
	// UserPromptSubmit: the prompt as typed.
	Prompt string `json:"prompt,omitempty"`
	// The prompt's id (Claude Code 2.1 and later, every event of its turn):
	// the transcript's record of the prompt carries it as promptId.
	PromptID string `json:"prompt_id,omitempty"`
	// PostToolUse: the tool, its arguments and what it answered.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    ToolInput       `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	// Stop: true when Claude Code continues because a Stop hook asked it to.
	StopHookActive bool `json:"stop_hook_active,omitempty"`
	// PreCompact: manual or auto.
	Trigger string `json:"trigger,omitempty"`

	// TranscriptOffset is the transcript's size when the hook ran, as the
	// machine of the transcript saw it: a team server's client sends it
	// (TranscriptOffsetHeader), since the server cannot stat the client's
	// file. Nil: the handler stats the transcript itself.
	TranscriptOffset *int64 `json:"-"`
}

// TranscriptOffsetHeader carries a client machine's Input.TranscriptOffset
// to the team server, as a decimal number of bytes.
const TranscriptOffsetHeader = "Recall-Transcript-Offset"

// ToolInput is a tool's arguments: kept whole (Raw) for the journal, with the
// file paths of file tools picked out.
type ToolInput struct {
	FilePath     string
	NotebookPath string
	Raw          json.RawMessage
}

// UnmarshalJSON keeps the arguments whatever their shape; arguments that are not
// an object name no file.
func (t *ToolInput) UnmarshalJSON(b []byte) error {
	t.Raw = append(json.RawMessage(nil), b...)
	var paths struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(b, &paths) == nil {
		t.FilePath, t.NotebookPath = paths.FilePath, paths.NotebookPath
	}
	return nil
}

// maxInputBytes bounds what is read from stdin: PostToolUse carries whole file
// contents (Write) and tool responses.
const maxInputBytes = 32 << 20

// ReadInput decodes a hook's stdin. Unknown fields are ignored: Claude Code adds
// fields over time.
func ReadInput(r io.Reader) (*Input, error) {
	raw, err := readRawInput(r)
	if err != nil {
		return nil, err
	}
	return ParseInput(raw)
}

// ParseInput decodes a hook's input read whole (see ReadInput). It is
// decoded once, with json.Unmarshal: a tool's response can be megabytes (a
// file read), which json.Decoder went through at 30-45 MB/s here, and
// Unmarshal at three times that.
func ParseInput(b []byte) (*Input, error) {
	var in Input
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("read hook input: want one JSON object on stdin: %w", err)
	}
	return &in, nil
}

// readRawInput reads the one JSON object on a hook's stdin, as it is, without
// waiting for the end of stdin. It finds where the object ends by its braces
// and strings, without decoding it (ParseInput, or the server, does that
// once): a hook that a server answers never decodes its input at all.
func readRawInput(r io.Reader) (json.RawMessage, error) {
	var buf []byte
	var sc objectScanner
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			from := len(buf)
			buf = append(buf, chunk[:n]...)
			if end, bad := sc.scan(buf, from); bad {
				return nil, errors.New("read hook input: want one JSON object on stdin")
			} else if end > 0 {
				return buf[sc.start:end:end], nil
			}
			if len(buf) > maxInputBytes {
				return nil, fmt.Errorf("read hook input: over %d MB on stdin", maxInputBytes>>20)
			}
		}
		if err == io.EOF {
			return nil, fmt.Errorf("read hook input: want one JSON object on stdin: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, fmt.Errorf("read hook input: %w", err)
		}
	}
}

// objectScanner finds the end of the JSON object at the start of a text
// that comes in pieces.
type objectScanner struct {
	started  bool // the object's '{' was seen, at start
	start    int
	depth    int
	inString bool
	escaped  bool // the last byte was a backslash in a string
}

// scan goes on through b from from; end is the object's end (past its last
// brace) once it is in b, 0 before; bad when b starts with anything but
// blanks and an object.
func (s *objectScanner) scan(b []byte, from int) (end int, bad bool) {
	for i := from; i < len(b); i++ {
		c := b[i]
		if !s.started {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '{':
				s.started, s.start = true, i
			default:
				return 0, true
			}
		}
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
			continue
		}
		switch c {
		case '"':
			s.inString = true
		case '{', '[':
			s.depth++
		case '}', ']':
			if s.depth--; s.depth == 0 {
				return i + 1, false
			}
		}
	}
	return 0, false
}

// Output is the answer Claude Code reads from a hook's stdout. Context for the
// model goes in additionalContext (a systemMessage is shown to the user only).
type Output struct {
	HookSpecificOutput *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is the event-specific part of an Output.
type SpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// contextOutput answers an event with context for the model, or nothing when
// there is none.
func contextOutput(event, text string) *Output {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return &Output{HookSpecificOutput: &SpecificOutput{HookEventName: eventNames[event], AdditionalContext: text}}
}
