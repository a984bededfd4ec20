package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

// AddEvent records a validation event and returns its id. The memory must exist.
func (s *DB) AddEvent(ctx context.Context, ev *memory.ValidationEvent) (int64, error) {
	if ev == nil {
		return 0, memory.Invalidf("event", "nil", "a validation event")
	}
	var id int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		if _, _, err := getMemory(ctx, tx, ev.MemoryID, false); err != nil {
			return err
		}
		var err error
		id, err = statements(tx).AddEvent(ctx, ev)
		return err
	})
	return id, err
}

const eventColumns = `id, memory_id, event_type, context, error_msg, session_id, confidence_before, confidence_after, created_at, author`

func scanEvent(row pgx.CollectableRow) (memory.ValidationEvent, error) {
	var ev memory.ValidationEvent
	var typ string
	err := row.Scan(&ev.ID, &ev.MemoryID, &typ, &ev.Context, &ev.ErrorMsg, &ev.SessionID,
		&ev.ConfidenceBefore, &ev.ConfidenceAfter, &ev.CreatedAt, &ev.Author)
	ev.EventType = memory.EventType(typ)
	ev.CreatedAt = ev.CreatedAt.UTC()
	return ev, err
}

// Events lists a memory's events, newest first, optionally of one type. A
// limit of 0 or less means all.
func (s *DB) Events(ctx context.Context, memoryID string, eventType memory.EventType, limit int) ([]memory.ValidationEvent, error) {
	p := params{memoryID}
	query := `SELECT ` + eventColumns + ` FROM validation_events WHERE memory_id = $1
		AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id AND ` + visibleCond(ctx, "m", &p) + `)`
	if eventType != "" {
		query += ` AND event_type = ` + p.add(string(eventType))
	}
	query += ` ORDER BY created_at DESC, id DESC`
	if limit > 0 {
		query += ` LIMIT ` + p.add(limit)
	}
	rows, err := s.pool.Query(ctx, query, p...)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanEvent)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}

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

const changeColumns = `id, memory_id, namespace, at, action, source, fields, reason, related_id, author`

func scanChange(row pgx.CollectableRow) (memory.Change, error) {
	var c memory.Change
	var action string
	var fields []byte
	if err := row.Scan(&c.ID, &c.MemoryID, &c.Namespace, &c.At, &action, &c.Source, &fields, &c.Reason, &c.RelatedID, &c.Author); err != nil {
		return c, err
	}
	c.Action = memory.ChangeAction(action)
	c.At = c.At.UTC()
	if err := json.Unmarshal(fields, &c.Fields); err != nil {
		return c, fmt.Errorf("change %d: fields: %w", c.ID, err)
	}
	return c, nil
}

// Changes lists entries, newest first.
func (s *DB) Changes(ctx context.Context, q memory.ChangeQuery) ([]memory.Change, error) {
	return queryChanges(ctx, s.pool, q)
}

func queryChanges(ctx context.Context, db querier, q memory.ChangeQuery) ([]memory.Change, error) {
	var p params
	where := "true"
	if q.MemoryID != "" {
		where += " AND memory_id = " + p.add(q.MemoryID)
	}
	if len(q.Actions) > 0 {
		actions := make([]string, len(q.Actions))
		for i, a := range q.Actions {
			actions[i] = string(a)
		}
		where += " AND action = ANY(" + p.add(actions) + ")"
	}
	if len(q.Namespaces) > 0 {
		where += " AND namespace = ANY(" + p.add(q.Namespaces) + ")"
	}
	where += " AND " + visibleCond(ctx, "change_log", &p)
	limit := "ALL"
	if q.Limit > 0 {
		limit = p.add(q.Limit)
	}
	rows, err := db.Query(ctx, `SELECT `+changeColumns+` FROM change_log WHERE `+where+` ORDER BY id DESC LIMIT `+limit, p...)
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanChange)
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	if out == nil {
		out = []memory.Change{}
	}
	return out, nil
}

// NotContradiction reports whether a person judged a and b not to
// contradict each other.
func (s *DB) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	return statements(s.pool).NotContradiction(ctx, a, b)
}
