package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// A server answers most hook events before their writes are done: the hook,
// and Claude Code waiting for it, need only the answer. The request is kept
// in a file of the server's InFlight directory from before the answer until
// its writes are done, so that a server that dies in between (killed, out of
// memory, the machine's power kept) leaves the request to the next server,
// which makes its writes (Replay): the writes of an answered hook survive a
// crash of the server as a committed record does (see the hooks' records in
// storage/sqlite: written, not synced, before the answer). The file is
// written without waiting for the disk, a few tens of microseconds; its
// writes are made under the request's id, so a request whose writes were
// done before its file was removed is not written twice.

// InFlightDir is the directory where the server answering on the socket at
// sockPath keeps the requests it answered before their writes were done.
func InFlightDir(sockPath string) string {
	return strings.TrimSuffix(sockPath, ".sock") + ".inflight"
}

// inFlight is a request kept in InFlight.
type inFlight struct {
	Request
	ReceivedAt time.Time `json:"received_at"`
	// TranscriptOffset is the transcript's size as the request came (the
	// hook's input does not carry it).
	TranscriptOffset int64 `json:"transcript_offset"`
}

const inFlightExt = ".json"

// keep writes req to InFlight and returns what removes it; nil when it was
// not kept (no InFlight, or it could not be written: the writes then go
// before the answer).
func (s *Server) keep(req *Request, at time.Time, offset int64) func() {
	if s.InFlight == "" || !validID(req.ID) {
		return nil
	}
	body, err := json.Marshal(inFlight{Request: *req, ReceivedAt: at, TranscriptOffset: offset})
	if err != nil {
		return nil
	}
	path := filepath.Join(s.InFlight, req.ID+inFlightExt)
	if err := writeNew(path, body); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log().Warn("hook request not kept; its writes go before its answer", "path", path, "err", err)
			return nil
		}
		if err := os.MkdirAll(s.InFlight, 0o700); err != nil {
			s.log().Warn("hook request not kept; its writes go before its answer", "path", path, "err", err)
			return nil
		}
		if err := writeNew(path, body); err != nil {
			s.log().Warn("hook request not kept; its writes go before its answer", "path", path, "err", err)
			return nil
		}
	}
	return func() {
		if err := os.Remove(path); err != nil {
			s.log().Warn("hook request done but its file stays; the next server writes nothing twice", "path", path, "err", err)
		}
	}
}

// writeNew writes body to a new file at path, readable by its owner only.
// One write: a process that dies leaves all of it or (dying before the
// write) an empty file, which Replay drops.
func writeNew(path string, body []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// validID says whether id can name a file: a hook's write id
// (hook-<hex>), not a path.
func validID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// Replay makes the writes of the requests a server before this one answered
// but did not see through (it died in between), oldest first, each under its
// own id and time, and removes their files. Call it once the socket is this
// server's (Listen), so that no other server is answering them still. It
// returns how many it replayed.
func (s *Server) Replay(ctx context.Context) (int, error) {
	if s.InFlight == "" {
		return 0, nil
	}
	entries, err := os.ReadDir(s.InFlight)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var kept []inFlight
	var paths = map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), inFlightExt) {
			continue
		}
		path := filepath.Join(s.InFlight, e.Name())
		body, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		var r inFlight
		if err := json.Unmarshal(body, &r); err != nil || r.ID == "" {
			// Cut short by a crash before its answer went out: the hook
			// did the work itself.
			s.log().Warn("hook request file unreadable; dropped (its hook was not answered and did the work itself)", "path", path, "err", err)
			os.Remove(path)
			continue
		}
		kept = append(kept, r)
		paths[r.ID] = path
	}
	slices.SortFunc(kept, func(a, b inFlight) int { return a.ReceivedAt.Compare(b.ReceivedAt) })
	n := 0
	for _, r := range kept {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		err := s.replay(ctx, r)
		if ctx.Err() != nil {
			return n, ctx.Err() // stopping: the rest is kept for the next server
		}
		if err != nil {
			// As the server that answered it would have: logged, and
			// recorded as lost by the store where it keeps such records.
			s.log().Warn("hook request of a server that stopped replayed with an error", "id", r.ID, "event", r.Event, "err", err)
		}
		os.Remove(paths[r.ID])
		n++
	}
	return n, nil
}

// replay does the whole work of one kept request; its answer goes nowhere.
func (s *Server) replay(ctx context.Context, r inFlight) error {
	ev, err := ParseEvent(r.Event)
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
	ctx = context.WithValue(spool.WithWriteID(ctx, r.ID), receivedKey{}, r.ReceivedAt)
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
