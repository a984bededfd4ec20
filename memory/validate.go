package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Checks shared by the Service's operations. Each returns an InvalidError that
// names the field and what is accepted.

// checkText trims s and refuses it when empty, too long or not plain UTF-8 text.
func checkText(field, s string, maxBytes int) (string, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return "", invalid(field, s, "non-empty text")
	case len(t) > maxBytes:
		return "", Invalidf(field, fmt.Sprintf("of %d bytes", len(t)), fmt.Sprintf("at most %d bytes", maxBytes))
	case !utf8.ValidString(t):
		return "", invalid(field, t, "valid UTF-8 text")
	case strings.ContainsRune(t, 0):
		return "", invalid(field, t, "text without NUL characters")
	}
	return t, nil
}

// checkMetadata accepts a JSON object of at most MaxMetadataBytes once encoded.
func checkMetadata(md map[string]any) error {
	if md == nil {
		return nil
	}
	b, err := json.Marshal(md)
	if err != nil {
		return Invalidf("metadata", "that cannot be encoded as JSON", "a JSON object")
	}
	if len(b) > MaxMetadataBytes {
		return Invalidf("metadata", fmt.Sprintf("of %d bytes", len(b)), fmt.Sprintf("a JSON object of at most %d bytes", MaxMetadataBytes))
	}
	return nil
}

// checkUnit accepts a finite number in [0, 1].
func checkUnit(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
		return Invalidf(field, v, "a number from 0 to 1")
	}
	return nil
}

// checkDecay accepts a finite decay factor in (0, 1]; zero takes def.
func checkDecay(v, def float64) (float64, error) {
	if v == 0 {
		return def, nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v > 1 {
		return 0, Invalidf("decay_factor", v, "a number greater than 0 and at most 1")
	}
	return v, nil
}

// intInRange takes def for zero and refuses values outside [lo, hi].
func intInRange(field string, v, def, lo, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, Invalidf(field, v, fmt.Sprintf("an integer from %d to %d", lo, hi))
	}
	return v, nil
}

// optionalNamespace validates a namespace filter; empty means any.
func optionalNamespace(ctx context.Context, ns string) ([]string, error) {
	ns, err := ResolveOptionalNamespace(ctx, ns)
	if ns == "" || err != nil {
		return nil, err
	}
	return []string{ns}, nil
}

// optionalType validates a type filter; empty means any.
func optionalType(t Type) ([]Type, error) {
	if t == "" {
		return nil, nil
	}
	pt, err := ParseType(string(t))
	if err != nil {
		return nil, err
	}
	return []Type{pt}, nil
}

// parseRelations validates a list of relation names.
func parseRelations(field string, rs []Relation) ([]Relation, error) {
	out := make([]Relation, 0, len(rs))
	for _, r := range rs {
		pr, err := ParseRelation(string(r))
		if err != nil {
			return nil, Invalidf(field, fmt.Sprintf("%q", r), joinNames(Relations))
		}
		out = append(out, pr)
	}
	return out, nil
}

// Limits of the one-line strings a tool accepts.
const (
	MaxSessionIDBytes   = 256
	MaxProjectRootBytes = 4096
	MaxFileTypeBytes    = 64
)

// CheckLine accepts a one-line identifier (a path, a session id, a file
// type): valid UTF-8 of at most maxBytes, without control characters (NUL,
// newlines, tabs, escapes), which make no sense in one and could hide or forge
// what a person later reads. Empty is accepted: callers check presence.
func CheckLine(field, s string, maxBytes int) error {
	switch {
	case len(s) > maxBytes:
		return Invalidf(field, fmt.Sprintf("of %d bytes", len(s)), fmt.Sprintf("at most %d bytes", maxBytes))
	case !utf8.ValidString(s):
		return Invalidf(field, "that is not valid UTF-8", "UTF-8 text")
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return Invalidf(field, fmt.Sprintf("%q (a control character at byte %d)", s, i), "one line of text without control characters")
	}
	return nil
}

// invisible reports characters that show as nothing: format characters
// (zero-width space and joiners, the byte order mark, bidirectional marks)
// and control characters.
func invisible(r rune) bool { return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) }
