package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/storage"
)

// dialect runs the statements both engines share (storage.SQL) on a pool,
// a connection or a transaction: their $n parameters become SQLite's ?n, and
// times are kept as text (formatTime) both ways.
type dialect struct{ q querier }

func (d dialect) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := d.q.ExecContext(ctx, questionNumbered(query), timesAsText(args)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (d dialect) Query(ctx context.Context, query string, args ...any) (storage.Cursor, error) {
	rows, err := d.q.QueryContext(ctx, questionNumbered(query), timesAsText(args)...)
	if err != nil {
		return nil, err
	}
	return cursor{rows}, nil
}

func (d dialect) QueryRow(ctx context.Context, query string, args ...any) storage.Row {
	return row{d.q.QueryRowContext(ctx, questionNumbered(query), timesAsText(args)...)}
}

// KeepID: a NULL id is the table's next one.
func (dialect) KeepID(table string) string {
	return `CASE WHEN $1 > 0 AND NOT EXISTS (SELECT 1 FROM ` + table + ` WHERE id = $1) THEN $1 END`
}

// AnyOf: SQLite has no arrays; the values are a list of parameters.
func (dialect) AnyOf(column string, values []string, p *storage.Params) string {
	list := make([]string, len(values))
	for i, v := range values {
		list[i] = p.Add(v)
	}
	return column + " IN (" + strings.Join(list, ", ") + ")"
}

// SearchWords: the other spellings of the text's code words; FTS5 reads
// them beside the text.
func (dialect) SearchWords(text string, p *storage.Params) string {
	return p.Add(keywords.SearchWords(text))
}

func (dialect) Taken(err error) bool { return isUniqueViolation(err) }

// Vector: little-endian float32s, as sqlite-vec reads them.
func (dialect) Vector(v []float32) any { return encodeVector(v) }

type cursor struct{ rows *sql.Rows }

func (c cursor) Next() bool             { return c.rows.Next() }
func (c cursor) Err() error             { return c.rows.Err() }
func (c cursor) Close()                 { c.rows.Close() }
func (c cursor) Scan(dest ...any) error { return c.rows.Scan(textTimes(dest)...) }

type row struct{ row scanner }

func (r row) Scan(dest ...any) error { return r.row.Scan(textTimes(dest)...) }

// questionNumbered turns PostgreSQL's parameters ($1) into SQLite's numbered ones
// (?1), which bind the same argument wherever the number stands.
func questionNumbered(query string) string {
	if !strings.Contains(query, "$") {
		return query
	}
	b := []byte(query)
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '$' && b[i+1] >= '0' && b[i+1] <= '9' {
			b[i] = '?'
		}
	}
	return string(b)
}

// timesAsText stores times as the text every SQLite column of times holds.
func timesAsText(args []any) []any {
	copied := false
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			if !copied { // leave the caller's slice alone
				args, copied = append([]any(nil), args...), true
			}
			args[i] = formatTime(t)
		}
	}
	return args
}

// textTimes reads times from their text: a *time.Time destination scans
// through a timeText.
func textTimes(dest []any) []any {
	for i, d := range dest {
		if t, ok := d.(*time.Time); ok {
			dest[i] = timeText{t}
		}
	}
	return dest
}

// timeText scans a stored time's text ("" or NULL: the zero time).
type timeText struct{ t *time.Time }

func (tt timeText) Scan(v any) error {
	var s string
	switch v := v.(type) {
	case nil:
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("stored time %v: want text", v)
	}
	t, err := parseTime(s)
	*tt.t = t
	return err
}
