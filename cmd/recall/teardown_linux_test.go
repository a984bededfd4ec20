package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const prSetChildSubreaper = 36

// TestAHookLeavesItsUnmappingToAHelper runs recall (this test binary, as
// main) as a hook and as another command, with this process as their
// subreaper: an orphan they leave comes to it. A hook's helper must arrive,
// having let go of the hook's output, and end as soon as the hook has (not at
// its 5 s limit); no other command may leave one.
func TestAHookLeavesItsUnmappingToAHelper(t *testing.T) {
	skipOutsideTheInitialPIDNamespace(t)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Skipf("no subreaper here: %v", errno)
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)

	// orphan reaps a child this test did not start, waiting up to limit,
	// and says how long that took; -1 when none came.
	orphan := func(limit time.Duration) time.Duration {
		start := time.Now()
		for {
			var ws syscall.WaitStatus
			pid, _ := syscall.Wait4(-1, &ws, syscall.WNOHANG|syscall.WALL, nil)
			if pid > 0 {
				if !ws.Exited() || ws.ExitStatus() != 0 {
					t.Errorf("the helper ended with %v", ws)
				}
				return time.Since(start)
			}
			if time.Since(start) > limit {
				return -1
			}
			time.Sleep(time.Millisecond)
		}
	}
	recall := func(args ...string) (stdout, stderr string) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "RECALL_TEST_RUN_MAIN=1", "RECALL_LOG_LEVEL=error")
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("recall %s: %v (%s)", strings.Join(args, " "), err, errOut.String())
		}
		return out.String(), errOut.String()
	}

	// A hook without an event says so and exits 0: the shortest hook.
	// Run returns only once stdout and stderr are closed by every process
	// holding them: the helper has let go of them.
	_, stderr := recall("hook")
	if !strings.Contains(stderr, "want exactly one hook event") {
		t.Fatalf("recall hook wrote %q to stderr, want its complaint in full", stderr)
	}
	switch took := orphan(4 * time.Second); {
	case took < 0:
		t.Fatal("recall hook left no helper to unmap its memory")
	case took > 2*time.Second:
		t.Errorf("the helper ended %v after the hook, want at once (it waits on the hook's pidfd)", took)
	}

	if out, _ := recall("--version"); out == "" {
		t.Fatal("recall --version printed nothing")
	}
	if orphan(200*time.Millisecond) >= 0 {
		t.Error("recall --version left a helper; only hooks do")
	}
}

// handOverAndLinger answers like a hook, hands its teardown over and lives
// on for half a second before it exits: long enough to look at its helper.
// With RECALL_TEST_HAND_OVER=report it says whether a helper started, and
// exits at once.
func handOverAndLinger() {
	if os.Getenv("RECALL_TEST_HAND_OVER") == "report" {
		fmt.Println("helper", handOverTeardownReport())
		os.Exit(0)
	}
	fmt.Println("the answer")
	if !handOverTeardown() {
		os.Exit(3)
	}
	time.Sleep(500 * time.Millisecond)
	os.Exit(0)
}

// handOverTeardownReport hands over with its output kept: the report is
// printed after handOverTeardown has pointed stdout at /dev/null.
func handOverTeardownReport() bool {
	out, err := syscall.Dup(1)
	if err != nil {
		panic(err)
	}
	started := handOverTeardown()
	syscall.Dup2(out, 1)
	return started
}

// skipOutsideTheInitialPIDNamespace skips a test that needs a helper where
// none is started.
func skipOutsideTheInitialPIDNamespace(t *testing.T) {
	if ns, _ := os.Readlink("/proc/self/ns/pid"); ns != "pid:[4026531836]" {
		t.Skipf("this test runs in PID namespace %s, not the system's: no helper is started here", ns)
	}
}

// In a PID namespace of its own (a container's) a hook starts no helper: the
// namespace's first process, whatever the image runs, may reap nothing and
// would collect one zombie per hook.
func TestNoTeardownHelperInAnotherPIDNamespace(t *testing.T) {
	run := func(newNamespace bool) string {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "RECALL_TEST_HAND_OVER=report")
		if newNamespace {
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
		}
		out, err := cmd.Output()
		if err != nil && newNamespace {
			t.Skipf("no new PID namespace here: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run(true); got != "helper false" {
		t.Errorf("in a PID namespace of its own: %q, want %q", got, "helper false")
	}
	if ns, _ := os.Readlink("/proc/self/ns/pid"); ns == "pid:[4026531836]" {
		if got := run(false); got != "helper true" {
			t.Errorf("in the system's PID namespace: %q, want %q", got, "helper true")
		}
	}
}

// TestTheTeardownHelperHoldsNothingOfTheHook starts a process that answers,
// hands its teardown over and lives on, with its output on a pipe: the pipe
// must reach its end while the process still runs (Claude Code reads a hook's
// output to its end as well as waiting for its exit), the helper must hold no
// file but its pidfd of the process, and it must end once the process has.
func TestTheTeardownHelperHoldsNothingOfTheHook(t *testing.T) {
	skipOutsideTheInitialPIDNamespace(t)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Skipf("no subreaper here: %v", errno)
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "RECALL_TEST_HAND_OVER=1")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	out, err := io.ReadAll(r) // to the pipe's end
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "the answer\n" {
		t.Fatalf("the process wrote %q", out)
	}
	// Not waited for yet: an ended process is a zombie (Z) until then.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if _, after, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(after, "Z") {
		t.Fatal("the output reached its end only when the process ended: something held it")
	}

	// The children of each of its threads (the helper is the child of the
	// thread that ran the C call), once it is started: the output ends just
	// before.
	var helpers []string
	for start := time.Now(); len(helpers) == 0 && time.Since(start) < 2*time.Second; time.Sleep(time.Millisecond) {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", cmd.Process.Pid, task.Name()))
			helpers = append(helpers, strings.Fields(string(children))...)
		}
	}
	if len(helpers) != 1 {
		t.Fatalf("the process has children %q, want its one helper", helpers)
	}
	// The helper closes what it inherited as soon as it runs: give it the
	// time to be scheduled.
	var held []string
	for start := time.Now(); time.Since(start) < 2*time.Second; time.Sleep(time.Millisecond) {
		fds, err := os.ReadDir("/proc/" + helpers[0] + "/fd")
		if err != nil {
			t.Fatal(err)
		}
		held = held[:0]
		for _, fd := range fds {
			if target, _ := os.Readlink("/proc/" + helpers[0] + "/fd/" + fd.Name()); target != "anon_inode:[pidfd]" {
				held = append(held, fd.Name()+": "+target)
			}
		}
		if len(held) == 0 {
			break
		}
	}
	if len(held) > 0 {
		t.Errorf("the helper holds %q, want only its pidfd", held)
	}

	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	helper, _ := strconv.Atoi(helpers[0])
	start := time.Now()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(helper, &ws, syscall.WNOHANG|syscall.WALL, nil)
		if pid == helper {
			break
		}
		if err != nil || time.Since(start) > 4*time.Second {
			t.Fatalf("the helper did not end after the process (%v)", err)
		}
		time.Sleep(time.Millisecond)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the helper ended %v after the process, want at once", took)
	}
}
