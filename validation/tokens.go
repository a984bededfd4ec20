package validation

import (
	"unicode"
	"unicode/utf8"
)

// EstimateTokens estimates how many tokens a BPE tokenizer of the GPT-4 /
// Claude family makes of s, without shipping a vocabulary. It walks the text
// the way such tokenizers pre-split it:
//
//   - a run of ASCII letters costs one token per lettersPerToken letters,
//     rounded up: common English words are one token, long words and
//     identifiers split into a few;
//   - a run of digits costs one token per three digits (numbers are split in
//     groups of at most three);
//   - every other letter (accented, CJK, ...) costs one token;
//   - every punctuation mark or symbol costs one token;
//   - white space is free (a space joins the word after it) except a run that
//     holds a line break or two or more spaces (indentation), which costs one.
//
// It is an estimate: no vocabulary is consulted, so a real tokenizer's count
// differs (common words it has whole are one token here only up to six
// letters). TestEstimateTokensRules checks each rule above.
func EstimateTokens(s string) int {
	tokens := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < utf8.RuneSelf && isASCIILetter(byte(r)):
			n := runLen(s[i:], isASCIILetter)
			tokens += (n + lettersPerToken - 1) / lettersPerToken
			i += n
		case r >= '0' && r <= '9':
			n := runLen(s[i:], isDigit)
			tokens += (n + 2) / 3
			i += n
		case unicode.IsSpace(r):
			n, costly := spaceRun(s[i:])
			if costly {
				tokens++
			}
			i += n
		default:
			tokens++
			i += size
		}
	}
	return tokens
}

// lettersPerToken is the average length of a word piece of English text.
const lettersPerToken = 6

func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func runLen(s string, ok func(byte) bool) int {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return n
}

// spaceRun measures a run of white space and whether it costs a token.
func spaceRun(s string) (n int, costly bool) {
	spaces := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsSpace(r) {
			break
		}
		if r == '\n' || r == '\r' {
			costly = true
		}
		spaces++
		n += size
	}
	return n, costly || spaces > 1
}
