package storage

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// Rows is a query's result as the shared decoding reads it: database/sql's
// rows and pgx's both are. The caller closes them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadCounts reads (key, count) rows into counts.
func ReadCounts(rows Rows, counts map[string]int) error {
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		counts[k] = n
	}
	return rows.Err()
}

// ReadCoverage reads (id, number of the terms matched) rows into out as the
// fraction of the terms each id holds; ids matching none are left out.
func ReadCoverage[ID comparable](rows Rows, terms int, out map[ID]float64) error {
	for rows.Next() {
		var id ID
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		if n > 0 {
			out[id] = float64(n) / float64(terms)
		}
	}
	return rows.Err()
}

// ReadAll reads every row with read, which scans the current one.
func ReadAll[T any](rows Rows, read func() (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := read()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// EdgeColumns are the columns of edges ScanEdge reads.
const EdgeColumns = `id, source_id, target_id, relation, weight, metadata, created_at, author`

// ScanEdge reads an edge from a row of EdgeColumns.
func ScanEdge(row Row) (memory.Edge, error) {
	var e memory.Edge
	var rel string
	var meta []byte
	if err := row.Scan(&e.ID, &e.SourceID, &e.TargetID, &rel, &e.Weight, &meta, &e.CreatedAt, &e.Author); err != nil {
		return e, err
	}
	e.Relation, e.CreatedAt = memory.Relation(rel), e.CreatedAt.UTC()
	var err error
	e.Metadata, err = rowMetadata(meta, "edge", e.ID)
	return e, err
}

// rowMetadata decodes the metadata of row id of what (none when empty).
func rowMetadata(meta []byte, what string, id int64) (map[string]any, error) {
	m, err := memory.DecodeOptionalMetadata(meta)
	if err != nil {
		return nil, fmt.Errorf("%s %d: %w", what, id, err)
	}
	return m, nil
}

// EventColumns are the columns of validation_events ScanEvent reads.
const EventColumns = `id, memory_id, event_type, context, error_msg, session_id, confidence_before, confidence_after, created_at, author`

// ScanEvent reads a validation event from a row of EventColumns.
func ScanEvent(row Row) (memory.ValidationEvent, error) {
	var ev memory.ValidationEvent
	var typ string
	err := row.Scan(&ev.ID, &ev.MemoryID, &typ, &ev.Context, &ev.ErrorMsg, &ev.SessionID,
		&ev.ConfidenceBefore, &ev.ConfidenceAfter, &ev.CreatedAt, &ev.Author)
	ev.EventType, ev.CreatedAt = memory.EventType(typ), ev.CreatedAt.UTC()
	return ev, err
}

// ChangeColumns are the columns of change_log ScanChange reads.
const ChangeColumns = `id, memory_id, namespace, at, action, source, fields, reason, related_id, author`

// ScanChange reads a change log entry from a row of ChangeColumns.
func ScanChange(row Row) (memory.Change, error) {
	var c memory.Change
	var action string
	var fields []byte
	if err := row.Scan(&c.ID, &c.MemoryID, &c.Namespace, &c.At, &action, &c.Source, &fields, &c.Reason, &c.RelatedID, &c.Author); err != nil {
		return c, fmt.Errorf("read change log: %w", err)
	}
	c.Action, c.At = memory.ChangeAction(action), c.At.UTC()
	if err := json.Unmarshal(fields, &c.Fields); err != nil {
		return c, fmt.Errorf("change %d: fields: %w", c.ID, err)
	}
	return c, nil
}

// TrashColumns are the columns of trash ScanTrashItem reads.
const TrashColumns = `memory_id, deleted_at, record, archived`

// ScanTrashItem reads a trash item from a row of TrashColumns.
func ScanTrashItem(row Row) (memory.TrashItem, error) {
	var id string
	var body []byte
	var it memory.TrashItem
	if err := row.Scan(&id, &it.DeletedAt, &body, &it.Archived); err != nil {
		return it, err
	}
	it.DeletedAt = it.DeletedAt.UTC()
	if err := json.Unmarshal(body, &it.TrashRecord); err != nil {
		return it, fmt.Errorf("trash record of memory %s: %w", id, err)
	}
	return it, nil
}

// QueryAll reads every row a query finds on q with read, which scans one.
func QueryAll[T any](ctx context.Context, q SQL, read func(Row) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return ReadAll(rows, func() (T, error) { return read(rows) })
}
