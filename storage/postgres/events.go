package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
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

// writeChange inserts one entry (keeping its id when it is set and free) and
// returns its id.
func writeChange(ctx context.Context, tx querier, c *memory.Change) (int64, error) {
	body, err := c.Stamp(ctx)
	if err != nil {
		return 0, err
	}
	var id int64
	err = tx.QueryRow(ctx, `INSERT INTO change_log (id, memory_id, namespace, at, action, source, fields, reason, related_id, author)
		VALUES (CASE WHEN $1 > 0 AND NOT EXISTS (SELECT 1 FROM change_log WHERE id = $1) THEN $1
			ELSE nextval(pg_get_serial_sequence('change_log', 'id')) END, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		RETURNING id`,
		c.ID, c.MemoryID, c.Namespace, c.At, string(c.Action), c.Source, string(body), c.Reason, c.RelatedID, c.Author).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record %s of %s: %w", c.Action, c.MemoryID, err)
	}
	return id, nil
}

// AddChanges appends entries to memories' logs in one transaction.
func (s *DB) AddChanges(ctx context.Context, changes ...memory.Change) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		for i := range changes {
			if _, err := writeChange(ctx, tx, &changes[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// NotContradiction reports whether a person judged a and b not to
// contradict each other.
func (s *DB) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	return statements(s.pool).NotContradiction(ctx, a, b)
}

func scanEvent(r pgx.CollectableRow) (memory.ValidationEvent, error) { return storage.ScanEvent(r) }
