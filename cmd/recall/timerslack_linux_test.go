package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

const (
	prSetTimerSlack = 29
	prGetTimerSlack = 30
)

// TestMain answers for TestHooksSleepWithALargerTimerSlack: run as
// `<test binary> hook`, `<test binary> serve` or `<test binary> stats` with RECALL_TEST_PRINT_TIMER_SLACK
// set, it prints the timer slack its process started with and exits.
//
// With RECALL_TEST_RUN_MAIN set it is recall itself: it runs main with its
// arguments (for TestAHookLeavesItsUnmappingToAHelper); with
// RECALL_TEST_HAND_OVER, a process that hands its teardown over and lives on
// a while (for TestTheTeardownHelperHoldsNothingOfTheHook).
func TestMain(m *testing.M) {
	if os.Getenv("RECALL_TEST_RUN_MAIN") != "" {
		main()
	}
	if os.Getenv("RECALL_TEST_HAND_OVER") != "" {
		handOverAndLinger()
	}
	if os.Getenv("RECALL_TEST_PRINT_PROCS") != "" {
		printProcessors() // for TestAHookStartsWithOneProcessor
	}
	if os.Getenv("RECALL_TEST_PRINT_TIMER_SLACK") != "" {
		slack, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerSlack, 0, 0)
		if errno != 0 {
			fmt.Println("error", errno)
			os.Exit(1)
		}
		fmt.Println(slack)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestHooksSleepWithALargerTimerSlack(t *testing.T) {
	// The children are started from this thread, with a slack of its own
	// that they inherit unless they set theirs.
	const inherited = "77777"
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 77777, 0); errno != 0 {
		t.Fatal(errno)
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 0, 0) // back to the default

	slackOf := func(command string) string {
		cmd := exec.Command(os.Args[0], command)
		cmd.Env = append(os.Environ(), "RECALL_TEST_PRINT_TIMER_SLACK=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v (%s)", command, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got, want := slackOf("hook"), "1000000"; got != want {
		t.Errorf("a hook's timer slack is %s ns, want %s", got, want)
	}
	if got, want := slackOf("serve"), "1000000"; got != want {
		t.Errorf("recall serve's timer slack is %s ns, want %s", got, want)
	}
	if got, want := slackOf("stats"), inherited; got != want {
		t.Errorf("recall stats's timer slack is %s ns, want the one it inherits, %s", got, want)
	}
}
