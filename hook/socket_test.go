package hook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// serveSocket answers hooks on a socket in a temporary directory with handle,
// for the user uid, until the test ends.
func serveSocket(t *testing.T, uid int, handle HandleFunc) string {
	t.Helper()
	return serve(t, t.TempDir(), &Server{Handle: First(handle), Deadline: 5 * time.Second, UID: uid})
}

// serve runs s on the socket recall.db.sock in dir until the test ends and
// returns the socket's path.
func serve(t *testing.T, dir string, s *Server) string {
	t.Helper()
	path := filepath.Join(dir, "recall.db.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(ctx, ln)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return path
}

func echoHandler(ctx context.Context, event string, in *Input) (*Output, error) {
	return contextOutput(event, "prompt "+in.Prompt+" under "+spool.WriteID(ctx)), nil
}

func TestSocketAnswersItsOwner(t *testing.T) {
	path := serveSocket(t, os.Getuid(), echoHandler)
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v (%v), want 0600", info.Mode(), err)
	}
	a, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: UserPromptSubmit, Input: json.RawMessage(`{"prompt":"cache?"}`)}, time.Second, 5*time.Second)
	if err != nil || a.Output == nil || a.Output.HookSpecificOutput.AdditionalContext != "prompt cache? under hook-1" {
		t.Fatalf("Ask = %+v, %v", a, err)
	}
	a, err = Ask(context.Background(), path, Request{ID: "hook-2", Event: "nonsense", Input: json.RawMessage(`{}`)}, time.Second, 5*time.Second)
	if err != nil || !strings.Contains(a.Error, "invalid hook event") {
		t.Fatalf("a bad event should be answered with its error: %+v, %v", a, err)
	}
}

func TestSocketRefusesOtherUsers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peer credentials are checked on Linux (SO_PEERCRED)")
	}
	// The server answers only a user who is not us: our connection is
	// refused by the kernel's word on who we are.
	path := serveSocket(t, os.Getuid()+1, echoHandler)
	_, err := Ask(context.Background(), path, Request{ID: "hook-1", Event: UserPromptSubmit, Input: json.RawMessage(`{"prompt":"cache?"}`)}, time.Second, 5*time.Second)
	if err == nil {
		t.Fatal("a connection from another user was answered")
	}
	if !errors.Is(err, ErrNotTaken) {
		t.Fatalf("a refused hook should know that it sent nothing (ErrNotTaken): %v", err)
	}
}

// On a Unix socket the kernel completes a connection nobody takes; the hook
// waits for the server's greeting, not for an answer, and sends nothing.
func TestAskGivesUpOnAServerThatTakesNoConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recall.db.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // never accepts
	start := time.Now()
	_, err = Ask(context.Background(), path, Request{ID: "hook-1", Event: UserPromptSubmit, Input: json.RawMessage(`{"prompt":"cache?"}`)}, 20*time.Millisecond, time.Minute)
	if !errors.Is(err, ErrNotTaken) || !errors.Is(err, ErrNoServer) {
		t.Fatalf("Ask = %v, want ErrNotTaken", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Ask waited %s for a server that never took the connection", took)
	}
	// On a busy machine the 20 ms may pass before the dial was made: then
	// there is no connection to take and nothing was sent.
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(2 * time.Second))
	conn, err := ln.Accept()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(time.Second))
	if b, _ := io.ReadAll(conn); len(b) != 0 {
		t.Fatalf("the hook sent %q before it was greeted", b)
	}
}

func TestSocketModeKeepsOtherUsersOut(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	python, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skip("/usr/bin/python3 is not installed")
	}
	// A directory anyone may enter: the socket's own mode is the guard.
	dir, err := os.MkdirTemp("", "recall-socket-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "recall.db.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	connect := func(uid uint32) int {
		cmd := exec.Command(python, "-c", `import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except PermissionError:
    sys.exit(3)`, path)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if code := connect(0); code != 0 {
		t.Fatalf("the owner's client exited %d; the check itself is broken", code)
	}
	if code := connect(65534); code != 3 {
		t.Fatalf("user 65534 connecting to the 0600 socket exited %d, want a permission error (3)", code)
	}
}

func TestListenReplacesADeadServersSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recall.db.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the file stays, nobody listens: a server that died
	ln, err = Listen(path)
	if err != nil {
		t.Fatalf("a dead server's socket should be replaced: %v", err)
	}
	defer ln.Close()
	if _, err := Listen(path); err != ErrServing {
		t.Fatalf("a second server should leave the socket to the first: %v", err)
	}
}

// First is handle as a FirstFunc: all its work done before it answers.
func First(handle HandleFunc) FirstFunc {
	return func(ctx context.Context, event string, in *Input) (*Output, func() error, error) {
		out, err := handle(ctx, event, in)
		return out, nil, err
	}
}
