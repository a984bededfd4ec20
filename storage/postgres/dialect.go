package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/storage"
)

// dialect runs the statements both engines share (storage.SQL) on the pool
// or a transaction; times read back in UTC, a NULL one as the zero time.
type dialect struct{ q querier }

func (d dialect) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := d.q.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (d dialect) Query(ctx context.Context, query string, args ...any) (storage.Cursor, error) {
	rows, err := d.q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return cursor{rows}, nil
}

func (d dialect) QueryRow(ctx context.Context, query string, args ...any) storage.Row {
	return row{d.q.QueryRow(ctx, query, args...)}
}

func (dialect) KeepID(table string) string { return keepID(table) }

func (dialect) Vector(v []float32) any { return vector(v) }

func (dialect) AnyOf(column string, values []string, p *storage.Params) string {
	return column + " = ANY(" + p.Add(values) + ")"
}

type cursor struct{ pgx.Rows }

func (c cursor) Scan(dest ...any) error { return scanTimes(c.Rows.Scan, dest) }

type row struct{ pgx.Row }

func (r row) Scan(dest ...any) error { return scanTimes(r.Row.Scan, dest) }

// scanTimes scans with scan, each *time.Time destination through a
// pointer (NULL: the zero time) and then in UTC.
func scanTimes(scan func(...any) error, dest []any) error {
	via := make([]*time.Time, len(dest)) // via[i] reads dest[i] when it is a time
	var times []int
	for i, d := range dest {
		if _, ok := d.(*time.Time); ok {
			times = append(times, i)
		}
	}
	if len(times) == 0 {
		return scan(dest...)
	}
	dest = append([]any(nil), dest...)
	out := make([]*time.Time, len(dest))
	for _, i := range times {
		out[i] = dest[i].(*time.Time)
		dest[i] = &via[i]
	}
	if err := scan(dest...); err != nil {
		return err
	}
	for _, i := range times {
		*out[i] = time.Time{}
		if via[i] != nil {
			*out[i] = via[i].UTC()
		}
	}
	return nil
}

// SearchWords: the stemmed tsvector of the words both stores index.
func (dialect) SearchWords(text string, p *storage.Params) string {
	return "to_tsvector('" + stemmed + "', " + p.Add(memoryWords(text)) + ")"
}

func (dialect) Taken(err error) bool { return isUniqueViolation(err, "") }
