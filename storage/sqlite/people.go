package sqlite

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
// hashes only; the caller hashes them.

// AddPerson records a person with their first token. A name already taken is
// an error wrapping memory.ErrInvalid.
func (s *DB) AddPerson(ctx context.Context, name string, tok team.TokenHashes) error {
	now := formatTime(time.Now())
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO people (name, created_at) VALUES (?, ?)`, name, now)
		if isUniqueViolation(err) {
			return fmt.Errorf("%q is already a person of this team: %w; use recall users token %s for a new token", name, memory.ErrInvalid, name)
		}
		if err != nil {
			return fmt.Errorf("add person %s: %w", name, err)
		}
		return insertToken(ctx, tx, name, tok, now)
	})
}

// ReplaceToken gives a person a new token; their old ones stop working in
// the same transaction.
func (s *DB) ReplaceToken(ctx context.Context, name string, tok team.TokenHashes) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := personExists(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE person = ?`, name); err != nil {
			return fmt.Errorf("replace token of %s: %w", name, err)
		}
		return insertToken(ctx, tx, name, tok, formatTime(time.Now()))
	})
}

// RemovePerson removes a person and, by the foreign key, their tokens. Their
// memories stay (in their user: namespace, seen by the administrator).
func (s *DB) RemovePerson(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := personExists(ctx, tx, name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM people WHERE name = ?`, name)
		return err
	})
}

// People lists the people by name.
func (s *DB) People(ctx context.Context) ([]team.Person, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, created_at, last_seen_at FROM people ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list people: %w", err)
	}
	defer rows.Close()
	out := []team.Person{}
	for rows.Next() {
		var p team.Person
		var created, seen string
		if err := rows.Scan(&p.Name, &created, &seen); err != nil {
			return nil, fmt.Errorf("list people: %w", err)
		}
		if p.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		if seen != "" {
			if p.LastSeenAt, err = parseTime(seen); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// HasPeople reports whether the team has anyone.
func (s *DB) HasPeople(ctx context.Context) (bool, error) {
	var has bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM people)`).Scan(&has)
	return has, err
}

// PersonByToken names the person whose token (or viewer cookie, with
// cookie set) hashes to hash, or returns team.ErrUnknownToken. It records
// when the person was last seen, at most once a minute and best effort: a
// busy database never holds up a request for it.
func (s *DB) PersonByToken(ctx context.Context, hash string, cookie bool) (string, error) {
	col := "token_hash"
	if cookie {
		col = "cookie_hash"
	}
	var name, stored, seen string
	err := s.db.QueryRowContext(ctx, `SELECT t.person, t.`+col+`, p.last_seen_at FROM tokens t
		JOIN people p ON p.name = t.person WHERE t.`+col+` = ?`, hash).Scan(&name, &stored, &seen)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !team.SameHash(stored, hash)) {
		return "", team.ErrUnknownToken
	}
	if err != nil {
		return "", fmt.Errorf("look up token: %w", err)
	}
	now := time.Now()
	if last, perr := parseTime(seen); perr != nil || now.Sub(last) > time.Minute {
		_ = s.writeBestEffort(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE people SET last_seen_at = ? WHERE name = ?`, formatTime(now), name)
			return err
		})
	}
	return name, nil
}

func personExists(ctx context.Context, tx *sql.Tx, name string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM people WHERE name = ?`, name).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no person named %q: %w (recall users list shows who there is)", name, memory.ErrNotFound)
	}
	return nil
}

func insertToken(ctx context.Context, tx *sql.Tx, name string, tok team.TokenHashes, now string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO tokens (token_hash, cookie_hash, person, created_at) VALUES (?, ?, ?, ?)`,
		tok.Token, tok.Cookie, name, now); err != nil {
		return fmt.Errorf("store token of %s: %w", name, err)
	}
	return nil
}
