package postgres

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/recall-mcp/recall/keywords"
)

// stemmed is the text search configuration of memories and the journal
// (migrations/0001_init.sql): Snowball English over the store's own words.
const stemmed = "recall_stemmed"

// words cuts text into the words SQLite's unicode61 tokenizer sees (letters,
// digits and private-use characters; anything else separates), lower case and
// without diacritics, joined by spaces. PostgreSQL's parser, given only
// these, finds the same words, so both stores index the same terms.
func words(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	inWord := false
	for _, r := range norm.NFD.String(text) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A diacritic: dropped, the word goes on ("café" is "cafe").
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r):
			if !inWord && b.Len() > 0 {
				b.WriteByte(' ')
			}
			inWord = true
			b.WriteRune(unicode.ToLower(r))
		default:
			inWord = false
		}
	}
	return b.String()
}

// memoryWords is what a memory's tsvector is made from: its words, then the
// other spellings of its code words (keywords.SearchWords), as the SQLite
// index holds them beside the content.
func memoryWords(content string) string {
	return words(content + " " + keywords.SearchWords(content))
}

// journalWords is what a journal entry's tsvector is made from: its title
// and body, then the other spellings of their code words.
func journalWords(title, body string) string { return memoryWords(title + " " + body) }

// tsQuery turns terms into a tsquery expression over config: each term any of
// its forms (a phrase), terms joined by op ("&&" or "||"). The forms are bound
// as parameters in p, never spliced into SQL, so user text is
// never query syntax. An empty string means no term: no hits.
func tsQuery(terms []keywords.Term, op, config string, p *params) string {
	var parts []string
	for _, t := range terms {
		var forms []string
		for _, f := range t {
			w := words(f)
			if w == "" {
				continue
			}
			forms = append(forms, "phraseto_tsquery('"+config+"', "+p.add(w)+")")
		}
		if len(forms) > 0 {
			parts = append(parts, "("+strings.Join(forms, " || ")+")")
		}
	}
	return strings.Join(parts, " "+op+" ")
}
