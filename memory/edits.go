package memory

import (
	"fmt"
	"time"
)

// LegacyEdits turns the entries a memory kept in metadata.edits (before the
// change log existed) into change log entries, oldest first, and takes the
// key out of the metadata. A demotion's entry becomes a demote. An edits key
// of another shape (an agent's own metadata) is left alone. Every store's
// import calls it, so an export made before the change log gives the same
// log on either store.
func LegacyEdits(m *Memory) []Change {
	entries, ok := m.Metadata[MetaEdits].([]any)
	if !ok || len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		edit, ok := e.(map[string]any)
		if !ok || edit["by"] == nil || edit["fields"] == nil {
			return nil
		}
	}
	delete(m.Metadata, MetaEdits)
	var out []Change
	for _, e := range entries {
		edit := e.(map[string]any)
		c := Change{MemoryID: m.ID, Namespace: m.Namespace, Action: ChangeEdit, Fields: []FieldChange{}}
		c.At, _ = time.Parse(time.RFC3339, fmt.Sprint(edit["at"]))
		if c.At.IsZero() {
			c.At = m.UpdatedAt
		}
		c.Source, _ = edit["by"].(string)
		if c.Source == "" {
			c.Source = "unknown"
		}
		c.Reason, _ = edit["reason"].(string)
		fields, _ := edit["fields"].([]any)
		for _, f := range fields {
			name, _ := f.(string)
			switch name {
			case "content":
				c.Fields = append(c.Fields, FieldChange{Field: "content_hash", Before: edit["previous_content_hash"]})
			case "memory_type":
				c.Fields = append(c.Fields, FieldChange{Field: "memory_type", Before: edit["previous_memory_type"]})
				if edit["previous_memory_type"] == string(TypeGoldenRule) {
					c.Action = ChangeDemote
				}
			case "importance":
				c.Fields = append(c.Fields, FieldChange{Field: "importance", Before: edit["previous_importance"]})
			}
		}
		out = append(out, c)
	}
	return out
}
