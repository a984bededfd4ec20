package privacy

import (
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
)

// The rules are gitleaks' own (its default configuration, some 220 rules for the
// common providers' keys and tokens, private keys, JWTs and generic
// "secret = value" assignments), plus a few for what it leaves to allowlists
// or does not cover: passwords in URLs and .env-style lines with a secret name.
//
// A hook is a fresh process, so compiling every rule at start-up (about 30 ms)
// would slow every hook. gitleaks' rules are Go literals (gitleaks_rules.go,
// generated from its configuration by TestGitleaksRulesAreCurrent), so nothing
// is parsed at run time and gitleaks' configuration loader (viper and its
// formats) is not linked into the binary; a rule's expression is compiled only
// when one of its keywords occurs in the text, as gitleaks itself prefilters;
// most text wakes a handful of rules.

// rule is one detection rule.
type rule struct {
	id          string
	pattern     string
	secretGroup int
	entropy     float64 // minimum Shannon entropy of the secret; 0 means none
	keywords    []string
	stopWords   []string // a secret containing one is a placeholder, not a secret
	allowRegex  []string // a secret matching one is not a secret
	// pick, when set, picks the secret out of a match ("" for none) instead
	// of the secret group: for rules whose match needs a judgment in Go.
	pick func(m []string) string

	once    sync.Once
	re      *regexp.Regexp
	allowRe []*regexp.Regexp

	namedOnce sync.Once
	named     bool // see namedByKeyword
}

// compiled compiles the rule on first use; a pattern Go cannot compile makes the
// rule match nothing.
func (r *rule) compiled() *regexp.Regexp {
	r.once.Do(func() {
		r.re, _ = regexp.Compile(r.pattern)
		for _, p := range r.allowRegex {
			if re, err := regexp.Compile(p); err == nil {
				r.allowRe = append(r.allowRe, re)
			}
		}
	})
	return r.re
}

// ownRules cover what gitleaks' rules leave out on purpose (they target source
// code; a session's text holds shell commands and .env files).
var ownRules = []*rule{
	{
		// A private key cut off by trimming has no END line for gitleaks' rule.
		id:       "private-key-unterminated",
		pattern:  `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\z)`,
		keywords: []string{"private key"},
	},
	{
		// The user part may be empty (redis://:password@host).
		id:       "url-password",
		pattern:  `(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@'"]*:([^\s/@'"]{1,200})@`,
		keywords: []string{"://"},
	},
	{
		// name = value, name: value, "name": "value" wherever they stand: .env
		// lines, shell commands and their output, YAML, JSON, TOML, INI,
		// connection strings, logs. Whether the name names a secret and the
		// value is one (not a number, a reference, code or a word) is judged
		// in Go (secretAssignment).
		id: "secret-assignment",
		pattern: `(?:^|[^A-Za-z0-9_.])["']?([A-Za-z_][A-Za-z0-9_.-]{0,60})["']?[ \t]*(?::=|=|:)[ \t]*` +
			`(?:"([^"\n]{0,200})"|'([^'\n]{0,200})'|([^\s"'\x60&;]{1,200}))`,
		keywords: []string{"passw", "pwd", "pass=", "_pass", "-pass", "pass\"", "secret", "token", "key", "credential", "auth"},
		pick:     secretAssignment,
	},
	{
		// mysql -pPASSWORD (no space: with one, mysql asks for it).
		id:       "mysql-password",
		pattern:  `\b(?i:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p([^\s'"]+)`,
		keywords: []string{"mysql", "mariadb"},
	},
	{
		// curl -u user:password
		id:       "curl-user-password",
		pattern:  `\bcurl\b[^\n|;]*?\s(?:-u|--user)[ \t=]*['"]?[^:\s'"]+:([^\s'"]+)`,
		keywords: []string{"curl"},
	},
}

// redactor holds the rules and the global allowlist, compiled when the first
// candidate secret needs checking.
type redactor struct {
	rules      []*rule
	stopWords  []string
	allowSrc   []string
	allowOnce  sync.Once
	allowRegex []*regexp.Regexp
}

func (r *redactor) allowList() []*regexp.Regexp {
	r.allowOnce.Do(func() {
		for _, p := range r.allowSrc {
			if re, err := regexp.Compile(p); err == nil {
				r.allowRegex = append(r.allowRegex, re)
			}
		}
	})
	return r.allowRegex
}

var (
	loadOnce sync.Once
	loaded   *redactor
)

// defaultRedactor builds the redactor the first time text needs it.
func defaultRedactor() *redactor {
	loadOnce.Do(func() {
		r := &redactor{stopWords: gitleaksStopWords, allowSrc: gitleaksAllowRegexes, rules: gitleaksRules()}
		r.rules = append(r.rules, ownRules...)
		loaded = r
	})
	return loaded
}

