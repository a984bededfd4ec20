// Package keywords holds the rules of keyword search over SQLite FTS5, for
// every keyword index Recall keeps (the memories and the conversation
// history): what is indexed beside a text (the other spellings of its code
// words, so that UserService, user_service and user-service find each other)
// and how a person's query becomes an FTS5 query (content words only, every
// form quoted, so query text is never FTS5 syntax and stop words never match
// alone).
//
// The FTS5 tables that use these rules are declared with Tokenizer.
package keywords

import (
	"slices"
	"strings"
	"unicode"
)

// Tokenizer is the FTS5 tokenize option the rules are written for: Porter
// stemming over unicode61, diacritics removed (so "caching" finds "cache" and
// "café" finds "cafe").
const Tokenizer = "porter unicode61 remove_diacritics 2"

// A Term is one content word of a query with the forms that count as it: each
// form is a phrase of lower-case words, and a text contains the term when it
// contains any of its forms (stemmed by the index). "UserService",
// "user_service" and "user-service" each become the term {"userservice",
// "user service"}, so all of them find one another.
type Term []string

// maxQueryTerms bounds the terms one query keeps.
const maxQueryTerms = 32

// Terms returns the content words of a query: stop words and punctuation are
// left out, so a query of only those has no terms and matches nothing. Each
// whitespace-separated piece is one term (a file path or a code word gives one
// term whose forms are its words as a phrase and joined). Repeated terms count
// once.
func Terms(text string) []Term {
	var terms []Term
	seen := map[string]bool{}
	for _, chunk := range strings.Fields(text) {
		t := chunkTerm(chunk)
		if t == nil || seen[t[0]] {
			continue
		}
		seen[t[0]] = true
		terms = append(terms, t)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return terms
}

// chunkTerm is the term of one whitespace-separated piece of a query, or nil
// when it holds no content word.
func chunkTerm(chunk string) Term {
	words := tokenWords(trimPossessive(chunk))
	parts := splitParts(words)
	if len(parts) == 0 || allStopWords(parts) {
		return nil
	}
	if len(parts) == 1 {
		return Term{parts[0]}
	}
	joined := strings.Join(parts, "")
	t := Term{joined}
	for _, phrase := range []string{strings.ToLower(strings.Join(words, " ")), strings.Join(parts, " ")} {
		if phrase != joined && !slices.Contains(t, phrase) {
			t = append(t, phrase)
		}
	}
	return t
}

// Match is the term as an FTS5 expression: each form a quoted phrase, the
// forms ORed. Forms are lower-case words and spaces only, but quotes are still
// doubled, so user text can never become FTS5 syntax.
func (t Term) Match() string {
	forms := make([]string, len(t))
	for i, f := range t {
		forms[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
	}
	if len(forms) == 1 {
		return forms[0]
	}
	return "(" + strings.Join(forms, " OR ") + ")"
}

// Match joins terms into one FTS5 MATCH expression with op ("AND" or "OR")
// between them. An empty expression means no term may match: callers treat it
// as "no hits", never as a query.
func Match(terms []Term, op string) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = t.Match()
	}
	return strings.Join(parts, " "+op+" ")
}

// Query is Match over the terms of text.
func Query(text, op string) string { return Match(Terms(text), op) }

// maxSearchWordsBytes bounds the extra forms indexed beside one text.
const maxSearchWordsBytes = 4096

// SearchWords returns the forms of content's code words that the index would
// not see in the content itself: the parts of camelCase words ("UserService"
// adds "user service") and the joined form of words written with separators
// ("user_service" and "user-service" add "userservice"). An index holds them
// beside the content, so that every spelling finds the others.
func SearchWords(content string) string {
	var b strings.Builder
	seen := map[string]bool{}
	add := func(form string) {
		if seen[form] || b.Len()+len(form)+1 > maxSearchWordsBytes {
			return
		}
		seen[form] = true
		if b.Len() > 0 {
			b.WriteString(" . ") // for a reader: the tokenizer drops it, so a phrase may span two forms
		}
		b.WriteString(form)
	}
	for _, chunk := range strings.Fields(content) {
		words := tokenWords(trimPossessive(chunk))
		parts := splitParts(words)
		if len(words) > 1 {
			add(strings.Join(parts, ""))
		}
		if len(parts) > len(words) {
			add(strings.Join(parts, " "))
		}
	}
	return b.String()
}

// Expand is what a one-column index holds for text: the text, then on a line
// of their own its SearchWords. Text without code words is returned unchanged.
func Expand(text string) string {
	if w := SearchWords(text); w != "" {
		return text + "\n" + w
	}
	return text
}

// isWordRune tells the characters FTS5's unicode61 tokenizer keeps in a word:
// letters, digits, combining marks and private-use characters; every other one
// separates words.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r)
}

// tokenWords cuts text into words the way the index does.
func tokenWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
}

// splitParts lower-cases words and cuts camelCase ones at their case changes:
// "getHTTPResponse" gives get, http, response. Digits stay with their letters,
// so error codes such as E11000 stay whole.
func splitParts(words []string) []string {
	var parts []string
	for _, w := range words {
		parts = append(parts, camelParts(w)...)
	}
	return parts
}

func camelParts(word string) []string {
	r := []rune(word)
	var parts []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if lowerToUpper || acronymEnd {
			parts = append(parts, strings.ToLower(string(r[start:i])))
			start = i
		}
	}
	return append(parts, strings.ToLower(string(r[start:])))
}

// trimPossessive drops an English possessive ending: "UserService's" is about
// UserService.
func trimPossessive(chunk string) string {
	for _, suffix := range []string{"'s", "’s"} {
		if len(chunk) > len(suffix) && strings.HasSuffix(strings.ToLower(chunk), suffix) {
			return chunk[:len(chunk)-len(suffix)]
		}
	}
	return chunk
}

func allStopWords(parts []string) bool {
	for _, p := range parts {
		if !stopWords[p] {
			return false
		}
	}
	return true
}

// stopWords never match on their own: English function words, the pieces of
// contractions, the politeness of prompts ("please", "thanks") and the verbs a
// prompt asks with ("check", "explain", "show"), which say what to do, not
// what about. A word that names a thing in code (test, error, file, make, run)
// is never one.
var stopWords = toSet(`a about above after again against all am an and any are as at be because
	been before being below between both but by can could did do does doing don down during each
	few for from further had has have having he her here hers herself him himself his how i if in
	into is it its itself just let me more most my myself no nor not now of off on once only or
	other our ours ourselves out over own same she should so some such than that the their theirs
	them themselves then there these they this those through to too under until up very was we
	were what when where which while who whom why will with would you your yours yourself
	yourselves s t d ll m re ve o y isn aren wasn weren hasn haven hadn doesn didn won wouldn
	shan shouldn can cannot couldn mustn needn mightn also may might must shall us via etc
	please thanks thank hi hello hey ok okay yes yeah sure one ones something anything everything
	nothing thing things really actually maybe still even ever else another whether though much many
	check explain tell show help need want know think look see give try`)

func toSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}
