// Package keywords holds the rules of keyword search over SQLite FTS5: what
// text is indexed (code words split so that UserService, user_service and
// user-service find each other) and how a person's query becomes an FTS5 query
// (every term quoted, so query text is never FTS5 syntax; stop words never
// match alone).
//
// The FTS5 table that uses these rules is declared with Tokenizer.
package keywords

import (
	"strings"
	"unicode"
)

// Tokenizer is the FTS5 tokenize option the rules are written for: Porter
// stemming over unicode61, diacritics removed (so "café" finds "cafe").
const Tokenizer = "porter unicode61 remove_diacritics 2"

// stopWords are common English words that carry no topic: a query made only
// of them matches nothing, and in a longer query they are left out.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can could did do does
		for from had has have how i if in into is it its me my no not of on or our
		should so that the their them then there these they this to us was we were
		what when where which who why will with would you your`) {
		stopWords[w] = true
	}
}

// IsStopWord reports whether w (lower case) is a stop word.
func IsStopWord(w string) bool { return stopWords[w] }

// words splits text into runs of letters, digits, '_' and '-' (code words
// keep their joints here; unicode61 splits them again in the index).
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
	})
}

// parts splits a code word at '_', '-' and lower-to-upper case changes:
// "parseHTTPRequest" gives parse, HTTP, Request; "user_service" user, service.
func parts(word string) []string {
	var out []string
	runes := []rune(word)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, string(runes[start:end]))
		}
	}
	for i, r := range runes {
		switch {
		case r == '_' || r == '-':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && unicode.IsLower(runes[i-1]):
			flush(i)
			start = i
		case i > start+1 && unicode.IsLower(r) && unicode.IsUpper(runes[i-1]) && unicode.IsUpper(runes[i-2]):
			// "HTTPRequest": the capital before the first lower letter starts a word
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(runes))
	return out
}

// joined is a code word as one lower-case token: UserService, user_service
// and user-service all give "userservice".
func joined(word string) string {
	return strings.ToLower(strings.Join(parts(word), ""))
}

// isCompound reports whether word is made of several parts.
func isCompound(word string) bool { return len(parts(word)) > 1 }

// Expand returns what the index should hold for text: the text itself, then
// for every code word its joined form and (for camel case, which unicode61
// does not split) its parts. Queries for any spelling then meet.
func Expand(text string) string {
	var extra []string
	seen := map[string]bool{}
	for _, w := range words(text) {
		if !isCompound(w) || seen[w] {
			continue
		}
		seen[w] = true
		extra = append(extra, joined(w))
		if !strings.ContainsAny(w, "_-") {
			extra = append(extra, parts(w)...)
		}
	}
	if len(extra) == 0 {
		return text
	}
	return text + "\n" + strings.Join(extra, " ")
}

// Terms returns the query's search terms, lower case: code words joined,
// stop words and duplicates dropped, in order.
func Terms(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(query) {
		t := strings.ToLower(w)
		if isCompound(w) {
			t = joined(w)
		}
		t = strings.Trim(t, "_-")
		if t == "" || stopWords[t] || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// Match builds an FTS5 MATCH expression of terms joined by op ("AND" or
// "OR"). Every term is a quoted string, so nothing in it is FTS5 syntax. An
// empty expression means the query has no term that may match.
func Match(terms []string, op string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " "+op+" ")
}
