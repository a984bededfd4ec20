package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func sortInt64s(xs []int64) { slices.Sort(xs) }

// AddEvent records a validation event and returns its id. The memory must exist.
func (s *DB) AddEvent(ctx context.Context, ev *memory.ValidationEvent) (int64, error) {
	if ev == nil {
		return 0, memory.Invalidf("event", "nil", "a validation event")
	}
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, _, err := getMemory(ctx, tx, ev.MemoryID); err != nil {
			return err
		}
		var err error
		id, err = statements(tx).AddEvent(ctx, ev)
		return err
	})
	return id, err
}

// Events lists a memory's events, newest first, optionally of one type. A limit
// of 0 or less means all.
func (s *DB) Events(ctx context.Context, memoryID string, eventType memory.EventType, limit int) ([]memory.ValidationEvent, error) {
	visible, vargs := visibleCond(ctx, "m")
	query := `SELECT id, memory_id, event_type, context, error_msg, session_id, confidence_before,
		confidence_after, created_at, author FROM validation_events
		WHERE memory_id = ? AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id AND ` + visible + `)`
	args := append([]any{memoryID}, vargs...)
	if eventType != "" {
		query += ` AND event_type = ?`
		args = append(args, string(eventType))
	}
	if limit <= 0 {
		limit = -1
	}
	query += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	rows, err := s.db.QueryContext(ctx, query, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	defer rows.Close()
	var out []memory.ValidationEvent
	for rows.Next() {
		var ev memory.ValidationEvent
		var typ, created string
		if err := rows.Scan(&ev.ID, &ev.MemoryID, &typ, &ev.Context, &ev.ErrorMsg, &ev.SessionID,
			&ev.ConfidenceBefore, &ev.ConfidenceAfter, &created, &ev.Author); err != nil {
			return nil, fmt.Errorf("list events: %w", err)
		}
		ev.EventType = memory.EventType(typ)
		if ev.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// LastEventTimes returns the time of the latest validation event of each of
// the memories ids that has one, in one query.
func (s *DB) LastEventTimes(ctx context.Context, ids []string) (map[string]time.Time, error) {
	out := make(map[string]time.Time, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT memory_id, max(created_at) FROM validation_events
		WHERE memory_id IN (SELECT value FROM json_each(?)) GROUP BY memory_id`, string(list))
	if err != nil {
		return nil, fmt.Errorf("last events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, at string
		if err := rows.Scan(&id, &at); err != nil {
			return nil, fmt.Errorf("last events: %w", err)
		}
		t, err := parseTime(at)
		if err != nil {
			return nil, err
		}
		out[id] = t
	}
	return out, rows.Err()
}
