package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// A server answers most hook events before their writes are done: the hook,
// and Claude Code waiting for it, need only the answer. The request is kept
// from before the answer until its writes are done, so that a server that
// dies in between (killed, out of memory) leaves the request to the next
// server, which makes its writes (Replay): the writes of an answered hook
// survive a crash of the server as a committed record does (see the hooks'
// records in storage/sqlite: written, not synced, before the answer). Its
// writes are made under the request's id, so a request whose writes were done
// before the server died is not written twice.
//
// The requests are kept in one file the server appends to, a line each, not a
// file each (as the spool keeps writes): on ext4 every file created finds its
// inode past those freed in the last minutes, which at a hook every few
// milliseconds cost the server 0.4 ms of CPU a request. The file is emptied
// whenever no request is in flight.

// InFlightPath is the file where the server answering on the socket at
// sockPath keeps the requests it answered before their writes were done.
func InFlightPath(sockPath string) string {
	return strings.TrimSuffix(sockPath, ".sock") + ".inflight"
}

// InFlight keeps a server's requests in flight in a file (see InFlightPath).
type InFlight struct {
	path string

	mu      sync.Mutex
	f       *os.File // opened by the first Keep
	pending int      // requests kept and not done
}

// NewInFlight keeps requests in the file at path.
func NewInFlight(path string) *InFlight { return &InFlight{path: path} }

// inFlightLine is a line of the file: a request kept, or (Done) the id of one
// whose writes are done.
type inFlightLine struct {
	ID         string          `json:"id,omitempty"`
	Event      string          `json:"event,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	ReceivedAt time.Time       `json:"received_at,omitzero"`
	// TranscriptOffset is the transcript's size as the request came (the
	// hook's input does not carry it).
	TranscriptOffset int64  `json:"transcript_offset,omitempty"`
	Done             string `json:"done,omitempty"`
}

// keep keeps the request, one line in one write (the file is the owner's
// alone, written without waiting for the disk), and returns what says its
// writes are done.
func (k *InFlight) keep(line inFlightLine) (done func(), err error) {
	head := line
	head.Input = nil // omitted
	b, err := marshalWithInput(line, head, line.Input)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.f == nil {
		if k.f, err = os.OpenFile(k.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
			return nil, err
		}
	}
	if _, err := k.f.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	k.pending++
	return func() { k.done(line.ID) }, nil
}

// done records that the writes of the request id are done: the file is
// emptied when no other is in flight, else the id is noted. A note that
// cannot be written only makes the next server replay the request, which its
// write id makes a no-op while the server's hook write ids are kept (an hour).
func (k *InFlight) done(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending--
	if k.pending == 0 {
		if err := k.f.Truncate(0); err == nil {
			return
		}
	}
	if b, err := json.Marshal(inFlightLine{Done: id}); err == nil {
		_, _ = k.f.Write(append(b, '\n'))
	}
}

// takeOver moves what a server before this one left in the file to the side
// (path.old, after what an earlier replay left there) and returns it, before
// this server keeps anything.
func (k *InFlight) takeOver() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	left, err := os.ReadFile(k.path)
	if errors.Is(err, fs.ErrNotExist) {
		left, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	old := k.path + ".old"
	if len(left) > 0 {
		f, err := os.OpenFile(old, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(left)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	if err := os.Remove(k.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	all, err := os.ReadFile(old)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return all, err
}

// keep keeps req in InFlight and returns what says its writes are done; nil
// when it was not kept (no InFlight, or it could not be written: the writes
// then go before the answer).
func (s *Server) keep(req *Request, at time.Time, offset int64) func() {
	if s.InFlight == nil || req.ID == "" {
		return nil
	}
	done, err := s.InFlight.keep(inFlightLine{ID: req.ID, Event: req.Event, Input: req.Input, ReceivedAt: at, TranscriptOffset: offset})
	if err != nil {
		s.log().Warn("hook request not kept; its writes go before its answer", "err", err)
		return nil
	}
	return done
}

// TakeOver takes what a server before this one left in InFlight, answered but
// not written (it died in between), and returns what makes those writes:
// Replay. Call it once the socket is this server's (Listen), before Serve.
func (s *Server) TakeOver() (*Replay, error) {
	if s.InFlight == nil {
		return &Replay{}, nil
	}
	left, err := s.InFlight.takeOver()
	if err != nil {
		return nil, err
	}
	var kept []inFlightLine
	done := map[string]bool{}
	for _, b := range bytes.Split(left, []byte("\n")) {
		var l inFlightLine
		if len(bytes.TrimSpace(b)) == 0 || json.Unmarshal(b, &l) != nil {
			continue // a line cut short by the crash: its request was not answered
		}
		if l.Done != "" {
			done[l.Done] = true
		} else if l.ID != "" {
			kept = append(kept, l)
		}
	}
	r := &Replay{s: s, old: s.InFlight.path + ".old"}
	for _, l := range kept {
		if !done[l.ID] {
			r.kept = append(r.kept, l)
		}
	}
	return r, nil
}

// Replay is the writes a server that died left undone.
type Replay struct {
	s    *Server
	old  string
	kept []inFlightLine
}

// Run makes the writes, in the order the requests came, each under its id
// and time, and forgets them; it returns how many requests it replayed.
func (r *Replay) Run(ctx context.Context) (int, error) {
	if r.s == nil {
		return 0, nil
	}
	n := 0
	for _, l := range r.kept {
		err := r.s.replay(ctx, l)
		if ctx.Err() != nil {
			return n, ctx.Err() // stopping: kept for the next server
		}
		if err != nil {
			// As the server that answered it would have: logged, and
			// recorded as lost by the store where it keeps such records.
			r.s.log().Warn("hook request of a server that stopped replayed with an error", "id", l.ID, "event", l.Event, "err", err)
		}
		n++
	}
	if err := os.Remove(r.old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return n, err
	}
	return n, nil
}

// replay does the whole work of one kept request; its answer goes nowhere. A
// request that panics the handler is an error, not the end of the server
// (nor of every server after it).
func (s *Server) replay(ctx context.Context, l inFlightLine) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v\n%s", p, debug.Stack())
		}
	}()
	ev, err := ParseEvent(l.Event)
	if err != nil {
		return err
	}
	in, err := ParseInput(l.Input)
	if err != nil {
		return err
	}
	in.TranscriptOffset = &l.TranscriptOffset
	ctx, cancel := context.WithTimeout(ctx, s.Deadline)
	defer cancel()
	ctx = context.WithValue(spool.WithWriteID(ctx, l.ID), receivedKey{}, l.ReceivedAt)
	_, rest, err := s.Handle(ctx, ev, in)
	if rest != nil {
		if rerr := rest(); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", ev, err)
	}
	return nil
}
