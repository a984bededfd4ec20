package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"strconv"
	"strings"

	numbered "github.com/recall-mcp/recall/internal/migrations"
	"github.com/recall-mcp/recall/keywords"
	"github.com/recall-mcp/recall/storage"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// schema is the embedded migrations (see internal/migrations for the
// files' names and checks).
var schema = numbered.Dir{FS: migrationFiles, Path: "migrations"}

// SchemaVersion is the schema version this build brings databases to.
func SchemaVersion() int { return schema.Version() }

// upToDate reports whether the database is Recall's at this build's schema
// version, in one query: what nearly every open finds, and what a hook, a
// fresh process per event, paid three queries to learn (migratePython's
// check, then migrate's).
func (s *DB) upToDate(ctx context.Context) bool {
	v, err := getMeta(ctx, s.db, metaSchemaVersion)
	return err == nil && v == strconv.Itoa(SchemaVersion())
}

// migrate applies the missing migrations in one IMMEDIATE transaction, so that
// processes opening a new database at once apply them exactly once. A database
// already up to date is only read: a hook or CLI call must not queue behind
// another process's write just to learn that nothing needs doing.
func (s *DB) migrate(ctx context.Context) error {
	ms, err := schema.Load()
	if err != nil {
		return err
	}
	current, err := schemaVersion(ctx, s.db)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > len(ms) {
		return newerSchemaError(current, len(ms))
	}
	if current == len(ms) {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		current, err := schemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		if current > len(ms) {
			return newerSchemaError(current, len(ms))
		}
		return applyMigrations(ctx, tx, current)
	})
}

// applyMigrations brings a database at schema version current up to date
// inside tx.
func applyMigrations(ctx context.Context, tx *sql.Tx, current int) error {
	ms, err := schema.Load()
	if err != nil {
		return err
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if after := afterMigration[migrationTopic(m.Name)]; after != nil {
			if err := after(ctx, tx); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
		}
		if err := setMeta(ctx, tx, metaSchemaVersion, strconv.Itoa(m.Version)); err != nil {
			return err
		}
	}
	return nil
}

func newerSchemaError(current, supported int) error {
	return fmt.Errorf("database schema version %d is newer than this recall supports (%d): upgrade recall", current, supported)
}

// afterMigration is the work done in Go right after a migration's SQL, keyed
// by the migration's name without its number, so that renumbering a migration
// (when another lands first) needs no change here.
var afterMigration = map[string]func(context.Context, *sql.Tx) error{
	// Vectors stored before vector_signs existed need their signs computed.
	"vector_signs.sql": backfillSigns,
	// Memories stored before search_words existed need theirs.
	"stemmed_keywords.sql": backfillSearchWords,
	// Vector tables made with sqlite-vec's default chunks get smaller ones.
	"vector_chunks.sql": rechunkVectors,
	// And again with chunks of 8.
	"vector_chunks_of_8.sql": rechunkVectors,
	// Edits kept in metadata.edits move to the change log.
	"change_log.sql": moveEditsToLog,
	// Journal entries written before the journal's search_words need theirs.
	"journal_keywords.sql": backfillJournalWords,
	// Who made each change.
	"people.sql": addAuthorColumns("memories", "change_log", "validation_events", "edges"),
	// Whose sessions the journal and file activity record.
	"journal_author.sql": func(ctx context.Context, tx *sql.Tx) error {
		if err := addAuthorColumns("journal", "file_activity")(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS journal_author ON journal (author, namespace, kind, created_at);
			CREATE INDEX IF NOT EXISTS file_activity_author ON file_activity (author, created_at)`)
		return err
	},
	// Vectors stored before vector_codes existed need their codes.
	"vector_codes.sql": backfillCodes,
	// A journal entry's own message in its transcript.
	"journal_anchor.sql": addJournalAnchor,
	// The door each memory came in through.
	"memory_source.sql": addMemorySource,
}

// addMemorySource gives memories their source column, unless they have it;
// the memories already there keep it empty: not recorded.
func addMemorySource(ctx context.Context, tx *sql.Tx) error {
	if cols, err := columnsOf(ctx, tx, "memories"); err != nil || cols["source"] {
		return err
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE memories ADD COLUMN source TEXT NOT NULL DEFAULT ''`); err != nil {
		return fmt.Errorf("add the memories' source: %w", err)
	}
	return nil
}

// addJournalAnchor gives the journal its anchor columns, unless it has them;
// the entries already there get the offset -1: captured before entries kept
// their message, they are placed by their turn.
func addJournalAnchor(ctx context.Context, tx *sql.Tx) error {
	if cols, err := columnsOf(ctx, tx, "journal"); err != nil || cols["anchor_id"] {
		return err
	}
	for _, stmt := range []string{
		`ALTER TABLE journal ADD COLUMN anchor_id TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE journal ADD COLUMN transcript_offset INTEGER NOT NULL DEFAULT 0`,
		`UPDATE journal SET transcript_offset = -1`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("add the journal's anchor: %w", err)
		}
	}
	return nil
}

