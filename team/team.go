// Package team knows the people of a team server and their tokens: it makes
// tokens, keeps only their hashes, and tells who a request's token belongs to
// (a memory.Principal, which the store's visibility rule reads).
package team

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Person is one person of the team; their tokens are never listed.
type Person struct {
	Name       string    `json:"name"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at,omitzero"`
}

// TokenHashes is what the store keeps of a token: the SHA-256 of the token
// and of the viewer cookie derived from it.
type TokenHashes struct {
	Token, Cookie string
}

// Directory keeps the people and their token hashes. storage implements it.
type Directory interface {
	AddPerson(ctx context.Context, name string, tok TokenHashes) error
	ReplaceToken(ctx context.Context, name string, tok TokenHashes) error
	RemovePerson(ctx context.Context, name string) error
	People(ctx context.Context) ([]Person, error)
	HasPeople(ctx context.Context) (bool, error)
	// PersonByToken names the person whose token hash (or cookie hash, with
	// cookie) is hash, or returns ErrUnknownToken.
	PersonByToken(ctx context.Context, hash string, cookie bool) (string, error)
}

// ErrUnknownToken is a token that opens nothing: wrong, replaced, or of a
// person who was removed.
var ErrUnknownToken = errors.New("unknown token")

// tokenBytes is the randomness of a token.
const tokenBytes = 32

// NewToken returns a fresh random token (43 URL-safe characters).
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Hash is the stored form of a token or cookie: hex SHA-256. A token has 256
// random bits, so no salt or slow hash is needed to keep it from a guesser.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Hashes are the hashes stored for token.
func Hashes(token string) TokenHashes {
	return TokenHashes{Token: Hash(token), Cookie: Hash(CookieValue(token))}
}

// SameHash compares two hashes in constant time.
func SameHash(a, b string) bool { return SameSecret(a, b) }

// SameSecret compares two secrets in constant time.
func SameSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// CookieValue is the viewer's cookie for a token: derived from it rather
// than the token itself, so a leaked cookie opens the viewer, not the MCP
// transport the same token guards.
func CookieValue(token string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("recall viewer cookie v1"))
	return hex.EncodeToString(mac.Sum(nil))
}

// People manages the team's people.
type People struct {
	Dir Directory
}

// Add creates a person and returns their token, which is shown once: only
// its hash is kept.
func (p People) Add(ctx context.Context, name string) (string, error) {
	return issueToken(ctx, name, memory.CheckNewPersonName, p.Dir.AddPerson)
}

// NewToken gives a person a new token; the old one stops working at once.
func (p People) NewToken(ctx context.Context, name string) (string, error) {
	return issueToken(ctx, name, memory.ValidatePersonName, p.Dir.ReplaceToken)
}

// issueToken checks the name, makes a token and keeps its hashes for the
// person; the token is returned to be shown once.
func issueToken(ctx context.Context, name string, check func(string) error, keep func(context.Context, string, TokenHashes) error) (string, error) {
	if err := check(name); err != nil {
		return "", err
	}
	tok, err := NewToken()
	if err != nil {
		return "", err
	}
	return tok, keep(ctx, name, Hashes(tok))
}

// Remove removes a person; their tokens stop working at once. Their private
// memories stay, for the administrator to keep or delete.
func (p People) Remove(ctx context.Context, name string) error {
	if err := memory.ValidatePersonName(name); err != nil {
		return err
	}
	return p.Dir.RemovePerson(ctx, name)
}

// List lists the people by name.
func (p People) List(ctx context.Context) ([]Person, error) { return p.Dir.People(ctx) }
