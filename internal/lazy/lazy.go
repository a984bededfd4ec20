// Package lazy holds values built on first use instead of at package
// initialisation. Every recall process (a hook is one per Claude Code event)
// initialises every package the binary links, so a regular expression compiled
// in a package-level var is paid by processes that never match it.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call and returns
// the same expression after; expr must compile (as with regexp.MustCompile,
// the panic comes on first use).
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
