package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// While a `recall serve` runs for a database it answers hooks on a local socket
// beside it: the hook sends one request and prints the answer, and the server
// answers from its warm indexes and does the writes. Without a server, or when
// it does not answer in time, the hook does the work itself.
//
// On a Unix socket a connection succeeds as soon as the kernel queues it,
// whether or not the server ever takes it, so the server greets every
// connection it takes (after checking who made it) and the hook sends its
// request only after the greeting: a server that is stuck, or too busy to take
// the connection within a few milliseconds, costs a hook those milliseconds
// and never sees the request.

// greeting is the server's first line on every connection it takes.
const greeting = "recall-hooks 1\n"

// Request is one hook event handed to a server.
type Request struct {
	// ID names the hook's writes: a server that wrote them but never
	// answered and the hook that then does the work itself apply them once.
	ID    string          `json:"id"`
	Event string          `json:"event"`
	Input json.RawMessage `json:"input"` // the hook's stdin as Claude Code wrote it
}

// Answer is the server's reply: what the hook prints (nil: nothing), or why
// the event was not answered.
type Answer struct {
	Output *Output `json:"output,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// SocketPath is the socket of the database at dbPath.
func SocketPath(dbPath string) string { return dbPath + ".sock" }

// ServerSocketPath is the socket of the database server at dbURL (a
// PostgreSQL database), in dir (the directory of this machine's Recall files,
// beside the SQLite path): one socket per database, named by a digest of the
// URL without its password, so that servers of two databases on one machine
// never answer each other's hooks, and a changed password keeps the socket.
func ServerSocketPath(dir, dbURL string) string {
	return filepath.Join(dir, spool.ServerName(dbURL)+".sock")
}

// ErrNoServer is Ask's error when no server listens: the hook does the work.
var ErrNoServer = errors.New("no recall serve answers hooks for this database")

// ErrNotTaken is Ask's error when a server's socket is there but nobody greets
// the hook within the connect wait (a server stuck or too busy, or one that
// refused the connection): the request was not sent, so nothing was done.
var ErrNotTaken = fmt.Errorf("%w in time", ErrNoServer)

// Ask sends req to the server at path and returns its answer. It gives up with
// an error when nobody listens or no server takes the connection within
// connectWait (both ErrNoServer: the request was not sent), or when no answer
// comes within answerWait (the server may have begun the work): the caller then
// does the work itself.
func Ask(ctx context.Context, path string, req Request, connectWait, answerWait time.Duration) (*Answer, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, ErrNoServer
	}
	// The connection and the greeting share the connect wait.
	taken := within(ctx, connectWait)
	d := net.Dialer{Deadline: taken}
	conn, err := d.DialContext(ctx, "unix", path)
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %v", ErrNoServer, err) // a socket left by a server that died
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %v", ErrNotTaken, connectWait, err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	conn.SetDeadline(taken)
	if hello, err := r.ReadString('\n'); err != nil || hello != greeting {
		if err == nil {
			err = fmt.Errorf("greeted with %q", hello)
		}
		return nil, fmt.Errorf("%w (%s): %v", ErrNotTaken, connectWait, err)
	}
	conn.SetDeadline(within(ctx, answerWait))
	line, err := marshalWithInput(req, requestHead{req.ID, req.Event}, req.Input)
	if err != nil {
		return nil, fmt.Errorf("send to recall serve: %w", err)
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("send to recall serve: %w", err)
	}
	var a Answer
	if err := json.NewDecoder(r).Decode(&a); err != nil {
		return nil, fmt.Errorf("no answer from recall serve: %w", err)
	}
	return &a, nil
}

// marshalWithInput is json.Marshal of whole, written as head (whole without
// its input) and then input, the hook's input as it was read, as it is:
// encoding/json would go through all of it again to check and compact it,
// megabytes for a file read. Input with a line break in it (not as Claude
// Code writes it) is left to json.Marshal, so that the result is one line.
func marshalWithInput(whole, head any, input json.RawMessage) ([]byte, error) {
	if len(input) == 0 || bytes.ContainsAny(input, "\r\n") {
		return json.Marshal(whole)
	}
	h, err := json.Marshal(head)
	if err != nil || len(h) < 2 || h[len(h)-1] != '}' {
		return json.Marshal(whole)
	}
	b := make([]byte, 0, len(h)+len(input)+12)
	b = append(b, h[:len(h)-1]...)
	if len(h) > 2 {
		b = append(b, ',')
	}
	b = append(b, `"input":`...)
	b = append(b, input...)
	return append(b, '}'), nil
}

// requestHead is a Request without its input.
type requestHead struct {
	ID    string `json:"id"`
	Event string `json:"event"`
}

// inputKey is where marshalWithInput puts the input: the first `,"input":`
// outside a string is the top level's, after a head of strings.
var inputKey = []byte(`,"input":`)

// parseRequest decodes a request. One written by marshalWithInput, its input
// last, is split there: its head is decoded and its input left for ParseInput
// to decode, once. Any other is decoded whole.
func parseRequest(b []byte, req *Request) error {
	b = bytes.TrimRight(b, " \t\r\n")
	if i := bytes.Index(b, inputKey); i > 0 && b[len(b)-1] == '}' {
		var head requestHead
		if json.Unmarshal(append(b[:i:i], '}'), &head) == nil {
			if input := b[i+len(inputKey) : len(b)-1]; len(bytes.TrimSpace(input)) > 0 {
				*req = Request{ID: head.ID, Event: head.Event, Input: json.RawMessage(input)}
				return nil
			}
		}
	}
	return json.Unmarshal(b, req)
}

// within is the time d from now, or ctx's deadline when that comes first.
func within(ctx context.Context, d time.Duration) time.Time {
	t := time.Now().Add(d)
	if dl, ok := ctx.Deadline(); ok && dl.Before(t) {
		return dl
	}
	return t
}

// HandleFunc answers one event for a server; spool.WriteID(ctx) names its
// writes.
type HandleFunc func(ctx context.Context, event string, in *Input) (*Output, error)

// FirstFunc answers one event for a server as soon as the answer is known and
// returns the rest of the event's work, its writes, which the server does
// after sending the answer (nil: nothing is left; see Handler.HandleFirst).
// spool.WriteID(ctx) names the writes and ReceivedAt(ctx) is when the event
// came.
type FirstFunc func(ctx context.Context, event string, in *Input) (out *Output, rest func() error, err error)

type receivedKey struct{}

// ReceivedAt is when the server received the event of ctx's request (its
// records carry that time, also when they are written after the answer or
// by the next server); false outside a server's request.
func ReceivedAt(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(receivedKey{}).(time.Time)
	return t, ok
}

// Listen makes the socket at path, readable and writable by its owner only. A
// socket left by a server that died is replaced; one a live server answers on
// is not (ErrServing).
func Listen(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		if conn, derr := net.DialTimeout("unix", path, 100*time.Millisecond); derr == nil {
			conn.Close()
			return nil, ErrServing
		}
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return nil, err
		}
		if ln, err = net.Listen("unix", path); err != nil {
			return nil, err
		}
	}
	// The peer check below is the guard; the mode keeps other users from
	// connecting at all.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, nil
}

// ErrServing is Listen's error when another server already answers on the
// socket (another window's recall serve for the same database).
var ErrServing = errors.New("another recall serve answers hooks for this database")

// Server answers hooks on a socket.
type Server struct {
	Handle FirstFunc
	// InFlight keeps each request whose writes come after its answer until
	// they are done, so that a server that dies between the two leaves it
	// to the next one (TakeOver) instead of losing it; nil answers every
	// request after its writes.
	InFlight *InFlight
	// Deadline bounds one request (reading it, the work, the answer, the
	// writes after it).
	Deadline time.Duration
	// UID is the only user whose hooks are answered; os.Getuid() in practice.
	UID    int
	Logger *slog.Logger
}

// Serve answers connections on ln until ctx ends, one request each, and waits
// for those in flight.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Go(func() { s.serveConn(ctx, conn) })
	}
}

func (s *Server) serveConn(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	log := s.log()
	if uid, err := peerUID(conn); err != nil || uid != s.UID {
		log.Warn("hook socket: connection refused", "peer_uid", uid, "want_uid", s.UID, "err", err)
		return
	}
	// A request is seen through once taken: a server stopping waits for it
	// (Serve), rather than dropping writes it may have answered for.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.Deadline)
	defer cancel()
	conn.SetDeadline(time.Now().Add(s.Deadline))
	if _, err := io.WriteString(conn, greeting); err != nil {
		log.Debug("hook socket: the hook left before the greeting", "err", err)
		return
	}
	var req Request
	b, err := readRawInput(io.LimitReader(conn, maxInputBytes+4096))
	if err == nil {
		err = parseRequest(b, &req)
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && len(b) == 0 {
			// It gave up waiting for the greeting and does the work itself.
			log.Debug("hook socket: the hook left before sending its request")
			return
		}
		log.Warn("hook socket: bad request", "err", err)
		return
	}
	a, rest := s.answer(ctx, &req)
	if err := json.NewEncoder(conn).Encode(a); err != nil {
		log.Warn("hook socket: answer not sent", "event", req.Event, "err", err)
	}
	if rest != nil {
		rest()
	}
}

// answer answers req and returns the rest of its work, to be done after the
// answer is sent (nil: none). A request whose writes come after its answer is
// kept in InFlight first, and forgotten once they are done; when it cannot be
// kept, its writes are made before the answer.
func (s *Server) answer(ctx context.Context, req *Request) (a *Answer, rest func()) {
	var kept func()
	defer func() {
		if p := recover(); p != nil {
			// Answered with the error, as before the writes came after the
			// answer, and forgotten: a request that panics the handler must
			// not be replayed by every server that starts.
			s.log().Error("hook request failed", "hook", req.Event, "err", fmt.Errorf("internal error: %v\n%s", p, debug.Stack()))
			if kept != nil {
				kept()
			}
			a, rest = &Answer{Error: fmt.Sprintf("internal error: %v", p)}, nil
		}
	}()
	ev, err := ParseEvent(req.Event)
	if err != nil {
		return &Answer{Error: err.Error()}, nil
	}
	in, err := ParseInput(req.Input)
	if err != nil {
		return &Answer{Error: err.Error()}, nil
	}
	at := time.Now().UTC()
	// The transcript as it is now, not after the answer: Claude Code goes on
	// writing it once the hook answers.
	offset := transcriptOffset(in)
	in.TranscriptOffset = &offset
	if ev != SessionStart { // its answer comes after its record
		kept = s.keep(req, at, offset)
	}
	ctx = context.WithValue(spool.WithWriteID(ctx, req.ID), receivedKey{}, at)
	out, work, err := s.Handle(ctx, ev, in)
	if work != nil {
		rest = func() { s.finish(ev, work, kept) }
		if kept == nil {
			rest() // not kept: the writes go before the answer
			rest = nil
		}
	} else if kept != nil {
		kept()
	}
	if err != nil {
		return &Answer{Error: err.Error()}, rest
	}
	return &Answer{Output: out}, rest
}

// finish does the rest of an event's work, then forgets the request kept for
// it.
func (s *Server) finish(ev string, work func() error, kept func()) {
	defer func() {
		if p := recover(); p != nil {
			s.log().Error("hook writes after the answer failed", "hook", ev, "err", fmt.Errorf("internal error: %v\n%s", p, debug.Stack()))
		}
		if kept != nil {
			kept()
		}
	}()
	if err := work(); err != nil {
		s.log().Warn("hook writes after the answer failed", "hook", ev, "err", err)
	}
}

func (s *Server) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
