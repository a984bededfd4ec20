// Package pgtest gives each test a PostgreSQL schema of its own on the
// server named by RECALL_TEST_DATABASE_URL (else RECALL_DATABASE_URL), or
// skips the test with what to set.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL is the server the tests use: RECALL_TEST_DATABASE_URL, else
// RECALL_DATABASE_URL. Each test gets a schema of its own in it, dropped
// when the test ends, so runs never see one another's rows.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("RECALL_TEST_DATABASE_URL")
	if u == "" {
		u = os.Getenv("RECALL_DATABASE_URL")
	}
	if u == "" {
		t.Skip("no PostgreSQL to test on: set RECALL_TEST_DATABASE_URL or RECALL_DATABASE_URL (../shared/postgres-lab/setup.sh starts one)")
	}
	return u
}

var schemaSeq atomic.Int64

// Schema creates an empty schema and returns a URL whose connections
// use it (pgvector's types stay reachable through public).
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS vector SCHEMA public`); err != nil {
		t.Fatalf("create extension vector: %v", err)
	}
	name := fmt.Sprintf("recall_test_%d_%d", os.Getpid(), schemaSeq.Add(1))
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE; CREATE SCHEMA `+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, base); err == nil {
			c.Exec(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE`)
			c.Close(ctx)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name+",public")
	u.RawQuery = q.Encode()
	return u.String()
}
