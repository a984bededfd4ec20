package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/team"
)

// The people of a team and their tokens (team.Directory): storage's
// statements in this engine's transactions.

// AddPerson adds a person with their first token's hashes.
func (s *DB) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx pgx.Tx) error { return statements(tx).AddPerson(ctx, name, tok) })
}

// ReplaceToken replaces every token of a person with a new one.
func (s *DB) ReplaceToken(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx pgx.Tx) error { return statements(tx).ReplaceToken(ctx, name, tok) })
}

// RemovePerson removes a person and their tokens.
func (s *DB) RemovePerson(ctx context.Context, name string) error {
	return s.write(ctx, func(tx pgx.Tx) error { return statements(tx).RemovePerson(ctx, name) })
}

// PersonByToken names the person whose token hash (or cookie hash) is hash,
// or returns team.ErrUnknownToken. It notes when the person was last seen,
// at most once a minute.
func (s *DB) PersonByToken(ctx context.Context, hash string, cookie bool) (string, error) {
	return s.Read.PersonByToken(ctx, hash, cookie, func(name string, now time.Time) {
		_ = s.Read.NoteSeen(ctx, name, now)
	})
}
