package server

import (
	"strings"

	"github.com/recall-mcp/recall/internal/lazy"
)

// The SDK checks arguments against the schema before a handler runs, and its
// messages speak of schemas and Go types ("validating root: validating
// /properties/importance", "Go struct field map[string]interface {}"). plain
// rewrites them in the words of our own errors: the argument, what was wrong,
// what is accepted.

// The expressions are compiled on first use: every recall process links this
// package, and only a call with bad arguments needs them.
var (
	wrongType = lazy.Regexp(`validating /properties/(\w+): type: (.*) has type "(\w+)", want (?:one of )?"([^"]*)"`)
	missing   = lazy.Regexp(`required: missing properties: \[([^\]]*)\]`)
	unknown   = lazy.Regexp(`unexpected additional properties \[([^\]]*)\]`)
	goType    = lazy.Regexp(`json: cannot unmarshal (.*) into Go struct field .*\.(\w+) of type (\w+)`)
)

// jsonKinds name JSON Schema and Go types as a caller would.
var jsonKinds = map[string]string{
	"number": "a number", "integer": "a whole number", "string": "a string", "boolean": "true or false",
	"array": "a list", "object": "an object", "float64": "a number within float64's range", "int": "a whole number",
}

func plain(msg string) string {
	msg = strings.TrimPrefix(msg, `validating "arguments": `)
	msg = strings.TrimPrefix(msg, "unmarshaling arguments: ")
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	if m := wrongType().FindStringSubmatch(msg); m != nil {
		return "invalid " + m[1] + " " + m[2] + " (" + kind(m[3]) + "): accepted " + acceptedKinds(m[4])
	}
	if m := missing().FindStringSubmatch(msg); m != nil {
		return "missing " + strings.ReplaceAll(m[1], `"`, "") + ": required"
	}
	if m := unknown().FindStringSubmatch(msg); m != nil {
		return "unknown argument " + m[1] + ": see the tool's input schema for its arguments"
	}
	if m := goType().FindStringSubmatch(msg); m != nil {
		return "invalid " + m[2] + " " + m[1] + ": accepted " + kind(m[3])
	}
	return msg
}

func kind(t string) string {
	if k, ok := jsonKinds[t]; ok {
		return k
	}
	return t
}

// acceptedKinds turns "null, number" into "a number" (null means not given).
func acceptedKinds(list string) string {
	var out []string
	for _, t := range strings.Split(list, ",") {
		if t = strings.TrimSpace(t); t != "" && t != "null" {
			out = append(out, kind(t))
		}
	}
	return strings.Join(out, " or ")
}
