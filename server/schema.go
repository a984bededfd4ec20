package server

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema infers the JSON schema of a tool's arguments from T and records
// the tool's defaults in it. The SDK applies schema defaults to absent
// arguments before the handler runs, so a handler sees every default filled in
// and a client reads the defaults from tools/list without extra prose.
func inputSchema[T any](defaults map[string]any) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %T: %v", *new(T), err))
	}
	for name, v := range defaults {
		p, ok := s.Properties[name]
		if !ok {
			panic(fmt.Sprintf("input schema of %T: default for unknown property %q", *new(T), name))
		}
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		p.Default = b
	}
	return s
}

// objectOutput is the output schema of every tool: a JSON object. The result
// fields are those of the Python Recall (documented in the tool table); an
// inferred schema for each would triple the size of tools/list, which every
// client pays for in every conversation.
var objectOutput = &jsonschema.Schema{Type: "object"}
