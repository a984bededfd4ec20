//go:build linux

package main

// A hook lets its threads wake up to a millisecond late from a timed sleep
// (Linux's timer slack; the default is 50 µs). The Go runtime's monitor
// thread, sysmon, sleeps 20 µs at a time for as long as a goroutine runs or
// sits in a C call, and a hook spends most of its life in SQLite's C calls,
// so with the default slack sysmon woke every 60-100 µs through the whole
// hook. On a machine with few cores each waking took the core from the hook's
// own work: 150-190 context switches in a prompt hook. With a millisecond of
// slack sysmon wakes about once a millisecond: a prompt hook made 50 context
// switches and used 2 ms less CPU. A hook's own timers are 10 ms and more
// (the wait for a running server's greeting, the vector budget), and SQLite
// waits for another process's write lock in sleeps of 1 ms and more, so a
// wake-up up to 1 ms late costs little where it happens at all.
//
// `recall serve` gets the same slack: answering the hooks on its socket, its
// sysmon woke as often through every request, and each request cost the
// server 0.5-1 ms more CPU (a prompt 4.1-4.4 against 3.4 ms, a tool call
// 3.0-3.2 against 2.3-2.5), taken on two cores from the hook waiting for it;
// its answers came as soon or sooner. Its own timers (the hooks' deadlines, a
// drain every 5 s) do not mind a millisecond either. Other commands keep the
// slack they inherit.
//
// The slack is set by a C constructor, which runs before the Go runtime
// starts its threads: they inherit it. glibc passes constructors the command
// line; musl does not, so there it is left out.

/*
#include <string.h>
#include <sys/prctl.h>

#define hookTimerSlackNanoseconds 1000000UL

#ifdef __GLIBC__
__attribute__((constructor)) static void recallHookTimerSlack(int argc, char **argv, char **envp) {
	(void)envp;
	if (argc > 1 && (strcmp(argv[1], "hook") == 0 || strcmp(argv[1], "serve") == 0)) {
		prctl(PR_SET_TIMERSLACK, hookTimerSlackNanoseconds);
	}
}
#endif
*/
import "C"
