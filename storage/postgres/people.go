package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/team"
)

// AddPerson adds a person with their first token's hashes.
func (s *DB) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	now := time.Now()
	return s.write(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO people (name, created_at) VALUES ($1, $2)`, name, now)
		if isUniqueViolation(err, "") {
			return fmt.Errorf("%q is already a person of this team: %w; use recall users token %s for a new token", name, memory.ErrInvalid, name)
		}
		if err != nil {
			return fmt.Errorf("add person %s: %w", name, err)
		}
		return insertToken(ctx, tx, name, tok, now)
	})
}

// ReplaceToken replaces every token of a person with a new one.
func (s *DB) ReplaceToken(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		if err := personExists(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM tokens WHERE person = $1`, name); err != nil {
			return fmt.Errorf("replace token of %s: %w", name, err)
		}
		return insertToken(ctx, tx, name, tok, time.Now())
	})
}

// RemovePerson removes a person and their tokens.
func (s *DB) RemovePerson(ctx context.Context, name string) error {
	return s.write(ctx, func(tx pgx.Tx) error {
		if err := personExists(ctx, tx, name); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM people WHERE name = $1`, name)
		return err
	})
}

// People lists the team by name.
func (s *DB) People(ctx context.Context) ([]team.Person, error) {
	rows, err := s.pool.Query(ctx, `SELECT name, created_at, last_seen_at FROM people ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list people: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (team.Person, error) {
		var p team.Person
		var seen *time.Time
		err := r.Scan(&p.Name, &p.CreatedAt, &seen)
		p.CreatedAt = p.CreatedAt.UTC()
		if seen != nil {
			p.LastSeenAt = seen.UTC()
		}
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list people: %w", err)
	}
	if out == nil {
		out = []team.Person{}
	}
	return out, nil
}

// HasPeople reports whether the team has anyone.
func (s *DB) HasPeople(ctx context.Context) (bool, error) {
	var has bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM people)`).Scan(&has)
	return has, err
}

// PersonByToken names the person whose token hash (or cookie hash) is hash,
// or returns team.ErrUnknownToken. It notes when the person was last seen,
// at most once a minute.
func (s *DB) PersonByToken(ctx context.Context, hash string, cookie bool) (string, error) {
	col := "token_hash"
	if cookie {
		col = "cookie_hash"
	}
	var name, stored string
	var seen *time.Time
	err := s.pool.QueryRow(ctx, `SELECT t.person, t.`+col+`, p.last_seen_at FROM tokens t
		JOIN people p ON p.name = t.person WHERE t.`+col+` = $1`, hash).Scan(&name, &stored, &seen)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !team.SameHash(stored, hash)) {
		return "", team.ErrUnknownToken
	}
	if err != nil {
		return "", fmt.Errorf("look up token: %w", err)
	}
	if now := time.Now(); seen == nil || now.Sub(*seen) > time.Minute {
		_, _ = s.pool.Exec(ctx, `UPDATE people SET last_seen_at = $1 WHERE name = $2`, now, name)
	}
	return name, nil
}

func personExists(ctx context.Context, tx pgx.Tx, name string) error {
	var found bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM people WHERE name = $1)`, name).Scan(&found); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("no person named %q: %w (recall users list shows who there is)", name, memory.ErrNotFound)
	}
	return nil
}

func insertToken(ctx context.Context, tx pgx.Tx, name string, tok team.TokenHashes, now time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO tokens (token_hash, cookie_hash, person, created_at) VALUES ($1, $2, $3, $4)`,
		tok.Token, tok.Cookie, name, now); err != nil {
		return fmt.Errorf("store token of %s: %w", name, err)
	}
	return nil
}
