package memory

import (
	"strings"
	"unicode"
)

// A Term is one content word of a query with the forms that count as it: each
// form is a phrase of lower-case words, and a memory contains the term when it
// contains any of its forms (stemmed by the keyword index). "UserService",
// "user_service" and "user-service" each become the term {"userservice",
// "user service"}, so all of them find one another.
type Term []string

// maxQueryTerms bounds the terms one query keeps.
const maxQueryTerms = 32

// QueryTerms returns the content words of a query: stop words and punctuation
// are left out, so a query of only those has no terms and matches nothing on
// the keyword side. Repeated terms count once.
func QueryTerms(text string) []Term {
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
		if phrase != joined && !containsString(t, phrase) {
			t = append(t, phrase)
		}
	}
	return t
}

// maxSearchWordsBytes bounds the extra forms indexed beside one memory.
const maxSearchWordsBytes = 4096

// SearchWords returns the forms of content's code words that the keyword index
// would not see in the content itself: the parts of camelCase words
// ("UserService" adds "user service") and the joined form of words written with
// separators ("user_service" and "user-service" add "userservice"). The store
// indexes them beside the content, so that every spelling finds the others.
func SearchWords(content string) string {
	var b strings.Builder
	seen := map[string]bool{}
	add := func(form string) {
		if seen[form] || b.Len()+len(form)+1 > maxSearchWordsBytes {
			return
		}
		seen[form] = true
		if b.Len() > 0 {
			b.WriteString(" . ") // a separator, so forms never run into one another's words
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

// isWordRune tells the characters FTS5's unicode61 tokenizer keeps in a word:
// letters, digits, combining marks and private-use characters; every other one
// separates words.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r)
}

// tokenWords cuts text into words the way the keyword index does.
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

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
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
