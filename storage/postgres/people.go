package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/storage"
	"github.com/recall-mcp/recall/team"
)

// The people of a team and their tokens (team.Directory): storage's
// statements in this engine's transactions.

// AddPerson adds a person with their first token's hashes.
func (s *DB) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		return statements(tx).AddPerson(ctx, name, tok, func(err error) bool { return isUniqueViolation(err, "") })
	})
}

// ReplaceToken replaces every token of a person with a new one.
func (s *DB) ReplaceToken(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx pgx.Tx) error { return statements(tx).ReplaceToken(ctx, name, tok) })
}

// RemovePerson removes a person and their tokens.
func (s *DB) RemovePerson(ctx context.Context, name string) error {
	return s.write(ctx, func(tx pgx.Tx) error { return statements(tx).RemovePerson(ctx, name) })
}

// People lists the team by name.
func (s *DB) People(ctx context.Context) ([]team.Person, error) { return s.Read.People(ctx) }

// HasPeople reports whether the team has anyone.
func (s *DB) HasPeople(ctx context.Context) (bool, error) { return s.Read.HasPeople(ctx) }

// PersonByToken names the person whose token hash (or cookie hash) is hash,
// or returns team.ErrUnknownToken. It notes when the person was last seen,
// at most once a minute.
func (s *DB) PersonByToken(ctx context.Context, hash string, cookie bool) (string, error) {
	name, seen, err := s.Read.TokenHolder(ctx, hash, cookie)
	if err != nil {
		return "", err
	}
	if now := time.Now(); storage.SeenDue(seen, now) {
		_ = s.Read.NoteSeen(ctx, name, now)
	}
	return name, nil
}
