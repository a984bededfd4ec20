package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// A server answers most hook events before their writes are done: the hook,
// and Claude Code waiting for it, need only the answer. The request is kept
// in the server's InFlight spool from before the answer until its writes are
// done, so that a server that dies in between (killed, out of memory) leaves
// the request to the next server, which makes its writes (Replay): the writes
// of an answered hook survive a crash of the server as a committed record
// does (see the hooks' records in storage/sqlite: written, not synced, before
// the answer). The file is written without waiting for the disk, tens of
// microseconds; its writes are made under the request's id, so a request
// whose writes were done before its file was removed is not written twice.
//
// It is a spool of its own, not the database's (which every hook and the
// server drain): a request there belongs to the server answering it until
// that server is done with it or dead.

// InFlightDir is the directory where the server answering on the socket at
// sockPath keeps the requests it answered before their writes were done.
func InFlightDir(sockPath string) string {
	return strings.TrimSuffix(sockPath, ".sock") + ".inflight"
}

// inFlight is a request kept in InFlight: the write's kind is its event, and
// its Once the request's id.
type inFlight struct {
	Input      json.RawMessage `json:"input"`
	ReceivedAt time.Time       `json:"received_at"`
	// TranscriptOffset is the transcript's size as the request came (the
	// hook's input does not carry it).
	TranscriptOffset int64 `json:"transcript_offset"`
}

// keep keeps req in InFlight and returns what forgets it; nil when it was not
// kept (no InFlight, or it could not be written: the writes then go before
// the answer).
func (s *Server) keep(req *Request, at time.Time, offset int64) func() {
	if s.InFlight == nil || req.ID == "" {
		return nil
	}
	w, err := s.InFlight.AddUnsynced(req.Event, req.ID, inFlight{Input: req.Input, ReceivedAt: at, TranscriptOffset: offset})
	if err != nil {
		s.log().Warn("hook request not kept; its writes go before its answer", "err", err)
		return nil
	}
	return func() {
		if err := s.InFlight.Remove(w.ID); err != nil {
			s.log().Warn("hook request done but still kept; the next server writes nothing twice", "id", w.ID, "err", err)
		}
	}
}

// Replay makes the writes of the requests a server before this one answered
// but did not see through (it died in between), in the order they came, each
// under its own id and time, and forgets them. Call it once the socket is this
// server's (Listen), so that no other server is answering them still. It
// returns how many it replayed.
func (s *Server) Replay(ctx context.Context) (int, error) {
	if s.InFlight == nil {
		return 0, nil
	}
	res, err := s.InFlight.Drain(ctx, func(ctx context.Context, w spool.Write) error {
		if err := s.replay(ctx, w); err != nil {
			if ctx.Err() != nil {
				return spool.Later(err) // stopping: kept for the next server
			}
			// As the server that answered it would have: logged, and
			// recorded as lost by the store where it keeps such records.
			s.log().Warn("hook request of a server that stopped replayed with an error", "id", w.Once, "event", w.Kind, "err", err)
		}
		return nil
	}, spool.Budget{})
	return res.Applied, err
}

// replay does the whole work of one kept request; its answer goes nowhere.
func (s *Server) replay(ctx context.Context, w spool.Write) error {
	var r inFlight
	if err := json.Unmarshal(w.Data, &r); err != nil {
		return err
	}
	ev, err := ParseEvent(w.Kind)
	if err != nil {
		return err
	}
	in, err := ReadInput(bytes.NewReader(r.Input))
	if err != nil {
		return err
	}
	in.TranscriptOffset = &r.TranscriptOffset
	ctx, cancel := context.WithTimeout(ctx, s.Deadline)
	defer cancel()
	ctx = context.WithValue(spool.WithWriteID(ctx, w.Once), receivedKey{}, r.ReceivedAt)
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
