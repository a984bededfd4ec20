package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/recall-mcp/recall/memory"
)

// toolError turns a service error into the text of an MCP tool error
// (isError: true). Domain errors already say what was wrong and what is
// accepted (a refused golden rule also how to get past it, once). Anything
// else is unexpected: it is logged, and the caller still gets its text.
func toolError(log *slog.Logger, tool string, err error) error {
	switch {
	case errors.Is(err, memory.ErrInvalid), errors.Is(err, memory.ErrNotFound), errors.Is(err, memory.ErrProtected):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s was interrupted: %w", tool, err)
	}
	log.Error("tool failed", "tool", tool, "error", err)
	return fmt.Errorf("%s failed: %w", tool, err)
}

// failure is a tool error that carries a result: the handler's output becomes
// the error's structured content (success false, error, and what the caller
// needs besides, such as a forget's unconfirmed selection).
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }

func failedWith(msg string) error { return &failure{msg: msg} }
