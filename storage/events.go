package storage

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// Events lists a memory's events, newest first, optionally of one type; a
// limit of 0 or less means all. A memory the asker may not see has none.
func (s Shared) Events(ctx context.Context, memoryID string, eventType memory.EventType, limit int) ([]memory.ValidationEvent, error) {
	p := Params{memoryID}
	query := `SELECT ` + EventColumns + ` FROM validation_events WHERE memory_id = $1
		AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id AND ` + Visible(ctx, "m", &p) + `)`
	if eventType != "" {
		query += ` AND event_type = ` + p.Add(string(eventType))
	}
	query += ` ORDER BY created_at DESC, id DESC`
	if limit > 0 {
		query += ` LIMIT ` + p.Add(limit)
	}
	out, err := QueryAll(ctx, s.Read.SQL, ScanEvent, query, p...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}

// AddEvent records a validation event and returns its id. The memory must
// exist, and be one the asker may see.
func (s Shared) AddEvent(ctx context.Context, ev *memory.ValidationEvent) (int64, error) {
	if ev == nil {
		return 0, memory.Invalidf("event", "nil", "a validation event")
	}
	var id int64
	err := s.Tx.Write(ctx, func(tx Tx) error {
		if _, err := tx.ReadMemory(ctx, ev.MemoryID); err != nil {
			return err
		}
		var err error
		id, err = tx.AddEvent(ctx, ev)
		return err
	})
	return id, err
}
