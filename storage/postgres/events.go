package postgres

import (
	"context"
	"fmt"
	"time"
)

// LastEventTimes returns the time of the latest validation event of each of
// the memories ids that has one, in one query.
func (s *DB) LastEventTimes(ctx context.Context, ids []string) (map[string]time.Time, error) {
	out := make(map[string]time.Time, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT memory_id, max(created_at) FROM validation_events
		WHERE memory_id = ANY($1) GROUP BY memory_id`, ids)
	if err != nil {
		return nil, fmt.Errorf("last events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			return nil, fmt.Errorf("last events: %w", err)
		}
		out[id] = at.UTC()
	}
	return out, rows.Err()
}

// NotContradiction reports whether a person judged a and b not to
// contradict each other.
func (s *DB) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	return statements(s.pool).NotContradiction(ctx, a, b)
}
