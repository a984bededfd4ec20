package storage

import (
	"context"
	"strconv"
)

// SQL runs the statements both engines share on a connection or a
// transaction of either. A statement is written once, as PostgreSQL reads
// it: numbered parameters ($1, $2; a number may stand more than once) and
// SQL that both engines speak. The SQLite engine binds the numbers as its
// own numbered parameters (?1, ?2). Times go in and come out as time.Time
// whatever the column keeps (SQLite: text), read back in UTC; a NULL or
// empty time reads as the zero time. A query that finds no row answers
// database/sql's sql.ErrNoRows (errors.Is) on either engine.
type SQL interface {
	Exec(ctx context.Context, query string, args ...any) (rowsAffected int64, err error)
	Query(ctx context.Context, query string, args ...any) (Cursor, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	// KeepID is the SQL of the id column of a row written into table that
	// keeps the id given as $1 when it is positive and free (an export read
	// back into an empty database is the same database), else takes the
	// table's next id.
	KeepID(table string) string
	// Vector is the value a column of vectors takes for v.
	Vector(v []float32) any
	// SearchWords is the value of a row's search_words column (the keyword
	// index's words) for its text, bound in p.
	SearchWords(text string, p *Params) string
	// Taken tells an error of a unique index refusing a row.
	Taken(err error) bool
	// AnyOf is the condition that column holds one of values, bound in p.
	// It writes SQL only: it may be called on the engine's zero dialect.
	AnyOf(column string, values []string, p *Params) string
}

// Row is the one row a query reads.
type Row interface {
	Scan(dest ...any) error
}

// Cursor is the rows a query reads; the caller closes it.
type Cursor interface {
	Rows
	Close()
}

// Params collects a statement's parameters as its text is put together.
type Params []any

// Add appends v and returns its placeholder.
func (p *Params) Add(v any) string {
	*p = append(*p, v)
	return "$" + strconv.Itoa(len(*p))
}
