package history

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
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
// output trimmed; never images, nor thinking unless asked. Every part is made
// safe to keep (privacy.Clean): <private> sections and secrets never reach the
// index nor a reader.
func ExtractText(content json.RawMessage, opts TextOptions) string {
	return render(pieces(content, opts))
}

// A piece is one block's text as the transcript holds it, before it is made
// safe to keep and cut: reading is cheap, cleaning is not, so a reader that
// keeps only some messages (a window around one) cleans only those.
type piece struct {
	label string // kept before the text: "[Bash] ", "[result] "
	text  string // cut at limit+scanMargin when limit is set
	limit int    // bytes of the clean text kept; 0: all
	line  bool   // squeezed onto one line
}

// scanMargin is how far past a cut a piece is read and scanned for secrets,
// so that a secret straddling the cut is recognised whole and not kept half.
// Tokens and keys are shorter; a private key cut off has a rule of its own.
// Scanning costs more than reading: a margin of 1 KB made indexing 2.8 times
// as costly in CPU as no cleaning, this one 1.9 times.
const scanMargin = 256

func pieces(content json.RawMessage, opts TextOptions) []piece {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return []piece{{text: s}}
	}
	var blocks []block
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []piece
	for _, b := range blocks {
		if p, ok := blockPiece(b, opts); ok {
			out = append(out, p)
		}
	}
	return out
}

func blockPiece(b block, opts TextOptions) (piece, bool) {
	switch b.Type {
	case "text":
		return piece{text: b.Text}, b.Text != ""
	case "thinking":
		return piece{text: b.Thinking}, opts.Thinking && b.Thinking != ""
	case "tool_use":
		return toolCall(b.Name, b.Input), true
	case "tool_result":
		out := strings.TrimSpace(rawText(b.Content))
		if out == "" {
			return piece{}, false
		}
		label := "[result] "
		if b.IsError {
			label = "[error] "
		}
		return piece{label: label, text: memory.Cut(out, toolResultChars+scanMargin), limit: toolResultChars}, true
	}
	return piece{}, false // image, document, redacted thinking, newer kinds
}

// rawText is the text of a tool result's content as written, not yet clean.
func rawText(content json.RawMessage) string {
	ps := pieces(content, TextOptions{})
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.label + p.text
	}
	return strings.Join(texts, "\n")
}

// render makes pieces safe to keep, cuts them and joins them.
func render(ps []piece) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		t := privacy.Clean(p.text)
		if p.line {
			t = oneLine(t)
		}
		if p.limit > 0 {
			t = truncate(t, p.limit)
		}
		if p.label+t != "" {
			parts = append(parts, p.label+t)
		}
	}
	return strings.Join(parts, "\n")
}

// blank reports whether pieces hold nothing to show.
func blank(ps []piece) bool {
	for _, p := range ps {
		if p.label != "" || strings.TrimSpace(p.text) != "" {
			return false
		}
	}
	return true
}

// toolArgs are the arguments that say what a tool call did, by preference.
var toolArgs = []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt"}

// toolCall sums up a tool call in one line: the tool and its telling argument.
func toolCall(name string, input map[string]any) piece {
	for _, k := range toolArgs {
		if v, ok := input[k].(string); ok && v != "" {
			return piece{label: "[" + name + "] ", text: memory.Cut(v, toolArgChars+scanMargin), limit: toolArgChars, line: true}
		}
	}
	return piece{label: "[" + name + "]"}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return memory.Cut(s, n) + "…"
}

// cutAround keeps at most n bytes of s around the first place one of query's
// words appears (a word matched by its stem: "caching" is found at "cache"),
// marking what was cut with "…". Text where none appears keeps its beginning.
func cutAround(s, query string, n int) string {
	if len(s) <= n {
		return s
	}
	at := firstWordAt(strings.ToLower(s), query)
	if at < 0 {
		return truncate(s, n)
	}
	start := max(0, at-n/4) // a quarter of the room before the word
	for start > 0 && !utf8.RuneStart(s[start]) {
		start++
	}
	if start+n >= len(s) {
		start = max(0, len(s)-n)
		for start > 0 && !utf8.RuneStart(s[start]) {
			start++
		}
	}
	body := memory.Cut(s[start:], n)
	out := body
	if start > 0 {
		out = "…" + out
	}
	if start+len(body) < len(s) {
		out += "…"
	}
	return out
}

// firstWordAt is the byte offset in low (lower-case text) of the first of
// query's content words, each looked for by its first five letters (about its
// stem) or whole when shorter; -1 when none appears.
func firstWordAt(low, query string) int {
	first := -1
	for _, t := range keywords.Terms(query) {
		for _, form := range t {
			w := strings.Fields(form)
			if len(w) == 0 {
				continue
			}
			probe := w[0]
			if len(probe) > 5 {
				probe = probe[:5]
			}
			if i := strings.Index(low, probe); i >= 0 && (first < 0 || i < first) {
				first = i
			}
		}
	}
	return first
}
