package embedding

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/memory"
)

// The kinds of failure `recall doctor` and the logs tell apart. Every error the
// client returns for a failed call to Ollama wraps one of them (or none, for a
// failure of another kind) and memory.ErrUnavailable, so callers degrade with
// errors.Is(err, memory.ErrUnavailable) and explain with the specific one.
var (
	// ErrNotRunning: nothing answers at the host (connection refused, unknown host).
	ErrNotRunning = errors.New("ollama not running")
	// ErrModelMissing: Ollama answers but the model is not pulled.
	ErrModelMissing = errors.New("model not pulled")
	// ErrTimeout: Ollama did not answer within the configured timeout or the
	// caller's deadline.
	ErrTimeout = errors.New("ollama timed out")
	// ErrWrongModel: the model cannot do what it is asked (a chat model set as
	// the embedding model, an embedding model asked to chat).
	ErrWrongModel = errors.New("model lacks the capability")
	// ErrConnectionLost: Ollama closed the connection in the middle of a
	// request (it crashed, was killed or restarted).
	ErrConnectionLost = errors.New("ollama closed the connection")
	// ErrBadReply: the chat model answered, but not with JSON that fits the
	// requested shape. It is memory.ErrBadReply and does not wrap
	// memory.ErrUnavailable: asking again gets the same reply, the judgment failed.
	ErrBadReply = memory.ErrBadReply
)

// Error is a failed call to Ollama: a message that says what to do, the kind
// (one of the sentinels above, or nil) and the underlying cause.
type Error struct {
	Kind    error
	Message string
	Cause   error
}

func (e *Error) Error() string { return e.Message }

// Unwrap lets errors.Is find the kind, memory.ErrUnavailable and the cause.
func (e *Error) Unwrap() []error {
	errs := []error{memory.ErrUnavailable}
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// classify turns an error of the Ollama client into an *Error. model is the model
// the call named; parent is the caller's context, to tell the caller's
// cancellation from the client's own timeout.
func (c *Client) classify(parent context.Context, err error, model string) error {
	if err == nil {
		return nil
	}
	var statusErr api.StatusError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		within := fmt.Sprintf("within %s", seconds(c.timeout))
		if parent.Err() != nil {
			within = "before the caller's deadline"
		}
		return &Error{Kind: ErrTimeout, Message: fmt.Sprintf("Ollama did not answer %s (%s)", within, c.host), Cause: err}
	case errors.Is(err, context.Canceled):
		return &Error{Message: "call to Ollama cancelled", Cause: err}
	case isNotRunning(err):
		return &Error{Kind: ErrNotRunning, Message: fmt.Sprintf("Ollama is not running at %s: start it with `ollama serve`", c.host), Cause: err}
	case errors.As(err, &statusErr) && isModelMissing(statusErr):
		return &Error{Kind: ErrModelMissing, Message: fmt.Sprintf("model %s is not pulled: run `ollama pull %s`", model, model), Cause: err}
	case errors.As(err, &statusErr) && strings.Contains(statusErr.ErrorMessage, "does not support chat"):
		return &Error{Kind: ErrWrongModel, Message: fmt.Sprintf("model %s cannot chat (Ollama: %s): set RECALL_OLLAMA_CHAT_MODEL to a chat model such as %s", model, statusErr.ErrorMessage, DefaultChatModel), Cause: err}
	case isConnectionLost(err):
		return &Error{Kind: ErrConnectionLost, Message: fmt.Sprintf("Ollama at %s closed the connection mid-request: it may have crashed or restarted; check that `ollama serve` is running (and its log), then try again", c.host), Cause: err}
	}
	return &Error{Message: fmt.Sprintf("Ollama at %s failed: %v", c.host, err), Cause: err}
}

// isNotRunning recognises a failure to reach the host at all.
func isNotRunning(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// isConnectionLost recognises a connection closed by Ollama during a request:
// the response ended before it began (EOF) or midway, or the peer reset it.
func isConnectionLost(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// isModelMissing recognises Ollama's answer for a model that is not pulled:
// 404 "model 'x' not found" (older servers add ", try pulling it first").
func isModelMissing(e api.StatusError) bool {
	msg := strings.ToLower(e.ErrorMessage)
	return e.StatusCode == http.StatusNotFound && strings.Contains(msg, "not found") ||
		strings.Contains(msg, "try pulling it first")
}

// seconds prints a duration as Ollama users think of it: "30s", "2.5s".
func seconds(d time.Duration) string {
	return fmt.Sprintf("%gs", d.Seconds())
}
