// Package privacy makes text safe to keep: it drops what the user marked
// <private>...</private> and redacts secrets (API keys and tokens, private keys,
// passwords in URLs, secret-looking KEY=value lines, JWTs) before anything is
// stored, indexed or summarised.
package privacy

import (
	"strings"

	"github.com/recall-mcp/recall/internal/lazy"
)

// Scrubbed is text made safe to keep, with what was taken out of it.
type Scrubbed struct {
	Text         string
	PrivateParts int            // <private> sections removed
	Redactions   map[string]int // secrets replaced, by rule id
}

// Scrub removes <private> sections, then redacts secrets. Text without either is
// returned unchanged (and costs no rule compilation).
func Scrub(text string) Scrubbed {
	out := Scrubbed{}
	out.Text, out.PrivateParts = StripPrivate(text)
	out.Text, out.Redactions = defaultRedactor().Redact(out.Text)
	return out
}

// Clean is Scrub for callers that only need the text.
func Clean(text string) string { return Scrub(text).Text }

// privateSection matches a <private> section, case-insensitive and across lines.
// An unclosed <private> hides everything after it: the user meant to hide
// something, and guessing where it ends could leak it. Compiled on first use:
// only text with a <private> tag needs it.
var privateSection = lazy.Regexp(`(?is)<private>.*?(?:</private>|\z)`)

// PrivateMarker replaces each removed <private> section, so a reader sees that
// something was left out without seeing what.
const PrivateMarker = "[private]"

// StripPrivate removes every <private>...</private> section and reports how many.
func StripPrivate(text string) (string, int) {
	if !strings.Contains(strings.ToLower(text), "<private>") {
		return text, 0
	}
	n := 0
	out := privateSection().ReplaceAllStringFunc(text, func(string) string {
		n++
		return PrivateMarker
	})
	return out, n
}
