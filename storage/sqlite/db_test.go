package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestNewerSchemaIsRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	want := "database schema version 99 is newer than this recall supports"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "upgrade recall") {
		t.Errorf("Open on a newer schema = %v, want %q", err, want)
	}
}

func TestReopenKeepsDataAndVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "recall.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	m := mustInsert(t, db, newMemory("survives a restart", "global", "session"), nil)
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.GetMemory(ctx, m.ID); err != nil {
		t.Error(err)
	}
	var v string
	db.SQL().QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
	if v != strconv.Itoa(SchemaVersion()) || SchemaVersion() < 1 {
		t.Errorf("schema_version = %q, SchemaVersion() = %d", v, SchemaVersion())
	}
}

// Every pooled connection must carry the DSN's settings, not just the first.
func TestPragmasOnEveryConnection(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	const n = 4
	var conns []*sql.Conn
	for range n {
		c, err := db.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c) // held open, so each is a distinct connection
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i, c := range conns {
		var mode string
		var timeout, fk, sync, mmap int
		if err := c.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		c.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&timeout)
		c.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk)
		c.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync)
		c.QueryRowContext(ctx, `PRAGMA mmap_size`).Scan(&mmap)
		if mode != "wal" || timeout < 5000 || fk != 1 || sync != 2 || mmap != MmapSize {
			t.Errorf("connection %d: journal_mode=%s busy_timeout=%d foreign_keys=%d synchronous=%d mmap_size=%d",
				i, mode, timeout, fk, sync, mmap)
		}
		var vecVersion string
		if err := c.QueryRowContext(ctx, `SELECT vec_version()`).Scan(&vecVersion); err != nil || vecVersion == "" {
			t.Errorf("connection %d: sqlite-vec not loaded: %v", i, err)
		}
	}
}

// Write transactions start IMMEDIATE: a second writer waits on BEGIN instead of
// failing later with SQLITE_BUSY on its first write.
func TestWriteTransactionsAreImmediate(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	tx, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// Only an IMMEDIATE transaction holds the write lock before writing, so another
	// connection's BEGIN IMMEDIATE must be refused right away.
	other, err := sql.Open("sqlite3", "file:"+db.Path()+"?_busy_timeout=0&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.BeginTx(ctx, nil); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("a second writer began while the first held its transaction: %v", err)
	}
}

// A long-lived process keeps the connections a prompt hook's answer reads on
// at once (the memories, the journal) open for the next one: a connection
// opened anew reads the whole schema again.
func TestLongLivedProcessKeepsItsConnections(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	var conns []*sql.Conn
	for range 3 {
		c, err := db.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	if st := db.SQL().Stats(); st.MaxIdleClosed != 0 || st.Idle != 3 {
		t.Errorf("after three connections at once: %d idle, %d closed for the idle limit; want 3 kept", st.Idle, st.MaxIdleClosed)
	}
}