// addAuthorColumns gives tables an author column, unless they have one
// (SQLite has no ADD COLUMN IF NOT EXISTS).
func addAuthorColumns(tables ...string) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		return addAuthorColumnsTo(ctx, tx, tables)
	}
}

func addAuthorColumnsTo(ctx context.Context, tx *sql.Tx, tables []string) error {
	for _, table := range tables {
		cols, err := columnsOf(ctx, tx, table)
		if err != nil {
			return err
		}
		if cols["author"] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+table+` ADD COLUMN author TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("add author to %s: %w", table, err)
		}
	}
	return nil
}

// migrationTopic is a migration's file name without its number: "0003_x.sql"
// gives "x.sql".
func migrationTopic(name string) string {
	_, topic, _ := strings.Cut(name, "_")
	return topic
}

// versionOf is the schema version of the migration named topic (without its
// number), or 0.
func versionOf(topic string) int {
	ms, err := schema.Load()
	if err != nil {
		return 0
	}
	for _, m := range ms {
		if migrationTopic(m.Name) == topic {
			return m.Version
		}
	}
	return 0
}

// backfillSearchWords fills search_words for the memories stored before it
// existed.
func backfillSearchWords(ctx context.Context, tx *sql.Tx) error {
	return backfillWords(ctx, tx, "memories", "seq", "content", func(t []string) string { return keywords.SearchWords(t[0]) })
}

// backfillJournalWords fills search_words for the journal entries written
// before it existed.
func backfillJournalWords(ctx context.Context, tx *sql.Tx) error {
	return backfillWords(ctx, tx, "journal", "id", "title, body", func(t []string) string { return entrySearchWords(t[0], t[1]) })
}

// backfillWords fills the search_words of table's rows (by their integer
// key) from the text columns cols, wordsOf making them, a batch of rows at a
// time; the update trigger re-indexes each one changed.
func backfillWords(ctx context.Context, tx *sql.Tx, table, key, cols string, wordsOf func(texts []string) string) error {
	const batch = 1000
	n := len(strings.Split(cols, ","))
	for after := int64(0); ; {
		rows, err := tx.QueryContext(ctx, `SELECT `+key+`, `+cols+` FROM `+table+` WHERE `+key+` > ? ORDER BY `+key+` LIMIT ?`, after, batch)
		if err != nil {
			return err
		}
		words := map[int64]string{}
		read := 0
		for rows.Next() {
			texts := make([]string, n)
			dest := []any{&after}
			for i := range texts {
				dest = append(dest, &texts[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return err
			}
			read++
			if w := wordsOf(texts); w != "" {
				words[after] = w
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for k, w := range words {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET search_words = ? WHERE `+key+` = ?`, w, k); err != nil {
				return err
			}
		}
		if read < batch {
			return nil
		}
	}
}

// Keys of the meta table.
const (
	metaSchemaVersion = "schema_version"
	metaEmbedModel    = storage.MetaEmbedModel
	metaEmbedDim      = storage.MetaEmbedDim
)

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// schemaVersion reads the recorded version; a database without a meta table is
// version 0.
func schemaVersion(ctx context.Context, q querier) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'`).Scan(&n)
	if err != nil || n == 0 {
		return 0, err
	}
	v, err := getMeta(ctx, q, metaSchemaVersion)
	if err != nil || v == "" {
		return 0, err
	}
	return strconv.Atoi(v)
}

func getMeta(ctx context.Context, q querier, key string) (string, error) {
	return statements(q).Meta(ctx, key)
}

func setMeta(ctx context.Context, q querier, key, value string) error {
	return statements(q).SetMeta(ctx, key, value)
}
