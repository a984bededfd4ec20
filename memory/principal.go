package memory

import (
	"context"
	"fmt"
	"strings"
)

// A Principal is who asks: a person of the team (by a token of theirs), the
// administrator (RECALL_HTTP_TOKEN), or nobody in particular (the zero value:
// this machine's own processes, which open the database themselves and so
// see it all). The store reads it from the request's context and applies the
// one visibility rule in every query: a person sees the shared namespaces
// and their own user:<name>, never another person's.
type Principal struct {
	Person string // a person's name; empty for the administrator and this machine
	Admin  bool   // the administrator's token
}

// Restricted reports whether the principal sees less than everything.
func (p Principal) Restricted() bool { return p.Person != "" }

// Author is the name a change is recorded under: the person, "admin" for the
// administrator's token, empty for this machine's own processes.
func (p Principal) Author() string {
	switch {
	case p.Person != "":
		return p.Person
	case p.Admin:
		return "admin"
	}
	return ""
}

// OwnNamespace is the person's private namespace, empty for a principal that
// is not a person.
func (p Principal) OwnNamespace() string {
	if p.Person == "" {
		return ""
	}
	return PersonNamespacePref + p.Person
}

// Sees reports whether a memory of namespace ns is visible to p: everything
// but another person's user: namespace.
func (p Principal) Sees(ns string) bool {
	return !p.Restricted() || !strings.HasPrefix(ns, PersonNamespacePref) || ns == p.OwnNamespace()
}

type principalKey struct{}

// WithPrincipal returns ctx carrying who asks.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns who asks; the zero Principal (sees everything) when
// ctx carries none.
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}

// PersonNamespacePref starts a person's private namespace.
const PersonNamespacePref = "user:"

// PrivateAlias stands for the asking person's own namespace wherever a
// namespace is accepted.
const PrivateAlias = "private"

// maxPersonName bounds a person's name.
const maxPersonName = 64

// ValidatePersonName accepts a name of lowercase letters, digits, '-' and
// '_', starting with a letter or a digit, of at most 64 bytes.
func ValidatePersonName(name string) error {
	const accepted = "a name of lowercase letters, digits, '-' and '_' (at most 64, starting with a letter or digit)"
	if name == "" || len(name) > maxPersonName || name[0] == '-' || name[0] == '_' {
		return Invalidf("name", fmt.Sprintf("%q", name), accepted)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return Invalidf("name", fmt.Sprintf("%q", name), accepted)
		}
	}
	return nil
}

// ResolveNamespace validates a namespace given by whoever asks in ctx and
// turns the alias "private" into their own user:<name>. A principal that is
// not a person has no private namespace and is told so.
func ResolveNamespace(ctx context.Context, ns string) (string, error) {
	if ns == PrivateAlias {
		own := PrincipalFrom(ctx).OwnNamespace()
		if own == "" {
			return "", Invalidf("namespace", `"private"`, `"private" only with a person's token (it means their own user:<name>); name the namespace, as "user:<name>", "global" or "project:<name>"`)
		}
		return own, nil
	}
	return ns, ValidateNamespace(ns)
}
