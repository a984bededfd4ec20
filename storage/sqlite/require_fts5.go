//go:build !sqlite_fts5

package sqlite

// Recall's keyword search needs SQLite's FTS5, which mattn/go-sqlite3 compiles
// in only with the sqlite_fts5 build tag. Without it every search would fail at
// run time with "no such module: fts5"; this line makes the build fail instead,
// and the compiler's message quotes the string.
var _ int = "build with -tags sqlite_fts5: Recall needs SQLite FTS5"
