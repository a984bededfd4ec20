package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

func sortInt64s(xs []int64) { slices.Sort(xs) }

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
