//go:build linux

package main

// A hook's process ends the moment it has answered, and Claude Code waits for
// that end, not only for the answer. Ending a process is mostly tearing down
// its address space: a hook has 25-30 MB of the binary and the libraries
// mapped and a few MB of its own memory, and unmapping them took 0.5-0.6 ms
// of the 0.75 ms between a hook's exit and its parent learning of it, on
// every hook.
//
// So a hook hands its address space to a helper before it exits: a process
// started with clone(CLONE_VM), sharing the hook's memory, whose last act is
// to exit once the hook has. The hook's own exit then only lets go of the
// memory; the helper, the last user, unmaps it after the hook's parent has
// been told, on whichever core is free.
//
// The helper runs a few lines of C on a stack of its own: it blocks every
// signal, closes every file it inherited, waits on a pidfd for the hook's
// process to end (5 s at most) and exits. Before starting it, the hook points
// its standard input, output and error at /dev/null (the answer is written
// by then), so that the helper never holds the pipes Claude Code reads to
// their end, not even for the moment before it closes them. It holds no
// lock: SQLite's locks belong to the hook's process and go with it, as
// before. Once the hook has exited the helper is an orphan, and the
// system's init (or the nearest subreaper) reaps it, as it reaps the
// detached Ollama probe and history indexer. A hook whose parent is the
// first process of its PID namespace (Claude Code as a container's first
// process) starts no helper: that parent would inherit it and, being no
// init, never reap it. Nor where pidfds (Linux 5.3) or the clone fail:
// the hook then exits as it always did.

/*
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#define recallHelperStack (64 * 1024)

// recallTeardownHelper runs in the helper. Only raw system calls: it shares
// the hook's memory, thread-local storage included, and must touch nothing
// but its own stack.
static int recallTeardownHelper(void *arg) {
	int pidfd = (int)(long)arg;
	sigset_t all;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(long));
	if (pidfd > 0) {
		syscall(SYS_close_range, 0, (unsigned)pidfd - 1, 0);
	}
	syscall(SYS_close_range, (unsigned)pidfd + 1, ~0U, 0);
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	struct timespec limit = {.tv_sec = 5};
	syscall(SYS_ppoll, &p, 1, &limit, NULL, sizeof(long));
	syscall(SYS_exit, 0);
	return 0;
}

// recallHandOverTeardown starts the helper; 0 when it runs.
static int recallHandOverTeardown(void) {
	if (getppid() == 1) {
		// The hook's parent is the first process of its PID namespace, an
		// application then (Claude Code as a container's first process),
		// which would inherit the helper and never reap it.
		return -1;
	}
	int pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0) {
		return -1;
	}
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0) {
		close(pidfd);
		return -1;
	}
	for (int fd = 0; fd <= 2; fd++) {
		dup2(null, fd);
	}
	close(null);
	char *stack = mmap(NULL, recallHelperStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		close(pidfd);
		return -1;
	}
	// No CLONE_FILES, no CLONE_THREAD, no exit signal: a process of its
	// own in the hook's memory, with a copy of its file table.
	int pid = clone(recallTeardownHelper, stack + recallHelperStack, CLONE_VM, (void *)(long)pidfd);
	close(pidfd);
	return pid < 0 ? -1 : 0;
}
*/
import "C"

// handOverTeardown gives the unmapping of this process's memory to a helper
// that outlives it by a moment; the caller exits right after, having written
// everything it had to say. It reports whether the helper runs.
func handOverTeardown() bool {
	return C.recallHandOverTeardown() == 0
}
