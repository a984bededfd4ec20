package memory

import (
	"context"
	"errors"
	"testing"
)

func TestPersonNamesAreChecked(t *testing.T) {
	for _, ok := range []string{"alice", "bob-2", "x_y", "0day"} {
		if err := ValidatePersonName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Alice", "al ice", "-bob", "_bob", "bob!", "é", string(make([]byte, 65))} {
		if err := ValidatePersonName(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q accepted (%v)", bad, err)
		}
	}
}

func TestPrivateMeansMyOwnNamespace(t *testing.T) {
	alice := WithPrincipal(context.Background(), Principal{Person: "alice"})
	if ns, err := ResolveNamespace(alice, "private"); err != nil || ns != "user:alice" {
		t.Errorf("private for alice = %q, %v", ns, err)
	}
	for _, ctx := range []context.Context{context.Background(), WithPrincipal(context.Background(), Principal{Admin: true})} {
		if _, err := ResolveNamespace(ctx, "private"); !errors.Is(err, ErrInvalid) {
			t.Errorf("private without a person: %v", err)
		}
	}
	if ns, err := ResolveNamespace(alice, "user:bob"); err != nil || ns != "user:bob" {
		t.Errorf("user:bob is a valid name (the store hides it): %q, %v", ns, err)
	}
	if _, err := ResolveNamespace(alice, "user:Bob"); !errors.Is(err, ErrInvalid) {
		t.Errorf("user:Bob accepted: %v", err)
	}
}

func TestWhoSeesWhat(t *testing.T) {
	alice := Principal{Person: "alice"}
	for ns, want := range map[string]bool{"global": true, "project:x": true, "user:alice": true, "user:bob": false} {
		if got := alice.Sees(ns); got != want {
			t.Errorf("alice sees %s: %v, want %v", ns, got, want)
		}
		if !(Principal{Admin: true}).Sees(ns) || !(Principal{}).Sees(ns) {
			t.Errorf("the administrator and this machine must see %s", ns)
		}
	}
	if (Principal{Admin: true}).Author() != "admin" || alice.Author() != "alice" || (Principal{}).Author() != "" {
		t.Error("authors")
	}
}
