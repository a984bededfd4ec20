// Package corpus makes sets of memories of the kinds a coding agent stores, for
// tests that need many varied memories (forget by query, relevance floors).
package corpus

import (
	"fmt"
	"math/rand/v2"
)

// Subjects, actions and reasons are combined into notes such as "Prefer table
// driven tests in the billing package because failures name the case".
var (
	openers = []string{"Prefer", "Always use", "Never use", "We decided on", "Avoid", "Remember", "Keep", "Use"}
	things  = []string{
		"table driven tests", "structured logging with slog", "the retry helper", "context deadlines",
		"sqlc for queries", "goose migrations", "feature flags", "the staging cluster", "tabs for indentation",
		"small pull requests", "semantic versioning", "the error wrapping helper", "prepared statements",
		"the rate limiter", "connection pooling", "JSON schema validation", "the build cache",
		"golden files", "the linter config", "squash merges", "dark mode", "the metrics exporter",
		"request tracing", "the mock clock", "environment variables for secrets", "the vendored parser",
		"graceful shutdown", "the worker pool", "optimistic locking", "the CDN for static assets",
	}
	places = []string{
		"in the billing package", "for the payments API", "in the frontend", "in CI", "in the CLI",
		"for the nightly jobs", "in the auth service", "for the mobile app", "in integration tests",
		"in the data pipeline", "for local development", "in the admin dashboard",
	}
	reasons = []string{
		"because failures name the case", "since it keeps reviews short", "after the outage in March",
		"so that rollbacks stay cheap", "as the team agreed", "because it halves latency",
		"to keep builds reproducible", "since the old way leaked memory", "so newcomers find it",
		"because the vendor requires it", "to avoid flaky runs", "since it is easier to read",
	}
)

// MaxVaried is how many distinct notes the vocabulary makes.
var MaxVaried = len(openers) * len(things) * len(places) * len(reasons)

// Varied returns n distinct notes drawn from a fixed vocabulary, the same for
// the same seed. Words outside that vocabulary (say "flamegraph", "haiku" or
// "kubernetes") occur in none of them.
func Varied(n int, seed uint64) []string {
	if n > MaxVaried {
		// More would never come: the loop below would run for ever.
		panic(fmt.Sprintf("corpus.Varied(%d): the vocabulary makes at most %d distinct notes", n, MaxVaried))
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		note := fmt.Sprintf("%s %s %s %s",
			openers[r.IntN(len(openers))], things[r.IntN(len(things))],
			places[r.IntN(len(places))], reasons[r.IntN(len(reasons))])
		if !seen[note] {
			seen[note] = true
			out = append(out, note)
		}
	}
	return out
}
