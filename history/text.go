package history

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// TextOptions say what of a message is indexed beyond what people wrote.
type TextOptions struct {
	Thinking bool // the model's thinking blocks
}

// Lengths that keep tool chatter from drowning what people wrote.
const (
	toolResultChars = 300 // of each tool output
	toolArgChars    = 160 // of the argument a tool call is summed up by
)

// block is one element of a message's content list.
type block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    map[string]any  `json:"input"`
	Content  json.RawMessage `json:"content"` // tool_result: a string or a list of blocks
	IsError  bool            `json:"is_error"`
}

// ExtractText is the searchable text of a message's content: the text people
// and the model wrote; tool calls as one-liners ("[Bash] go test ./..."); tool
// output trimmed; never images, nor thinking unless asked.
func ExtractText(content json.RawMessage, opts TextOptions) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []block
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if t := blockText(b, opts); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

func blockText(b block, opts TextOptions) string {
	switch b.Type {
	case "text":
		return b.Text
	case "thinking":
		if opts.Thinking {
			return b.Thinking
		}
	case "tool_use":
		return toolCall(b.Name, b.Input)
	case "tool_result":
		out := strings.TrimSpace(ExtractText(b.Content, TextOptions{}))
		if out == "" {
			return ""
		}
		label := "[result]"
		if b.IsError {
			label = "[error]"
		}
		return label + " " + truncate(out, toolResultChars)
	}
	return "" // image, document, redacted thinking, newer kinds
}

// toolArgs are the arguments that say what a tool call did, by preference.
var toolArgs = []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt"}

// toolCall sums up a tool call in one line: the tool and its telling argument.
func toolCall(name string, input map[string]any) string {
	for _, k := range toolArgs {
		if v, ok := input[k].(string); ok && v != "" {
			return fmt.Sprintf("[%s] %s", name, truncate(oneLine(v), toolArgChars))
		}
	}
	return "[" + name + "]"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
