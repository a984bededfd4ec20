package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/recall-mcp/recall/storage"
	"github.com/recall-mcp/recall/team"
)

// The people of a team and their tokens (team.Directory): storage's
// statements in this engine's transactions.

// AddPerson records a person with their first token. A name already taken is
// an error wrapping memory.ErrInvalid.
func (s *DB) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx *sql.Tx) error { return statements(tx).AddPerson(ctx, name, tok, isUniqueViolation) })
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

// People lists the people by name.
func (s *DB) People(ctx context.Context) ([]team.Person, error) { return s.Read.People(ctx) }

// HasPeople reports whether the team has anyone.
func (s *DB) HasPeople(ctx context.Context) (bool, error) { return s.Read.HasPeople(ctx) }

// PersonByToken names the person whose token (or viewer cookie, with
// cookie set) hashes to hash, or returns team.ErrUnknownToken. It records
// when the person was last seen, at most once a minute and best effort: a
// busy database never holds up a request for it.
func (s *DB) PersonByToken(ctx context.Context, hash string, cookie bool) (string, error) {
	name, seen, err := s.Read.TokenHolder(ctx, hash, cookie)
	if err != nil {
		return "", err
	}
	if now := time.Now(); storage.SeenDue(seen, now) {
		_ = s.writeBestEffort(ctx, func(tx *sql.Tx) error { return statements(tx).NoteSeen(ctx, name, now) })
	}
	return name, nil
}
