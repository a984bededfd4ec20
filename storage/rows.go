package storage

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
