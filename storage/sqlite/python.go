package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// The Python Recall keeps its memories in a SQLite file at the same default
// path (~/.recall/recall.db) with its own schema: a memories table with a
// `type` column and REAL epoch times, edges with `edge_type`, an FTS5 table
// over memories, an outbox for its vector store (ChromaDB, outside SQLite),
// and, in later versions, a confidence column, validation_events and
// file_activity. Opening such a file copies it to a backup beside it, then
// converts it in place in one transaction: a process killed halfway leaves
// the Python database as it was, and the next open starts again.

// metaPythonImport records, as JSON, that a Python Recall database was
// migrated: when, from which backup, and what was kept.
const metaPythonImport = "python_import"

// pythonMigrationPause, when set (by a test), runs halfway through the
// migration: after the Python tables are dropped, before the commit.
var pythonMigrationPause func()

// PythonImport is what the migration of a Python Recall database did.
type PythonImport struct {
	At     time.Time           `json:"at"`
	Backup string              `json:"backup"`
	Result memory.ImportResult `json:"result"`
}

// pythonTables are the Python Recall's tables, dropped once their rows are
// converted; children before parents, for the foreign keys.
var pythonTables = []string{"outbox", "validation_events", "file_activity", "edges", "memories"}

// isPythonRecall reports whether the database holds the Python Recall's
// schema: a memories table with a `type` column and no meta table.
func isPythonRecall(ctx context.Context, q querier) (bool, error) {
	var meta int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'`).Scan(&meta); err != nil {
		return false, err
	}
	if meta > 0 {
		return false, nil
	}
	cols, err := columnsOf(ctx, q, "memories")
	if err != nil {
		return false, err
	}
	return cols["type"] && cols["content"] && !cols["memory_type"], nil
}

// columnsOf lists the columns of a table (none when it does not exist).
func columnsOf(ctx context.Context, q querier, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		cols[name] = true
	}
	return cols, rows.Err()
}

// migratePython converts a Python Recall database in place, after backing it
// up. It does nothing to any other database.
func (s *DB) migratePython(ctx context.Context) error {
	found, err := isPythonRecall(ctx, s.db)
	if err != nil || !found {
		return err
	}
	backup, err := s.backupPython(ctx)
	if err != nil {
		return fmt.Errorf("back up the Python Recall database before migrating it: %w", err)
	}
	return s.withoutForeignKeys(ctx, func(tx *sql.Tx) error {
		// Another process may have migrated it while this one made its backup.
		if found, err := isPythonRecall(ctx, tx); err != nil || !found {
			return err
		}
		recs, err := readPython(ctx, tx)
		if err != nil {
			return fmt.Errorf("read the Python Recall database: %w", err)
		}
		if err := dropPython(ctx, tx); err != nil {
			return err
		}
		if pythonMigrationPause != nil {
			pythonMigrationPause()
		}
		if err := applyMigrations(ctx, tx, 0); err != nil {
			return err
		}
		res, _, err := writeRecords(ctx, tx, recs)
		if err != nil {
			return fmt.Errorf("convert the Python Recall database: %w", err)
		}
		rec, err := json.Marshal(PythonImport{At: time.Now().UTC(), Backup: backup, Result: *res})
		if err != nil {
			return err
		}
		return setMeta(ctx, tx, metaPythonImport, string(rec))
	})
}

// withoutForeignKeys runs fn in one write transaction on a connection with
// foreign keys off (they cannot be switched inside a transaction). Dropping
// the Python memories table with them on would empty, by cascade, any table
// of a later Python Recall that Recall does not know and that points at
// memories; off, such a table keeps its rows, pointing at the same ids in
// Recall's memories table. Recall's own rows are checked as they are written.
func (s *DB) withoutForeignKeys(ctx context.Context, fn func(tx *sql.Tx) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", err)
	}
	return commit(tx, fn)
}

// backupPython copies the database to a new file beside it, consistently
// (VACUUM INTO reads one snapshot) and atomically (a temporary name, renamed
// when complete), and returns the backup's path.
func (s *DB) backupPython(ctx context.Context) (string, error) {
	stamp := time.Now().UTC().Format("20060102-150405")
	dest := fmt.Sprintf("%s.python-backup-%s", s.path, stamp)
	for i := 2; fileExists(dest); i++ {
		dest = fmt.Sprintf("%s.python-backup-%s-%d", s.path, stamp, i)
	}
	tmp := dest + ".partial"
	os.Remove(tmp)
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return "", err
	}
	return dest, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// dropPython removes the Python Recall's FTS5 table, its triggers and tables,
// so that Recall's schema can take their names.
func dropPython(ctx context.Context, tx *sql.Tx) error {
	stmts := []string{
		`DROP TRIGGER IF EXISTS memories_ai`, `DROP TRIGGER IF EXISTS memories_ad`, `DROP TRIGGER IF EXISTS memories_au`,
		`DROP TABLE IF EXISTS memories_fts`,
	}
	for _, t := range pythonTables {
		stmts = append(stmts, `DROP TABLE IF EXISTS `+t)
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st); err != nil {
			return fmt.Errorf("migrate the Python Recall database: %s: %w", st, err)
		}
	}
	return nil
}

// pyRow is one row of a Python table by column name. Values are what SQLite
// holds: int64, float64, string, []byte or nil.
type pyRow map[string]any

// readTable reads every row of a table, or none when the table is absent.
func readTable(ctx context.Context, q querier, table string) ([]pyRow, error) {
	cols, err := columnsOf(ctx, q, table)
	if err != nil || len(cols) == 0 {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []pyRow
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := pyRow{}
		for i, n := range names {
			r[strings.ToLower(n)] = vals[i]
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// text is the first of names that holds a value, as text.
func (r pyRow) text(names ...string) string {
	for _, n := range names {
		switch v := r[n].(type) {
		case string:
			return v
		case []byte:
			return string(v)
		case int64, float64:
			return fmt.Sprint(v)
		}
	}
	return ""
}

// number is the first of names that holds a number; ok false when none does.
func (r pyRow) number(names ...string) (float64, bool) {
	for _, n := range names {
		switch v := r[n].(type) {
		case float64:
			return v, true
		case int64:
			return float64(v), true
		}
	}
	return 0, false
}

// time reads a time the Python Recall wrote: REAL seconds since the epoch
// (time.time()), or ISO 8601 text in some versions. Zero when absent.
func (r pyRow) time(names ...string) time.Time {
	if secs, ok := r.number(names...); ok {
		return time.UnixMicro(int64(secs * 1e6)).UTC()
	}
	s := r.text(names...)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// metadata decodes a JSON object; anything else is kept under "python_metadata".
func (r pyRow) metadata(names ...string) map[string]any {
	raw := r.text(names...)
	if raw == "" || raw == "null" {
		return map[string]any{}
	}
	m := map[string]any{}
	if err := json.Unmarshal([]byte(raw), &m); err != nil || m == nil {
		return map[string]any{"python_metadata": raw}
	}
	return m
}

// PythonImport reports the migration of a Python Recall database, nil when
// this database did not start as one.
func (s *DB) PythonImport(ctx context.Context) (*PythonImport, error) {
	raw, err := getMeta(ctx, s.db, metaPythonImport)
	if err != nil || raw == "" {
		return nil, err
	}
	var imp PythonImport
	if err := json.Unmarshal([]byte(raw), &imp); err != nil {
		return nil, fmt.Errorf("recorded Python import: %w", err)
	}
	return &imp, nil
}
