package memory

import (
	"context"
	"encoding/json"
	"fmt"
)

// Stamp fills what a store writes of a change log entry besides its own
// columns: its author (whoever asks in ctx, unless the entry names one) and
// its fields as the JSON array the store keeps ([] for none). Every store
// calls it before writing the entry.
func (c *Change) Stamp(ctx context.Context) (fields []byte, err error) {
	if c.Author == "" {
		c.Author = PrincipalFrom(ctx).Author()
	}
	fc := c.Fields
	if fc == nil {
		fc = []FieldChange{}
	}
	b, err := json.Marshal(fc)
	if err != nil {
		return nil, fmt.Errorf("change of %s: %w", c.MemoryID, err)
	}
	return b, nil
}
