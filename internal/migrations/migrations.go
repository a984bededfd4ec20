// Package migrations reads a store's numbered, embedded SQL migrations. Both
// stores (SQLite in storage, PostgreSQL in storage/postgres) keep their own
// files and apply them their own way; reading and checking the files is the
// same for both, so it lives here.
package migrations

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one file: Version is the schema version it brings the
// database to, Name the file's name (NNNN_what.sql), SQL its text.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load lists the .sql files of dir in fsys in version order. A file is named
// NNNN_what.sql; the numbers must run from 1 without a gap, so that a
// missing or doubled file fails the build's tests instead of a user's start.
func Load(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a version number", e.Name())
		}
		body, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.Name, i+1)
		}
	}
	return out, nil
}

// Dir is a store's migrations: the files of one folder of an (embedded)
// file system.
type Dir struct {
	FS   fs.FS
	Path string
}

// Load lists the folder's migrations in version order (see Load).
func (d Dir) Load() ([]Migration, error) { return Load(d.FS, d.Path) }

// Version is the schema version the migrations bring a database to: the
// number of files, read from the folder's listing alone (every process that
// opens a database asks, a hook included; Load checks the files, and the
// tests load them). It panics when the folder cannot be listed: embedded,
// it is part of the build.
func (d Dir) Version() int {
	entries, err := fs.ReadDir(d.FS, d.Path)
	if err != nil {
		panic(err)
	}
	return len(entries)
}