// Prepare compiles the rules that text wakes (one of their keywords occurs
// in it), so that Clean and Scrub of text, or of parts of it, find them
// compiled. A hook calls it on its input beside work that does not need the
// rules yet: the generic assignment rule alone takes half a millisecond to
// compile, and a path with "api" or "key" in it wakes it.
func Prepare(text string) { defaultRedactor().prepare(text) }

func (r *redactor) prepare(text string) {
	low := strings.ToLower(text)
	for _, ru := range r.rules {
		if ru.mayMatch(low) {
			ru.compiled()
		}
	}
}

// mayMatch says whether the rule may find a secret in low (the text in lower
// case): one of its keywords occurs in it, and for a rule of gitleaks'
// semi-generic kind, one is followed by what the rule needs before a secret.
// A rule that cannot match is not compiled.
func (ru *rule) mayMatch(low string) bool {
	if !containsAny(low, ru.keywords) {
		return false
	}
	return !ru.namedByKeyword() || assignedAfter(low, ru.keywords)
}

// namedByKeyword says whether the rule is semi-generic and every identifier
// it matches holds one of its keywords, followed only by name characters:
// then a match has a keyword followed by an assignment. Some provider rules
// have keywords from the secret instead (New Relic's "nrak"), and are left
// to their expression.
func (ru *rule) namedByKeyword() bool {
	ru.namedOnce.Do(func() {
		if !isSemiGeneric(ru.pattern) {
			return
		}
		alt := strings.TrimPrefix(ru.pattern, semiGenericStart)
		alt = alt[:strings.Index(alt, semiGenericMiddle)]
		re, err := syntax.Parse("(?i:"+alt+")", syntax.Perl)
		if err != nil {
			return
		}
		ids, ok := identifiers(re.Simplify())
		if !ok {
			return
		}
		for _, id := range ids {
			if !holdsKeyword(id, ru.keywords) {
				return
			}
		}
		ru.named = true
	})
	return ru.named
}

// holdsKeyword says whether id holds one of keywords followed by at most
// maxIdentifierRest name characters.
func holdsKeyword(id string, keywords []string) bool {
	return keywordFollowedBy(id, keywords, func(rest string) bool {
		return len(rest) <= maxIdentifierRest && allName(rest)
	})
}

// keywordFollowedBy reports whether, in s, an occurrence of one of keywords
// is followed by a rest that ok accepts.
func keywordFollowedBy(s string, keywords []string, ok func(rest string) bool) bool {
	for _, k := range keywords {
		for from := 0; ; {
			i := strings.Index(s[from:], k)
			if i < 0 {
				break
			}
			if ok(s[from+i+len(k):]) {
				return true
			}
			from += i + 1
		}
	}
	return false
}

