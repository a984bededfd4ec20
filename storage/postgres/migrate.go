package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

	numbered "github.com/recall-mcp/recall/internal/migrations"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// schema is the embedded migrations (see internal/migrations for the
// files' names and checks).
var schema = numbered.Dir{FS: migrationFiles, Path: "migrations"}

// SchemaVersion is the schema version this binary writes.
func SchemaVersion() int { return schema.Version() }

// migrationLock is the advisory lock key the migrations run under ("recall"
// in ASCII): of several servers starting at once, one migrates and the others
// wait, then find the schema current.
const migrationLock = 0x726563616c6c

// MinVectorVersion is the oldest pgvector Recall runs on (HNSW with the
// operators it uses); from 0.8 filtered searches use its iterative scan.
const MinVectorVersion = "0.7.0"

// migrateAt brings the schema of the database cc names up to date on a
// connection of its own.
func migrateAt(ctx context.Context, cc *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return connectError(cc, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	ms, err := schema.Load()
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return connectError(cc, err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	current, err := schemaVersion(ctx, conn)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this recall supports (%d): upgrade recall", current, len(ms))
	}
	if err := ensureVector(ctx, conn, cc); err != nil {
		return err
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('schema_version', $1)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.Itoa(m.Version))
			return err
		})
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42501" {
				return connectError(cc, err)
			}
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// schemaCurrent tells whether the database's schema is this binary's (every
// start but the first after an upgrade): then no migration lock is taken. A
// connection that fails (no server, no vector extension yet) is not current:
// migrating says why.
//
// It also returns the vector extension's installed version, read in the
// same statement as the schema's presence: a fresh process (a hook, a CLI
// call) opens with two statements, one round trip each.
func schemaCurrent(ctx context.Context, pool *pgxpool.Pool) (bool, string) {
	var exists bool
	var installed string
	if err := pool.QueryRow(ctx, `SELECT to_regclass(quote_ident(current_schema()) || '.meta') IS NOT NULL,
		coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), '')`, firstUse).Scan(&exists, &installed); err != nil || !exists {
		return false, ""
	}
	v, err := readSchemaVersion(ctx, pool)
	return err == nil && v == SchemaVersion(), installed
}

// schemaVersion reads the recorded version; 0 for a database Recall never
// used.
func schemaVersion(ctx context.Context, q querier) (int, error) {
	var exists bool
	// Only the current schema (the first of search_path, where the
	// migrations create everything) counts: a Recall database in another
	// schema on the path is not this one.
	if err := q.QueryRow(ctx, `SELECT to_regclass(quote_ident(current_schema()) || '.meta') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	return readSchemaVersion(ctx, q)
}

// readSchemaVersion reads the version recorded in meta (which exists).
func readSchemaVersion(ctx context.Context, q querier) (int, error) {
	var v string
	err := q.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`, firstUse).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// ensureVector makes sure the vector extension is there and new enough,
// creating it when the user may; otherwise it says what to run.
func ensureVector(ctx context.Context, conn *pgx.Conn, cc *pgx.ConnConfig) error {
	installed, available, err := VectorVersions(ctx, conn)
	if err != nil {
		return err
	}
	if installed == "" {
		if available == "" {
			return fmt.Errorf("PostgreSQL at %s:%d has no pgvector extension: install it on the server (Debian: apt install postgresql-%s-pgvector; managed services: enable the \"vector\" extension), then start Recall again",
				cc.Host, cc.Port, serverMajor(conn))
		}
		if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector`); err != nil {
			return fmt.Errorf("the vector extension is not created in database %q and user %s may not create it (%v): run once as a superuser: psql -d %s -c 'CREATE EXTENSION vector'",
				cc.Database, cc.User, err, cc.Database)
		}
		installed, _, err = VectorVersions(ctx, conn)
		if err != nil {
			return err
		}
	}
	if VersionLess(installed, MinVectorVersion) {
		return fmt.Errorf("pgvector %s is too old: Recall needs %s or newer: run ALTER EXTENSION vector UPDATE (after installing a newer pgvector on the server)", installed, MinVectorVersion)
	}
	return nil
}

// VectorVersions reports the vector extension's version in the database (""
// when not created) and the newest the server offers ("" when none).
func VectorVersions(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (installed, available string, err error) {
	err = q.QueryRow(ctx, `SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
		coalesce((SELECT default_version FROM pg_available_extensions WHERE name = 'vector'), '')`).Scan(&installed, &available)
	if err != nil {
		return "", "", fmt.Errorf("read the vector extension's version: %w", err)
	}
	return installed, available, nil
}

func serverMajor(conn *pgx.Conn) string {
	v := conn.PgConn().ParameterStatus("server_version")
	major, _, _ := strings.Cut(v, ".")
	if major == "" {
		return "<major>"
	}
	return major
}

// VersionLess compares dotted version numbers ("0.7.4" < "0.8.0").
func VersionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
