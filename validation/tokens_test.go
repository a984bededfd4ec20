package validation_test

import (
	"testing"

	"github.com/recall-mcp/recall/validation"
)

// TestEstimateTokensRules checks each counting rule EstimateTokens documents.
func TestEstimateTokensRules(t *testing.T) {
	cases := []struct {
		text string
		want int
		rule string
	}{
		{"", 0, "nothing costs nothing"},
		{"token", 1, "a word of up to six letters is one token"},
		{"tokens", 1, "six letters are one token"},
		{"tokenizer", 2, "letters cost one token per six, rounded up"},
		{"internationalization", 4, "20 letters are four tokens"},
		{"123", 1, "up to three digits are one token"},
		{"1234567", 3, "digits cost one token per three, rounded up"},
		{"é", 1, "a letter outside ASCII is one token"},
		{"日本語", 3, "each CJK character is one token"},
		{"a.b", 3, "punctuation is one token"},
		{"go vet", 2, "a single space is free"},
		{"go\nvet", 3, "a line break costs one"},
		{"go    vet", 3, "a run of spaces (indentation) costs one"},
		{"MUST NOT", 2, "RFC 2119 words are one token each"},
	}
	for _, c := range cases {
		if got := validation.EstimateTokens(c.text); got != c.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d: %s", c.text, got, c.want, c.rule)
		}
	}
}