func allName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// identifiers lists every string re matches, in lower case; ok is false when
// they are not a small finite set.
func identifiers(re *syntax.Regexp) (out []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) > 64 {
					return nil, false
				}
				out = append(out, strings.ToLower(string(r)))
			}
		}
		return out, true
	case syntax.OpCapture:
		return identifiers(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := identifiers(re.Sub[0])
		return append(sub, ""), ok
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			sub, ok := identifiers(s)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		}
		return out, true
	case syntax.OpConcat:
		out = []string{""}
		for _, s := range re.Sub {
			sub, ok := identifiers(s)
			if !ok || len(out)*len(sub) > 4096 {
				return nil, false
			}
			var next []string
			for _, a := range out {
				for _, b := range sub {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// Most of gitleaks' rules for a provider's keys, and its generic-api-key,
// are semi-generic: an identifier (the provider's name, or "api", "key",
// "token"...), up to 20 name characters, up to 3 quotes or spaces, then an
// assignment (=, :, >, ||, ?=, a comma) and the secret. A keyword in a path
// or a word ("internal/api/orders.go", "the API docs") wakes such a rule, and
// generic-api-key takes half a millisecond to compile (its counted
// repetitions, up to 150, unroll): a post-tool-use or prompt hook paid it on
// most inputs. Where the identifier holds one of the rule's keywords
// (namedByKeyword), a text without a keyword followed by name characters,
// quotes or spaces and an assignment holds no match.
const (
	semiGenericStart  = `(?i)[\w.-]{0,50}?(?:`
	semiGenericMiddle = `)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`
	// maxIdentifierRest is how many name characters may follow a keyword
	// within the identifier (at most 50 in all, checked by the test), before
	// the 20 the middle allows.
	maxIdentifierRest = 50
)

func isSemiGeneric(pattern string) bool {
	return strings.HasPrefix(pattern, semiGenericStart) && strings.Contains(pattern, semiGenericMiddle)
}

// assignedAfter reports whether, in low, one of keywords is followed by at
// most maxIdentifierRest+20 name characters ([ \t\w.-]), at most 3 quotes
// or spaces, then the first character of an assignment.
func assignedAfter(low string, keywords []string) bool {
	return keywordFollowedBy(low, keywords, assignmentWithin)
}

// assignmentWithin says whether s begins with name characters, quotes or
// spaces as the semi-generic middle allows, then an assignment's first
// character.
func assignmentWithin(s string) bool {
	for a := 0; a <= maxIdentifierRest+20 && a <= len(s); a++ {
		for b := 0; b <= 3 && a+b < len(s); b++ {
			if strings.IndexByte("=>:|?,", s[a+b]) >= 0 {
				return true
			}
			if !isQuoteOrSpace(s[a+b]) {
				break
			}
		}
		if a == len(s) || !isNameChar(s[a]) {
			return false
		}
	}
	return false
}

// isNameChar is [ \t\w.-] of a lower-cased text, and any byte of a
// character beyond ASCII: under (?i) the class also holds the long s and the
// Kelvin sign, which lower-casing leaves non-ASCII.
func isNameChar(c byte) bool {
	return c == ' ' || c == '\t' || c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// isQuoteOrSpace is [\s'"] (RE2's \s: \t \n \f \r and space).
func isQuoteOrSpace(c byte) bool {
	return c == '\'' || c == '"' || c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// Redact replaces every secret found in text with [REDACTED:<rule>] and counts
// the replacements per rule.
func (r *redactor) Redact(text string) (string, map[string]int) {
	if text == "" {
		return text, nil
	}
	low := strings.ToLower(text)
	found := map[string]string{} // secret -> rule id
	for _, ru := range r.rules {
		if !ru.mayMatch(low) {
			continue
		}
		re := ru.compiled()
		if re == nil {
			continue
		}
		for _, m := range ru.matches(re, text, low) {
			secret := secretOf(m, ru.secretGroup)
			if ru.pick != nil {
				secret = ru.pick(m)
			}
			if secret == "" || r.allowed(ru, secret) {
				continue
			}
			if _, seen := found[secret]; !seen {
				found[secret] = ru.id
			}
		}
	}
	if len(found) == 0 {
		return text, nil
	}
	// Longest first, so a secret that contains another is replaced whole.
	secrets := make([]string, 0, len(found))
	for s := range found {
		secrets = append(secrets, s)
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	counts := map[string]int{}
	for _, s := range secrets {
		id := found[s]
		counts[id] += strings.Count(text, s)
		text = strings.ReplaceAll(text, s, "[REDACTED:"+id+"]")
	}
	return text, counts
}

// matches runs the rule over text. A rule that cannot span lines runs only on
// the lines holding one of its keywords: the generic assignment rule costs about
// a millisecond per kilobyte of text, and most lines of a tool's output hold
// none of its keywords.
func (ru *rule) matches(re *regexp.Regexp, text, low string) [][]string {
	if strings.Contains(ru.pattern, `\s\S`) || strings.Contains(ru.pattern, "(?s") || strings.Contains(ru.pattern, "(?is") || strings.Contains(ru.pattern, "(?im") {
		return re.FindAllStringSubmatch(text, -1)
	}
	var out [][]string
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if containsAny(low[start:end], ru.keywords) {
			out = append(out, re.FindAllStringSubmatch(text[start:end], -1)...)
		}
		start = end + 1
	}
	return out
}

// secretOf picks the secret out of a match as gitleaks does: the rule's secret
// group, else the first non-empty group, else the whole match.
func secretOf(m []string, group int) string {
	if group > 0 && group < len(m) {
		return m[group]
	}
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	return m[0]
}

func (r *redactor) allowed(ru *rule, secret string) bool {
	if ru.entropy > 0 && shannon(secret) < ru.entropy {
		return true
	}
	low := strings.ToLower(secret)
	if containsAny(low, ru.stopWords) || containsAny(low, r.stopWords) {
		return true
	}
	for _, re := range ru.allowRe {
		if re.MatchString(secret) {
			return true
		}
	}
	for _, re := range r.allowList() {
		if re.MatchString(secret) {
			return true
		}
	}
	return false
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// shannon is the Shannon entropy of s in bits per character.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	freq := map[rune]float64{}
	n := 0.0
	for _, c := range s {
		freq[c]++
		n++
	}
	h := 0.0
	for _, f := range freq {
		p := f / n
		h -= p * math.Log2(p)
	}
	return h
}
