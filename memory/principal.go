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
	// Curator marks this machine's background curation working on one
	// memory: it sees what the memory's owner sees (Person, see CuratorOf),
	// or, for a shared memory, the shared namespaces alone, so that no
	// judgment, edge or merge ever pairs one person's private memory with
	// another's. Its changes are recorded with no author, as the machine's.
	Curator bool
}

// CuratorOf is the principal background curation of a memory of namespace ns
// works under: the owner's view for a private memory, the shared namespaces
// alone for a shared one.
func CuratorOf(ns string) Principal {
	if person, ok := strings.CutPrefix(ns, PersonNamespacePref); ok && person != "" {
		return Principal{Person: person, Curator: true}
	}
	return Principal{Curator: true}
}

// Restricted reports whether the principal sees less than everything.
func (p Principal) Restricted() bool { return p.Person != "" || p.Curator }

// Author is the name a change is recorded under: the person, "admin" for the
// administrator's token, empty for this machine's own processes (its
// curation among them).
func (p Principal) Author() string {
	switch {
	case p.Curator:
		return ""
	case p.Person != "":
		return p.Person
	case p.Admin:
		return adminAuthor
	}
	return ""
}

// AuthorOr is the name a record is written under: given when set (an
// import keeps its authors), else whoever asks in ctx.
func AuthorOr(ctx context.Context, given string) string {
	if given != "" {
		return given
	}
	return PrincipalFrom(ctx).Author()
}

// AuthorPrincipal is the principal an author name was recorded under (see
// Author): background work done for a session or a memory acts as its
// author.
func AuthorPrincipal(author string) Principal {
	switch author {
	case "":
		return Principal{}
	case adminAuthor:
		return Principal{Admin: true}
	}
	return Principal{Person: author}
}

// adminAuthor records the administrator's changes; no new person may take it
// (CheckNewPersonName).
const adminAuthor = "admin"

// CheckNewPersonName is ValidatePersonName for a person being added, who may
// not be called "admin": that name records the administrator's changes.
func CheckNewPersonName(name string) error {
	if err := ValidatePersonName(name); err != nil {
		return err
	}
	if name == adminAuthor {
		return Invalidf("name", `"admin"`, `any other name: "admin" records the administrator's changes`)
	}
	return nil
}

// OwnNamespace is the person's private namespace, empty for a principal that
// is not a person (a restricted one without a person sees no user:
// namespace: no memory has an empty namespace).
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

// ResolveOptionalNamespace is ResolveNamespace for a namespace that may be
// left out: "" (any namespace) stays "".
func ResolveOptionalNamespace(ctx context.Context, ns string) (string, error) {
	if ns == "" {
		return "", nil
	}
	return ResolveNamespace(ctx, ns)
}
