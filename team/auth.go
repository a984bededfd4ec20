package team

import (
	"context"
	"errors"

	"github.com/recall-mcp/recall/memory"
)

// Authenticator tells who a request's token belongs to: the administrator
// (AdminToken, RECALL_HTTP_TOKEN) or a person of Dir.
type Authenticator struct {
	AdminToken string
	Dir        Directory // nil: the administrator's token alone
	// OpenUntilPeople lets requests without a token through while the team
	// has no people, even with an AdminToken: the viewer on loopback, which
	// this machine's user opened without a token before there were people.
	OpenUntilPeople bool
}

// Token returns the principal of a bearer token, or ErrUnknownToken.
func (a Authenticator) Token(ctx context.Context, token string) (memory.Principal, error) {
	return a.lookup(ctx, token, false)
}

// Cookie returns the principal of a viewer cookie, or ErrUnknownToken.
func (a Authenticator) Cookie(ctx context.Context, cookie string) (memory.Principal, error) {
	return a.lookup(ctx, cookie, true)
}

func (a Authenticator) lookup(ctx context.Context, secret string, cookie bool) (memory.Principal, error) {
	if secret == "" {
		return memory.Principal{}, ErrUnknownToken
	}
	if a.AdminToken != "" {
		admin := a.AdminToken
		if cookie {
			admin = CookieValue(a.AdminToken)
		}
		if SameSecret(secret, admin) {
			return memory.Principal{Admin: true}, nil
		}
	}
	if a.Dir == nil {
		return memory.Principal{}, ErrUnknownToken
	}
	name, err := a.Dir.PersonByToken(ctx, Hash(secret), cookie)
	if err != nil {
		return memory.Principal{}, err
	}
	return memory.Principal{Person: name}, nil
}

// Required reports whether requests must carry a token: when the
// administrator has one or the team has people. A server on loopback with
// neither stays open, as before there were people.
func (a Authenticator) Required(ctx context.Context) (bool, error) {
	if a.AdminToken != "" && !a.OpenUntilPeople {
		return true, nil
	}
	if a.Dir == nil {
		return false, nil
	}
	return a.Dir.HasPeople(ctx)
}

// IsUnknown reports whether err is a token that opens nothing.
func IsUnknown(err error) bool { return errors.Is(err, ErrUnknownToken) }
