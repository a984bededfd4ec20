package main

import (
	"os"
	"os/exec"
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
