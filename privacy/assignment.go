package privacy

import (
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/internal/lazy"
)

// secretAssignment judges a match of the secret-assignment rule (groups: the
// name, then the value double-quoted, single-quoted or bare) and returns the
// secret, or "" when the name does not name a secret or the value is not one.
func secretAssignment(m []string) string {
	if len(m) < 5 || !secretName(m[1]) {
		return ""
	}
	value, quoted := m[4], false
	if m[2] != "" || m[3] != "" {
		value, quoted = m[2]+m[3], true
	}
	if !quoted {
		value = strings.TrimRight(value, ",)}]>")
	}
	if !secretValue(value, quoted) {
		return ""
	}
	return value
}

// secretWords end a name that names a secret (DB_PASSWORD, authToken,
// client-secret); keyQualifiers are the words before "key" that make a key a
// secret (api_key, aws_secret_access_key; not KEY_PREFIX or sort_key).
var (
	secretWords = map[string]bool{
		"password": true, "passwd": true, "pwd": true, "pass": true, "passphrase": true, "secret": true,
		"token": true, "apikey": true, "credential": true, "credentials": true, "auth": true,
	}
	keyQualifiers = map[string]bool{
		"api": true, "access": true, "secret": true, "private": true, "signing": true, "encryption": true,
		"master": true, "client": true, "license": true, "auth": true, "app": true, "service": true, "account": true,
	}
)

// secretName reports whether a variable or field name names a secret: its last
// word is one of secretWords, or it is a key qualified as secret.
func secretName(name string) bool {
	parts := nameParts(name)
	if len(parts) == 0 {
		return false
	}
	last := parts[len(parts)-1]
	if secretWords[last] {
		return true
	}
	return last == "key" && len(parts) > 1 && keyQualifiers[parts[len(parts)-2]]
}

// nameParts splits a name into lower-case words at _, -, . and camelCase.
func nameParts(name string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush()
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return parts
}

// The shapes of values that are not secrets, compiled on first use (only
// text with an assignment in it needs them).
var (
	// number: 4000, 1.5, 30s, 512MB
	numberValue = lazy.Regexp(`^-?\d+(?:\.\d+)?[A-Za-z%]{0,3}$`)
	// a dotted identifier: req.headers.authorization, settings.SECRET
	dottedName = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$`)
	// lower-case words, hyphenated or not: files, prod-db-credentials
	plainWords = lazy.Regexp(`^[a-z]+(?:-[a-z]+)*$`)
	// a URL or a path (a URL's password has its own rule)
	pathValue = lazy.Regexp(`^(?:[a-z][a-z0-9+.-]*://|/|\./|\.\./|~/)`)
)

// notSecretValues are values that say something other than a secret.
var notSecretValues = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "null": true, "none": true,
	"nil": true, "undefined": true, "string": true, "str": true, "int": true, "bool": true, "bytes": true,
	"required": true, "optional": true, "bearer": true, "basic": true, "token": true, "redacted": true,
}

// secretValue reports whether a value could be a secret: not empty or short, not
// a number, a reference ($VAR, ${VAR}, %VAR%, {{ x }}, <placeholder>), code
// (a call, an index, a dotted name), a path, a URL or plain words.
func secretValue(v string, quoted bool) bool {
	v = strings.TrimSpace(v)
	switch {
	case len(v) < 4,
		notSecretValues[strings.ToLower(v)],
		strings.ContainsAny(v[:1], "$%{<[(*@&"),
		strings.ContainsAny(v, "()[]"),
		strings.Contains(v, "REDACTED"),
		numberValue().MatchString(v),
		dottedName().MatchString(v),
		pathValue().MatchString(v),
		!quoted && plainWords().MatchString(v) && len(v) <= 30,
		quoted && plainWords().MatchString(v) && len(v) <= 12:
		return false
	}
	return true
}
