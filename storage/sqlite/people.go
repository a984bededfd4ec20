package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/recall-mcp/recall/team"
)

// The people of a team and their tokens (team.Directory): storage's
// statements in this engine's transactions.

// AddPerson records a person with their first token. A name already taken is
// an error wrapping memory.ErrInvalid.
func (s *DB) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx *sql.Tx) error { return statements(tx).AddPerson(ctx, name, tok) })
}

// ReplaceToken gives a person a new token; their old ones stop working in
// the same transaction.
func (s *DB) ReplaceToken(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx *sql.Tx) error { return statements(tx).ReplaceToken(ctx, name, tok) })
}

// RemovePerson removes a person and, by the foreign key, their tokens. Their
// memories stay (in their user: namespace, seen by the administrator).
func (s *DB) RemovePerson(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error { return statements(tx).RemovePerson(ctx, name) })
}

// PersonByToken names the person whose token (or viewer cookie, with
// cookie set) hashes to hash, or returns team.ErrUnknownToken. It records
// when the person was last seen, at most once a minute and best effort: a
// busy database never holds up a request for it.
func (s *DB) PersonByToken(ctx context.Context, hash string, cookie bool) (string, error) {
	return s.Read.PersonByToken(ctx, hash, cookie, func(name string, now time.Time) {
		_ = s.writeBestEffort(ctx, func(tx *sql.Tx) error { return statements(tx).NoteSeen(ctx, name, now) })
	})
}
