package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// writesAfter is a handler whose writes, the rest of its work, wait until
// released; it tells which requests it wrote, under which id and time.
type writesAfter struct {
	release chan struct{}
	mu      sync.Mutex
	wrote   []string // write id and event
	at      []time.Time
}

func (w *writesAfter) handle(ctx context.Context, event string, in *Input) (*Output, func() error, error) {
	return contextOutput(event, "answered"), func() error {
		<-w.release
		at, _ := ReceivedAt(ctx)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.wrote = append(w.wrote, spool.WriteID(ctx)+" "+event)
		w.at = append(w.at, at)
		return nil
	}, nil
}

func (w *writesAfter) written() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.wrote...)
}

// A server answers before the event's writes and keeps the request in its
// in-flight directory until they are done.
func TestServerAnswersBeforeTheWritesAndKeepsTheRequestUntilThen(t *testing.T) {
	dir := t.TempDir()
	w := &writesAfter{release: make(chan struct{})}
	var released sync.Once
	release := func() { released.Do(func() { close(w.release) }) }
	file := filepath.Join(dir, "recall.db.inflight")
	path := serve(t, dir, &Server{Handle: w.handle, InFlight: NewInFlight(file), Deadline: 5 * time.Second, UID: os.Getuid()})
	t.Cleanup(release) // before the server stops

	a, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: PostToolUse, Input: json.RawMessage(`{"tool_name":"Bash"}`)}, time.Second, 5*time.Second)
	if err != nil || a.Output == nil {
		t.Fatalf("Ask = %+v, %v; want the answer before the writes", a, err)
	}
	if got := w.written(); len(got) != 0 {
		t.Fatalf("written before the answer: %q", got)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() == 0 {
		t.Fatalf("the request is not kept (a line in a 0600 file) while its writes wait: %v, %v", fi, err)
	}
	release()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if fi, err := os.Stat(file); err == nil && fi.Size() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request stays kept after its writes were done")
		}
	}
	if got := w.written(); len(got) != 1 || got[0] != "hook-1 post-tool-use" {
		t.Fatalf("written %q; want the request's writes under its id", got)
	}
}

// A server that cannot keep the request makes its writes before it answers.
func TestServerThatCannotKeepARequestWritesBeforeItAnswers(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &writesAfter{release: make(chan struct{})}
	time.AfterFunc(200*time.Millisecond, func() { close(w.release) }) // writes that take a while
	// InFlight under a file: neither it nor its requests can be made.
	path := serve(t, dir, &Server{Handle: w.handle, InFlight: NewInFlight(filepath.Join(blocked, "inflight")), Deadline: 5 * time.Second, UID: os.Getuid()})
	if _, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: PostToolUse, Input: json.RawMessage(`{}`)}, time.Second, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); len(got) != 1 {
		t.Fatalf("written before the answer: %q; want the one request", got)
	}
}

// The requests a server answered but did not write (it died) are written by
// the next one, under their ids and times, in the order they came, once; a
// request whose writes were done, and a line cut short, are not.
func TestReplayWritesWhatAStoppedServerAnswered(t *testing.T) {
	file := InFlightPath(filepath.Join(t.TempDir(), "recall.db.sock"))
	stopped := &Server{InFlight: NewInFlight(file)}
	t1 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	keep := func(id, event string, at time.Time) func() {
		done := stopped.keep(&Request{ID: id, Event: event, Input: json.RawMessage(`{"session_id":"s1"}`)}, at, 7)
		if done == nil {
			t.Fatal("not kept")
		}
		return done
	}
	keep("hook-b", Stop, t1)
	keep("hook-x", PostToolUse, t1.Add(time.Second))() // done
	keep("hook-a", PostToolUse, t1.Add(2*time.Second))
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"hook-c","ev`) // the server died writing it
	f.Close()

	w := &writesAfter{release: make(chan struct{})}
	close(w.release)
	next := &Server{Handle: w.handle, InFlight: NewInFlight(file), Deadline: 5 * time.Second}
	replay, err := next.TakeOver()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the stopped server's file is still where the next one keeps its own: %v", err)
	}
	n, err := replay.Run(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Replay = %d, %v; want 2", n, err)
	}
	got := w.written()
	if len(got) != 2 || got[0] != "hook-b stop" || got[1] != "hook-a post-tool-use" {
		t.Fatalf("replayed %q; want hook-b's stop, then hook-a's post-tool-use (the order they came)", got)
	}
	if !w.at[0].Equal(t1) || !w.at[1].Equal(t1.Add(2*time.Second)) {
		t.Fatalf("replayed at %v; want the times they came", w.at)
	}
	replay, err = next.TakeOver()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := replay.Run(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second replay = %d, %v; want nothing", n, err)
	}
}

// A server's file is emptied whenever no request is in flight, and notes the
// requests done while others are.
func TestInFlightEmptiesWhenNothingIsInFlight(t *testing.T) {
	file := filepath.Join(t.TempDir(), "recall.db.inflight")
	s := &Server{InFlight: NewInFlight(file)}
	size := func() int64 {
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	a := s.keep(&Request{ID: "hook-a", Event: Stop, Input: json.RawMessage(`{}`)}, time.Now(), 0)
	b := s.keep(&Request{ID: "hook-b", Event: Stop, Input: json.RawMessage(`{}`)}, time.Now(), 0)
	two := size()
	a()
	if size() <= two {
		t.Fatalf("hook-a done while hook-b is in flight left the file at %d bytes; want hook-a's end noted", size())
	}
	b()
	if n := size(); n != 0 {
		t.Fatalf("nothing in flight, the file holds %d bytes; want it emptied", n)
	}
}

// A request that panics the handler is answered with the error and not kept;
// one kept by a server that died, whose replay panics, is dropped with an
// error logged, not the end of the next server (nor of every one after it).
func TestARequestThatPanicsIsNeitherKeptNorReplayedForever(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "recall.db.inflight")
	panics := func(ctx context.Context, event string, in *Input) (*Output, func() error, error) {
		panic("a bug on this input")
	}
	path := serve(t, dir, &Server{Handle: panics, InFlight: NewInFlight(file), Deadline: 5 * time.Second, UID: os.Getuid()})
	a, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: PostToolUse, Input: json.RawMessage(`{}`)}, time.Second, 5*time.Second)
	if err != nil || a.Error == "" {
		t.Fatalf("Ask = %+v, %v; want the error as the answer", a, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Size() != 0 {
		t.Fatalf("the request that panicked is still kept: %v, %v", fi, err)
	}

	// A server that died with it kept.
	(&Server{InFlight: NewInFlight(file)}).keep(&Request{ID: "hook-2", Event: PostToolUse, Input: json.RawMessage(`{}`)}, time.Now(), 0)
	next := &Server{Handle: panics, InFlight: NewInFlight(file), Deadline: 5 * time.Second}
	replay, err := next.TakeOver()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := replay.Run(context.Background()); err != nil || n != 1 {
		t.Fatalf("Run = %d, %v; want the request tried once", n, err)
	}
	replay, err = next.TakeOver()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := replay.Run(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second replay = %d, %v; want nothing left", n, err)
	}
}
