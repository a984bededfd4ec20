package hook

import (
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/memory"
)

// FloorFunc keeps the memories relevant enough to inject for a prompt, in their
// order. Every automatic injection (the prompt hook's index) goes through one,
// so that a better notion of "relevant" replaces it in one place.
type FloorFunc func(prompt string, found []memory.ScoredMemory) []memory.ScoredMemory

// KeywordFloor keeps a memory when it shares a word of at least three letters
// with the prompt, stop words aside, comparing the first five letters so that
// "cached" meets "cache". Hybrid search always returns its best candidates, and
// vector neighbours of an unrelated prompt are noise in the model's context.
func KeywordFloor(prompt string, found []memory.ScoredMemory) []memory.ScoredMemory {
	want := keywordStems(prompt)
	if len(want) == 0 {
		return nil
	}
	var out []memory.ScoredMemory
	for _, m := range found {
		for stem := range keywordStems(m.Content) {
			if want[stem] {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// stopWords are common English words that make no match on their own.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "but": true, "not": true, "you": true,
	"all": true, "any": true, "can": true, "had": true, "has": true, "have": true, "her": true,
	"was": true, "one": true, "our": true, "out": true, "how": true, "why": true, "what": true,
	"when": true, "where": true, "who": true, "which": true, "this": true, "that": true,
	"these": true, "those": true, "with": true, "from": true, "into": true, "about": true,
	"there": true, "their": true, "they": true, "them": true, "then": true, "than": true,
	"will": true, "would": true, "should": true, "could": true, "must": true, "may": true,
	"does": true, "did": true, "done": true, "its": true, "it's": true, "been": true, "being": true,
	"were": true, "some": true, "more": true, "most": true, "also": true, "just": true,
	"like": true, "make": true, "use": true, "used": true, "using": true, "please": true,
	"let": true, "let's": true, "now": true, "check": true, "look": true, "see": true,
}

func keywordStems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\''
	}) {
		if len([]rune(w)) < 3 || stopWords[w] {
			continue
		}
		if r := []rune(w); len(r) > 5 {
			w = string(r[:5])
		}
		out[w] = true
	}
	return out
}
