package privacy

import (
	"math"
	"regexp"
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
		if containsAny(low, ru.keywords) {
			ru.compiled()
		}
	}
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
		if !containsAny(low, ru.keywords) {
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
