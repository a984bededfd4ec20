package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/spool"
)

// Hooks send Claude Code's hook events to the team server, one HTTP request
// each, with an id. While the outbox (a spool: an fsync'ed file per event) is
// empty an event goes straight to the server and is kept there only when the
// server did not answer; behind events already waiting it is kept first and
// the outbox is sent oldest first. The server applies an id once, so every
// event arrives once and in order however long the server is away.
type Hooks struct {
	Client *Client
	Outbox *spool.Spool
	// Budget is the longest a hook waits for the server (RECALL_HOOK_TIMEOUT);
	// past it the hook answers nothing and its event waits in the outbox.
	Budget time.Duration
	Logger *slog.Logger
	// Pinned is this machine's RECALL_PROJECT: every event's project.
	Pinned string
}

// hookEvent is what the outbox keeps of one event.
type hookEvent struct {
	Event string          `json:"event"`
	Input json.RawMessage `json:"input"`
	// Project is the project this machine resolved from the event's cwd
	// when it happened (project.Client, encoded): the server has none of
	// this machine's paths.
	Project string `json:"project,omitempty"`
	// TranscriptOffset is the size of the event's transcript when it
	// happened: where the server anchors the event's entry (it cannot stat
	// this machine's file, and the transcript grows while the event waits
	// in the outbox). Nil: the event names no transcript.
	TranscriptOffset *int64 `json:"transcript_offset,omitempty"`
}

// outboxKind is the spool kind of a hook event.
const outboxKind = "hook_event"

// maxInput bounds a hook's input read from stdin.
const maxInput = 8 << 20

// Run answers one hook: it keeps the event, sends the outbox within the
// budget, and prints the server's answer to this event (nothing when the
// server did not answer in time). It never fails the hook: problems are
// logged.
func (h *Hooks) Run(ctx context.Context, event string, stdin io.Reader, stdout io.Writer) {
	log := h.Logger.With("hook", event)
	ctx, cancel := context.WithTimeout(ctx, h.Budget)
	defer cancel()
	input, err := readInput(ctx, stdin)
	if err != nil {
		log.Error("hook not answered", "err", err)
		return
	}
	ev := h.eventOf(event, input)
	if waiting, err := h.Outbox.Pending(); err == nil && waiting == 0 {
		h.sendNow(ctx, log, ev, stdout)
		return
	}
	w, err := h.Outbox.Add(outboxKind, ev)
	if err != nil {
		// Without the outbox the event can still go straight to the server.
		log.Warn("hook event not kept in the outbox", "err", err)
		if answer, err := h.send(ctx, spool.Write{Kind: outboxKind}, ev); err == nil {
			_, _ = stdout.Write(answer)
		}
		return
	}
	var answer []byte
	res, err := h.drain(ctx, func(sw spool.Write, out []byte) {
		if sw.ID == w.ID {
			answer = out
		}
	})
	if err != nil || res.Left > 0 {
		log.Warn("team server did not answer; the events wait in the outbox for the next hook", "server", h.Client.URL, "waiting", res.Left, "err", err)
	}
	if len(answer) > 0 {
		_, _ = stdout.Write(answer)
	}
}

// sendNow sends an event while nothing waits before it in the outbox: one
// request, no file. Only an event the server did not answer is kept, under
// the id it was sent with, so that one the server applied anyway (its answer
// was lost) is applied once when the outbox sends it again.
func (h *Hooks) sendNow(ctx context.Context, log *slog.Logger, ev hookEvent, stdout io.Writer) {
	id := h.Outbox.NewID()
	answer, err := h.send(ctx, spool.Write{ID: id}, ev)
	if err == nil {
		_, _ = stdout.Write(answer)
		return
	}
	if _, kerr := h.Outbox.AddOnce(outboxKind, id, ev); kerr != nil {
		log.Error("hook event lost: the team server did not take it and the outbox cannot keep it", "server", h.Client.URL, "err", errors.Join(err, kerr))
		return
	}
	log.Warn("team server did not answer; the event waits in the outbox for the next hook", "server", h.Client.URL, "err", err)
}

