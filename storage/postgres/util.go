package postgres

import (
	"errors"
	"sort"

	"github.com/jackc/pgx/v5/pgconn"
)

// isForeignKeyViolation reports a row naming a parent that is not there.
func isForeignKeyViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23503"
}

func sortFunc[T any](xs []T, less func(a, b T) bool) {
	sort.SliceStable(xs, func(i, j int) bool { return less(xs[i], xs[j]) })
}
