package team

import (
	"context"
	"strings"
	"testing"
)

// directory is an in-memory Directory.
type directory struct{ hashes map[string]string } // token hash -> person

func (d *directory) AddPerson(_ context.Context, name string, tok TokenHashes) error {
	d.hashes[tok.Token] = name
	return nil
}
func (d *directory) ReplaceToken(_ context.Context, name string, tok TokenHashes) error {
	for h, n := range d.hashes {
		if n == name {
			delete(d.hashes, h)
		}
	}
	d.hashes[tok.Token] = name
	return nil
}
func (d *directory) RemovePerson(context.Context, string) error { return nil }
func (d *directory) People(context.Context) ([]Person, error)   { return nil, nil }
func (d *directory) HasPeople(context.Context) (bool, error)    { return len(d.hashes) > 0, nil }
func (d *directory) PersonByToken(_ context.Context, hash string, cookie bool) (string, error) {
	if n, ok := d.hashes[hash]; ok && !cookie {
		return n, nil
	}
	return "", ErrUnknownToken
}

func TestTokensAreKeptAsHashesAndNameTheirPerson(t *testing.T) {
	ctx := context.Background()
	dir := &directory{hashes: map[string]string{}}
	people := People{Dir: dir}
	tok, err := people.Add(ctx, "alice")
	if err != nil || len(tok) != 43 {
		t.Fatalf("token %q, %v", tok, err)
	}
	for h := range dir.hashes {
		if strings.Contains(h, tok) || len(h) != 64 {
			t.Errorf("stored %q for token %q: want its SHA-256 alone", h, tok)
		}
	}
	auth := Authenticator{AdminToken: "the-administrators-token-0123456789", Dir: dir}
	if p, err := auth.Token(ctx, tok); err != nil || p.Person != "alice" {
		t.Errorf("alice's token: %+v, %v", p, err)
	}
	if p, err := auth.Token(ctx, auth.AdminToken); err != nil || !p.Admin || p.Person != "" {
		t.Errorf("the administrator's token: %+v, %v", p, err)
	}
	if p, err := auth.Cookie(ctx, CookieValue(auth.AdminToken)); err != nil || !p.Admin {
		t.Errorf("the administrator's cookie: %+v, %v", p, err)
	}
	fresh, _ := people.NewToken(ctx, "alice")
	if _, err := auth.Token(ctx, tok); !IsUnknown(err) {
		t.Errorf("the replaced token still works: %v", err)
	}
	if _, err := auth.Token(ctx, fresh); err != nil {
		t.Errorf("the new token: %v", err)
	}
	for _, bad := range []string{"", "nope", tok + "x"} {
		if _, err := auth.Token(ctx, bad); !IsUnknown(err) {
			t.Errorf("token %q: %v", bad, err)
		}
	}
	if _, err := people.Add(ctx, "Not A Name"); err == nil {
		t.Error("a bad name was added")
	}
}

func TestTokenRequiredOnceThereIsAnAdministratorOrAPerson(t *testing.T) {
	ctx := context.Background()
	dir := &directory{hashes: map[string]string{}}
	if req, _ := (Authenticator{Dir: dir}).Required(ctx); req {
		t.Error("no token and no people: open")
	}
	if req, _ := (Authenticator{AdminToken: "x", Dir: dir, OpenUntilPeople: true}).Required(ctx); req {
		t.Error("OpenUntilPeople without people: open")
	}
	People{Dir: dir}.Add(ctx, "bob")
	if req, _ := (Authenticator{AdminToken: "x", Dir: dir, OpenUntilPeople: true}).Required(ctx); !req {
		t.Error("with people a token is required")
	}
}
