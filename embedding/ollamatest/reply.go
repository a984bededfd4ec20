package ollamatest

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"
)

// DefaultReply is what the server answers a chat request with when no reply is
// queued and no chat function is set, so a model constrained by `format` is
// imitated:
//
//   - no format: the text "ok";
//   - "json": the object {};
//   - a JSON schema: a JSON value that satisfies it in the plainest way: objects
//     get every listed property, enums their first value, strings "", numbers 0,
//     booleans false, arrays [].
func DefaultReply(format json.RawMessage) string {
	format = bytes.TrimSpace(format)
	if len(format) == 0 || string(format) == "null" {
		return "ok"
	}
	var asString string
	if json.Unmarshal(format, &asString) == nil {
		return "{}" // "json"
	}
	var schema map[string]any
	if json.Unmarshal(format, &schema) != nil {
		return "{}"
	}
	out, _ := json.Marshal(valueFor(schema))
	return string(out)
}

// valueFor builds the plainest value a (small subset of) JSON Schema accepts.
func valueFor(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if c, ok := schema["const"]; ok {
		return c
	}
	typ, _ := schema["type"].(string)
	if types, ok := schema["type"].([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	switch typ {
	case "object", "":
		props, _ := schema["properties"].(map[string]any)
		if typ == "" && props == nil {
			return nil
		}
		obj := map[string]any{}
		for name, p := range props {
			sub, _ := p.(map[string]any)
			obj[name] = valueFor(sub)
		}
		return obj
	case "array":
		return []any{}
	case "string":
		return ""
	case "number", "integer":
		if min, ok := schema["minimum"].(float64); ok {
			return min
		}
		return 0
	case "boolean":
		return false
	}
	return nil
}

// Ramble answers a chat request as a small model with random weights does
// under a JSON-schema format: it opens a string and fills it with words until
// its output limit (num_predict) cuts the reply off, so the reply never parses.
// Real Ollama serves such replies with status 200; use it with [Server.SetChat].
func Ramble(req api.ChatRequest) (string, error) {
	var b strings.Builder
	b.WriteString(`{"relation": "`)
	words := []string{"the", "model", "server", "runs", "files", "with", "a", "local", "path", "and"}
	for i := range 256 {
		b.WriteString(words[(i*7+len(req.Messages))%len(words)])
		b.WriteByte(' ')
	}
	return b.String(), nil
}
