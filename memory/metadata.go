package memory

import (
	"encoding/json"
	"fmt"
)

// A memory's metadata is stored as a JSON object; every store writes and
// reads it through these, so an export moves it between stores unchanged.

// EncodeMetadata gives the JSON object a store keeps: {} for none.
func EncodeMetadata(m map[string]any) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("metadata: %w", err)
	}
	return string(b), nil
}

// DecodeMetadata reads stored metadata into a non-nil map.
func DecodeMetadata(b []byte) (map[string]any, error) {
	m := map[string]any{}
	if len(b) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("stored metadata: %w", err)
	}
	return m, nil
}

// DecodeOptionalMetadata is DecodeMetadata that gives nil for an empty object
// (fields with omitempty).
func DecodeOptionalMetadata(b []byte) (map[string]any, error) {
	m, err := DecodeMetadata(b)
	if err != nil || len(m) == 0 {
		return nil, err
	}
	return m, nil
}
