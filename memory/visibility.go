package memory

import "context"

// The store's half of the one visibility rule (see Principal.Sees): both
// stores check a memory read by id, and a namespace written into, through
// these, so the rule and its words are one.

// CheckVisible returns ErrNotFound, as for a missing memory, when the
// principal in ctx may not see m.
func CheckVisible(ctx context.Context, m *Memory) error {
	if !PrincipalFrom(ctx).Sees(m.Namespace) {
		return NotFound("memory", m.ID)
	}
	return nil
}

// CheckWritable refuses a write into another person's namespace. It names
// the rule, not any memory: nothing about what that namespace holds leaks.
func CheckWritable(ctx context.Context, namespace string) error {
	p := PrincipalFrom(ctx)
	if p.Sees(namespace) {
		return nil
	}
	return Invalidf("namespace", namespace, `"private" or your own `+p.OwnNamespace()+`, "global" or "project:<name>": a user:<name> namespace is its person's alone`)
}
