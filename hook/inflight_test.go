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
	path := filepath.Join(dir, "recall.db.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	w := &writesAfter{release: make(chan struct{})}
	var released sync.Once
	release := func() { released.Do(func() { close(w.release) }) }
	kept := spool.New(InFlightDir(path), nil)
	s := &Server{Handle: w.handle, InFlight: kept, Deadline: 5 * time.Second, UID: os.Getuid()}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); s.Serve(ctx, ln) }()
	defer func() { release(); cancel(); <-served }()

	a, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: PostToolUse, Input: json.RawMessage(`{"tool_name":"Bash"}`)}, time.Second, 5*time.Second)
	if err != nil || a.Output == nil {
		t.Fatalf("Ask = %+v, %v; want the answer before the writes", a, err)
	}
	if got := w.written(); len(got) != 0 {
		t.Fatalf("written before the answer: %q", got)
	}
	files, _ := os.ReadDir(InFlightDir(path))
	if n, _ := kept.Pending(); n != 1 || len(files) != 1 {
		t.Fatalf("%d requests kept while the writes wait; want 1", n)
	}
	if fi, err := files[0].Info(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the kept request is not its owner's alone: %v, %v", fi, err)
	}
	release()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if n, _ := kept.Pending(); n == 0 {
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
	path := filepath.Join(dir, "recall.db.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &writesAfter{release: make(chan struct{})}
	time.AfterFunc(200*time.Millisecond, func() { close(w.release) }) // writes that take a while
	// InFlight under a file: neither it nor its requests can be made.
	s := &Server{Handle: w.handle, InFlight: spool.New(filepath.Join(blocked, "inflight"), nil), Deadline: 5 * time.Second, UID: os.Getuid()}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); s.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()
	if _, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: PostToolUse, Input: json.RawMessage(`{}`)}, time.Second, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := w.written(); len(got) != 1 {
		t.Fatalf("written before the answer: %q; want the one request", got)
	}
}

// The requests a server answered but did not write (it died) are written by
// the next one, under their ids and times, in the order they came, once; a
// file cut short is set aside.
func TestReplayWritesWhatAStoppedServerAnswered(t *testing.T) {
	dir := InFlightDir(filepath.Join(t.TempDir(), "recall.db.sock"))
	stopped := &Server{InFlight: spool.New(dir, nil)}
	t1 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for i, id := range []string{"hook-b", "hook-a"} {
		if stopped.keep(&Request{ID: id, Event: []string{Stop, PostToolUse}[i], Input: json.RawMessage(`{"session_id":"s1"}`)}, t1.Add(time.Duration(i)*time.Second), 7) == nil {
			t.Fatal("not kept")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "99999999999999999999-1-torn.json"), []byte(`{"id":"hook-c","ev`), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &writesAfter{release: make(chan struct{})}
	close(w.release)
	next := &Server{Handle: w.handle, InFlight: spool.New(dir, nil), Deadline: 5 * time.Second}
	n, err := next.Replay(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("Replay = %d, %v; want 2", n, err)
	}
	got := w.written()
	if len(got) != 2 || got[0] != "hook-b stop" || got[1] != "hook-a post-tool-use" {
		t.Fatalf("replayed %q; want hook-b's stop, then hook-a's post-tool-use (the order they came)", got)
	}
	if !w.at[0].Equal(t1) || !w.at[1].Equal(t1.Add(time.Second)) {
		t.Fatalf("replayed at %v; want the times they came", w.at)
	}
	if n, _ := next.InFlight.Pending(); n != 0 {
		t.Fatalf("%d requests left after the replay", n)
	}
	if n, err := next.Replay(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second Replay = %d, %v; want nothing", n, err)
	}
}
