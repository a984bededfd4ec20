package memory

import (
	"errors"
	"fmt"
)

// Errors the domain reports. Callers test them with errors.Is; the messages of
// the wrapping errors say what was wrong and what is accepted.
var (
	// ErrInvalid marks bad input: a field out of range, an unknown name.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound marks an id that names nothing stored.
	ErrNotFound = errors.New("not found")
	// ErrProtected marks a refused change to a golden rule (forget without force).
	ErrProtected = errors.New("protected golden rule")
	// ErrUnavailable marks an embedder or judge that cannot answer now (Ollama not
	// running, model not pulled, timed out). The memory operation degrades; it
	// never fails or loses data because of it.
	ErrUnavailable = errors.New("model service unavailable")
	// ErrBadReply marks a model that answered, but not with JSON of the
	// requested shape. It does not wrap ErrUnavailable: asking the same question
	// again gets the same answer (temperature 0), so the judgment has failed and
	// is not retried.
	ErrBadReply = errors.New("model reply does not parse")
	// ErrEmbeddingMismatch marks a database whose vectors were made by another
	// embedding model or dimension than the one configured.
	ErrEmbeddingMismatch = errors.New("embedding model mismatch")
)

// InvalidError is bad input on one field.
type InvalidError struct {
	Field    string
	Got      string
	Accepted string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid %s %s: accepted %s", e.Field, e.Got, e.Accepted)
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

func invalid(field, got, accepted string) error {
	return &InvalidError{Field: field, Got: quoteShort(got), Accepted: accepted}
}

// Invalidf reports bad input on a field whose value is not a string.
func Invalidf(field string, got any, accepted string) error {
	return &InvalidError{Field: field, Got: fmt.Sprint(got), Accepted: accepted}
}

// DuplicateError is a change refused because the namespace already holds
// a memory of the same content (dedup is per namespace): an edit to that
// text, or a move into that namespace.
type DuplicateError struct {
	MemoryID   string // the memory being changed
	Namespace  string
	ExistingID string // the memory already there (empty when not known)
}

func (e *DuplicateError) Error() string {
	if e.ExistingID == "" {
		return fmt.Sprintf("memory %s: namespace %s already holds the same content: keep one of the two", e.MemoryID, e.Namespace)
	}
	return fmt.Sprintf("memory %s: namespace %s already holds the same content as memory %s: keep one of the two", e.MemoryID, e.Namespace, e.ExistingID)
}

func (e *DuplicateError) Unwrap() error { return ErrInvalid }

// NotFound reports an id that names nothing stored.
func NotFound(kind, id string) error {
	return fmt.Errorf("%s %q %w", kind, id, ErrNotFound)
}
