package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/team"
)

// The people of a team and their tokens (team.Directory). Tokens are kept as
// hashes only; the caller hashes them. An engine runs the changes in its
// write transactions.

// AddPerson records a person with their first token. A name already taken
// is an error wrapping memory.ErrInvalid.
func (s Statements) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	now := time.Now()
	_, err := s.SQL.Exec(ctx, `INSERT INTO people (name, created_at) VALUES ($1, $2)`, name, now)
	if s.SQL.Taken(err) {
		return fmt.Errorf("%q is already a person of this team: %w; use recall users token %s for a new token", name, memory.ErrInvalid, name)
	}
	if err != nil {
		return fmt.Errorf("add person %s: %w", name, err)
	}
	return s.insertToken(ctx, name, tok, now)
}

// ReplaceToken gives a person a new token; their old ones stop working in
// the same transaction.
func (s Statements) ReplaceToken(ctx context.Context, name string, tok team.TokenHashes) error {
	if err := s.personExists(ctx, name); err != nil {
		return err
	}
	if _, err := s.SQL.Exec(ctx, `DELETE FROM tokens WHERE person = $1`, name); err != nil {
		return fmt.Errorf("replace token of %s: %w", name, err)
	}
	return s.insertToken(ctx, name, tok, time.Now())
}

// RemovePerson removes a person and, by the foreign key, their tokens. Their
// memories stay (in their user: namespace, seen by the administrator).
func (s Statements) RemovePerson(ctx context.Context, name string) error {
	if err := s.personExists(ctx, name); err != nil {
		return err
	}
	_, err := s.SQL.Exec(ctx, `DELETE FROM people WHERE name = $1`, name)
	return err
}

// People lists the people by name.
func (s Shared) People(ctx context.Context) ([]team.Person, error) {
	out, err := QueryAll(ctx, s.Read.SQL, func(r Row) (team.Person, error) {
		var p team.Person
		err := r.Scan(&p.Name, &p.CreatedAt, &p.LastSeenAt)
		return p, err
	}, `SELECT name, created_at, last_seen_at FROM people ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list people: %w", err)
	}
	if out == nil {
		out = []team.Person{}
	}
	return out, nil
}

// HasPeople reports whether the team has anyone.
func (s Shared) HasPeople(ctx context.Context) (bool, error) {
	var has bool
	err := s.Read.SQL.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM people)`).Scan(&has)
	return has, err
}

// PersonByToken names the person whose token (or viewer cookie, with
// cookie set) hashes to hash, or returns team.ErrUnknownToken. At most once
// a minute it has note record that the person was seen now (the engine's
// write, which may give up).
func (s Statements) PersonByToken(ctx context.Context, hash string, cookie bool, note func(name string, now time.Time)) (string, error) {
	col := "token_hash"
	if cookie {
		col = "cookie_hash"
	}
	var name, stored string
	var seen time.Time
	err := s.SQL.QueryRow(ctx, `SELECT t.person, t.`+col+`, p.last_seen_at FROM tokens t
		JOIN people p ON p.name = t.person WHERE t.`+col+` = $1`, hash).Scan(&name, &stored, &seen)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !team.SameHash(stored, hash)) {
		return "", team.ErrUnknownToken
	}
	if err != nil {
		return "", fmt.Errorf("look up token: %w", err)
	}
	if now := time.Now(); now.Sub(seen) > time.Minute {
		note(name, now)
	}
	return name, nil
}

// NoteSeen records that a person was seen at now.
func (s Statements) NoteSeen(ctx context.Context, name string, now time.Time) error {
	_, err := s.SQL.Exec(ctx, `UPDATE people SET last_seen_at = $1 WHERE name = $2`, now, name)
	return err
}

func (s Statements) personExists(ctx context.Context, name string) error {
	var found bool
	if err := s.SQL.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM people WHERE name = $1)`, name).Scan(&found); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("no person named %q: %w (recall users list shows who there is)", name, memory.ErrNotFound)
	}
	return nil
}

func (s Statements) insertToken(ctx context.Context, name string, tok team.TokenHashes, now time.Time) error {
	if _, err := s.SQL.Exec(ctx, `INSERT INTO tokens (token_hash, cookie_hash, person, created_at) VALUES ($1, $2, $3, $4)`,
		tok.Token, tok.Cookie, name, now); err != nil {
		return fmt.Errorf("store token of %s: %w", name, err)
	}
	return nil
}