// drain sends the outbox, oldest first, until it is empty or an event must
// wait (the server is away, slow or busy); answered gets each answer.
func (h *Hooks) drain(ctx context.Context, answered func(sw spool.Write, out []byte)) (spool.Result, error) {
	return h.Outbox.Drain(ctx, func(ctx context.Context, sw spool.Write) error {
		var ev hookEvent
		if err := json.Unmarshal(sw.Data, &ev); err != nil {
			return fmt.Errorf("outbox event %s: %w", sw.ID, err)
		}
		out, err := h.send(ctx, sw, ev)
		if err == nil {
			answered(sw, out)
		}
		return err
	}, spool.Budget{})
}

// KeepSending sends what waits in the outbox every interval until ctx ends:
// `recall serve` runs it, so that events kept while the team server was away
// arrive once it is back even when no hook runs for a while (a session left
// idle, or ended). A round of sending ends after sendRound, a server that
// hangs so holds up nothing but the next round.
func (h *Hooks) KeepSending(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, sendRound)
		res, err := h.drain(rctx, func(spool.Write, []byte) {})
		cancel()
		if res.Applied > 0 {
			h.Logger.Info("sent hook events kept while the team server was away", "sent", res.Applied, "waiting", res.Left)
		}
		if err != nil && ctx.Err() == nil {
			h.Logger.Debug("team server still away; the hook events wait in the outbox", "waiting", res.Left, "err", err)
		}
	}
}

// sendRound bounds one round of KeepSending.
const sendRound = 30 * time.Second

// send posts one event; an error the server may not make again (it is away,
// slow, or busy) is marked spool.Later, so the event stays in the outbox.
func (h *Hooks) send(ctx context.Context, w spool.Write, ev hookEvent) ([]byte, error) {
	event := ev.Event
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.Client.URL+"/hook/"+event, bytes.NewReader(ev.Input))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if w.Once != "" {
		w.ID = w.Once // the id it was first sent with (sendNow)
	}
	if ev.Project != "" {
		req.Header.Set(project.Header, ev.Project)
	}
	if ev.TranscriptOffset != nil {
		req.Header.Set(hook.TranscriptOffsetHeader, strconv.FormatInt(*ev.TranscriptOffset, 10))
	}
	if w.ID != "" {
		req.Header.Set("Recall-Event-Id", w.ID)
	}
	res, err := h.Client.HTTP.Do(req)
	if err != nil {
		return nil, spool.Later(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxInput))
	if err != nil {
		return nil, spool.Later(err)
	}
	switch {
	case res.StatusCode == http.StatusOK:
		return body, nil
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests:
		// A token being replaced, or a server starting or overloaded: later.
		return nil, spool.Later(fmt.Errorf("team server answered %s: %s", res.Status, bytes.TrimSpace(body)))
	default:
		return nil, fmt.Errorf("team server refused the %s event: %s: %s", event, res.Status, bytes.TrimSpace(body))
	}
}

// eventOf is what the server is sent of a hook's input, with what only this
// machine knows as the hook runs: the project of the input's cwd, as this
// machine resolves it (project.ClientOf), and the transcript's size.
func (h *Hooks) eventOf(event string, input json.RawMessage) hookEvent {
	var in struct {
		Cwd            string `json:"cwd"`
		TranscriptPath string `json:"transcript_path"`
	}
	_ = json.Unmarshal(input, &in) // no cwd: the hook's own working directory
	ev := hookEvent{Event: event, Input: input, Project: project.ClientOf(in.Cwd, h.Pinned).Encode()}
	if in.TranscriptPath != "" {
		size := capture.TranscriptSize(in.TranscriptPath)
		ev.TranscriptOffset = &size
	}
	return ev
}

// readInput reads the hook's JSON input, within ctx (stdin may never end).
func readInput(ctx context.Context, stdin io.Reader) (json.RawMessage, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("read the hook's input: %w", r.err)
		}
		if len(r.b) > maxInput {
			return nil, fmt.Errorf("the hook's input is over %d bytes", maxInput)
		}
		if !json.Valid(r.b) {
			return nil, errors.New("the hook's input is not JSON")
		}
		return r.b, nil
	case <-ctx.Done():
		return nil, errors.New("the hook's input did not end within RECALL_HOOK_TIMEOUT")
	}
}

// OutboxDir is the outbox of a client machine whose (unused) database path
// is dbPath: beside where the database would be.
func OutboxDir(dbPath string) string { return dbPath + ".outbox" }
