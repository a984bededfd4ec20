package sqlite

import (
	"context"
	"strconv"
	"strings"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// whereFilter is storage.WhereFilter with SQLite's positional parameters:
// the conditions and their arguments, for queries that add positional
// parameters of their own around them.
func whereFilter(ctx context.Context, f memory.Filter) (string, []any) {
	var p storage.Params
	return positional(storage.WhereFilter(ctx, f, &p, dialect{}), p)
}

// notSupersededFor is storage.NotSupersededFor with SQLite's positional
// parameters.
func notSupersededFor(ctx context.Context) (string, []any) {
	var p storage.Params
	return positional(storage.NotSupersededFor(ctx, &p), p)
}

// positional is query with each numbered parameter ($n, its value p[n-1])
// as a positional one (?), and the arguments in the order they stand, times
// as text.
func positional(query string, p storage.Params) (string, []any) {
	if len(p) == 0 {
		return query, nil
	}
	var b strings.Builder
	args := make([]any, 0, len(p))
	for i := 0; i < len(query); i++ {
		end := i + 1
		for query[i] == '$' && end < len(query) && '0' <= query[end] && query[end] <= '9' {
			end++
		}
		if end == i+1 {
			b.WriteByte(query[i])
			continue
		}
		n, _ := strconv.Atoi(query[i+1 : end])
		b.WriteByte('?')
		args = append(args, p[n-1])
		i = end - 1
	}
	return b.String(), timesAsText(args)
}
