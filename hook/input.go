// Package hook answers Claude Code's hooks: it reads the JSON Claude Code writes
// to a hook command's stdin and answers on stdout in the form Claude Code reads.
//
// A hook must never break the user's session: whatever goes wrong (malformed
// input, a locked database, Ollama down or hanging) the hook answers nothing,
// logs why to stderr and exits 0, within its deadline.
package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Events, by the names `recall hook <event>` takes.
const (
	SessionStart     = "session-start"
	UserPromptSubmit = "user-prompt-submit"
	PostToolUse      = "post-tool-use"
	SessionEnd       = "session-end"
	PreCompact       = "pre-compact"
)

// Events lists the events Recall answers, in the order of a session.
var Events = []string{SessionStart, UserPromptSubmit, PostToolUse, PreCompact, SessionEnd}

// eventNames maps an event to Claude Code's name for it (hook_event_name).
var eventNames = map[string]string{
	SessionStart:     "SessionStart",
	UserPromptSubmit: "UserPromptSubmit",
	PostToolUse:      "PostToolUse",
	SessionEnd:       "SessionEnd",
	PreCompact:       "PreCompact",
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
	// PostToolUse: the tool and its arguments.
	ToolName  string    `json:"tool_name,omitempty"`
	ToolInput ToolInput `json:"tool_input"`
}

// ToolInput holds the arguments of file tools that matter here. Other tools'
// arguments are ignored.
type ToolInput struct {
	FilePath     string `json:"file_path,omitempty"`
	NotebookPath string `json:"notebook_path,omitempty"`
}

// maxInputBytes bounds what is read from stdin: PostToolUse carries whole file
// contents (Write) and tool responses.
const maxInputBytes = 32 << 20

// ReadInput decodes a hook's stdin. Unknown fields are ignored: Claude Code adds
// fields over time.
func ReadInput(r io.Reader) (*Input, error) {
	var in Input
	dec := json.NewDecoder(io.LimitReader(r, maxInputBytes))
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("read hook input: want one JSON object on stdin: %w", err)
	}
	return &in, nil
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
