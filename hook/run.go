package hook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/recall-mcp/recall/privacy"
	"github.com/recall-mcp/recall/spool"
)

// Socket is where a running server may answer the hook.
type Socket struct {
	Path string // "": never ask a server
	// ConnectWait bounds the connection; AnswerWait the whole exchange.
	ConnectWait, AnswerWait time.Duration
}

// newWriteID names a hook's writes (see Request.ID).
func newWriteID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "hook-" + hex.EncodeToString(b)
}

// Open builds a Handler for event ev with input in (opening the database,
// connecting the embedder) and returns a function that releases what it
// opened. Work the event will need that does not need the database may start
// before the database opens (see PrefetchQuery).
type Open func(ctx context.Context, ev string, in *Input) (*Handler, func(), error)

// Lost records that the writes of a hook event were never made, and why:
// the database did not open, or the hook's time ran out before the work
// reached its write. Where it records decides who hears of it (stats,
// doctor, the next session's start). A write the store itself failed to
// keep is the store's to record (see Handler.Lost).
type Lost func(event, cause string)

// Run answers one hook event: it reads the input from stdin, opens the services,
// handles the event and writes the answer to stdout. It never fails: every
// problem is logged and answered with silence, so that a hook never breaks the
// user's session. Everything, reading stdin and opening the database included,
// must finish within deadline; past it Run returns without answering, after
// giving the work keepWriteGrace to put its write in the spool (the caller
// exits, which rolls back any open transaction).
//
// With a server (sock.Path set and a recall serve listening) the event is
// handed to it and its answer printed; without one, or when it does not
// answer in time, the hook does the work itself, under the same write id, so
// that writes the server made before it stopped answering are not made twice.
//
// Work of its own that never reached its write is told to lost (nil: only
// logged); an event handed to a server is the server's to keep or record.
func Run(ctx context.Context, event string, stdin io.Reader, stdout io.Writer, deadline time.Duration, logger *slog.Logger, open Open, sock Socket, lost Lost) {
	log := logger.With("hook", event)
	ev, err := ParseEvent(event)
	if err != nil {
		log.Error("hook not answered", "err", err)
		return
	}

	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	type answer struct {
		out     *Output
		release func()
		err     error
	}
	done := make(chan answer, 1)
	var working atomic.Bool // the event's work is this process's own
	start := time.Now()
	go func() {
		// A bug must not break the user's session either.
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("internal error: %v\n%s", p, debug.Stack())}
			}
		}()
		raw, err := readRawInput(stdin) // within the deadline: stdin may never end
		if err != nil {
			done <- answer{err: err}
			return
		}
		id := newWriteID()
		asked := false // a server may have begun the work
		if sock.Path != "" {
			a, err := Ask(ctx, sock.Path, Request{ID: id, Event: ev, Input: raw}, sock.ConnectWait, sock.AnswerWait)
			switch {
			case err == nil && a.Error != "":
				done <- answer{err: fmt.Errorf("recall serve: %s", a.Error)}
				return
			case err == nil:
				log.Debug("answered by recall serve", "socket", sock.Path)
				done <- answer{out: a.Output}
				return
			case errors.Is(err, ErrNotTaken):
				log.Warn("recall serve did not take the hook; the hook does the work itself", "err", err)
			case !errors.Is(err, ErrNoServer):
				asked = true
				log.Warn("recall serve did not answer; the hook does the work itself", "err", err)
			}
		}
		in, err := ParseInput(raw)
		if err != nil {
			done <- answer{err: err}
			return
		}
		if ev == PostToolUse {
			// Its entry (the tool's input and response) is cleaned of
			// secrets once the database is open or while it is made; the
			// rules they wake compile meanwhile, on the other core. Not the
			// rest of the input: a working directory ending in ".../api",
			// then a comma, looks like an assignment to generic-api-key.
			go privacy.Prepare(string(in.ToolInput.Raw) + "\n" + string(in.ToolResponse))
		}
		work := ctx
		if asked {
			// Under the request's id: what the server wrote is not written twice.
			work = spool.WithWriteID(ctx, id)
		}
		working.Store(true)
		h, release, err := open(work, ev, in)
		if err != nil {
			if lost != nil {
				lost(ev, "the database did not open: "+err.Error())
			}
			done <- answer{err: err}
			return
		}
		log.Debug("hook services opened", "elapsed", time.Since(start))
		out, err := h.Handle(work, ev, in)
		done <- answer{out, release, err}
	}()

	select {
	case a := <-done:
		// Answer first, release after: Claude Code reads the answer as soon as
		// it is written.
		if a.release != nil {
			defer a.release()
		}
		if a.err != nil {
			log.Error("hook not answered", "err", a.err)
			return
		}
		if a.out != nil {
			if err := json.NewEncoder(stdout).Encode(a.out); err != nil {
				log.Error("write hook answer", "err", err)
			}
		}
		log.Debug("hook answered", "elapsed", time.Since(start))
	case <-ctx.Done():
		log.Error("hook not answered", "err", fmt.Errorf("no answer within %s (database locked or model service stuck)", deadline))
		// The work, seeing its time gone, keeps its write in the spool for
		// the next hook (see storage's hookWrite): let it finish that rather
		// than exit in the middle and lose the write.
		select {
		case a := <-done:
			if a.release != nil {
				a.release()
			}
		case <-time.After(keepWriteGrace):
			log.Error("hook work still running at exit; what it had not written is lost")
			if lost != nil && working.Load() {
				lost(ev, fmt.Sprintf("the hook's time (%s) ran out before its write was made (a loaded machine, a large input, or the database held by another process)", deadline))
			}
		}
	}
}

// keepWriteGrace is how long a hook past its deadline waits for its work to
// put its write in the spool.
const keepWriteGrace = 300 * time.Millisecond
