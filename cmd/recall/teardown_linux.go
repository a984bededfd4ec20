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
// The helper runs a few lines of C on a stack of its own, with raw system
// calls (glibc's would write errno into the hook's thread-local storage): it
// blocks every signal, closes every file it inherited, waits on a pidfd for
// the hook's process to end (5 s at most) and exits. Before starting it, the
// hook points its standard input, output and error at /dev/null (the answer
// is written by then), so that the helper never holds the pipes Claude Code
// reads to their end, not even for the moment before it closes them. It
// holds no lock: SQLite's locks belong to the hook's process and go with it,
// as before.
//
// Once the hook has exited the helper is an orphan, reaped by the init of
// its PID namespace (or the nearest subreaper). So a hook starts one only in
// the system's own PID namespace, whose init (systemd, or whatever boots the
// machine) reaps what it inherits: in a container the first process is
// whatever the image runs, often a program that reaps nothing (`sleep
// infinity`, Claude Code itself), and every hook would leave a zombie there.
// Nor where pidfds (Linux 5.3) or the clone fail, or on other processors than
// x86-64 and arm64: the hook then exits as it always did.

/*
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
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

// The inode of the initial PID namespace (PROC_PID_INIT_INO), as
// /proc/self/ns/pid names it.
#define recallInitialPIDNamespace "pid:[4026531836]"

#define recallHelperStack (64 * 1024)

#if defined(__has_attribute)
#if __has_attribute(no_stack_protector)
#define recallNoStackProtector __attribute__((no_stack_protector))
#endif
#endif
#ifndef recallNoStackProtector
#define recallNoStackProtector
#endif

#if defined(__x86_64__) || defined(__aarch64__)
#define recallHelperRuns 1

// recallRawSyscall makes a system call without glibc: no errno is written
// (errno lives in the thread-local storage of the hook's thread, which the
// helper shares and must not touch).
static inline long recallRawSyscall(long n, long a, long b, long c, long d, long e) {
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
	return ret;
#else
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
	return x0;
#endif
}

// recallTeardownHelper runs in the helper: raw system calls on a stack of its
// own, nothing else of the hook's memory read or written.
static recallNoStackProtector int recallTeardownHelper(void *arg) {
	long pidfd = (long)arg;
	unsigned long all = ~0UL;
	recallRawSyscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, 0, sizeof all, 0);
	if (pidfd > 0) {
		recallRawSyscall(SYS_close_range, 0, pidfd - 1, 0, 0, 0);
	}
	recallRawSyscall(SYS_close_range, pidfd + 1, ~0U, 0, 0, 0);
	struct pollfd p = {.fd = (int)pidfd, .events = POLLIN};
	struct timespec limit = {.tv_sec = 5};
	recallRawSyscall(SYS_ppoll, (long)&p, 1, (long)&limit, 0, sizeof all);
	for (;;) {
		recallRawSyscall(SYS_exit, 0, 0, 0, 0, 0);
	}
	return 0;
}

// recallInInitialPIDNamespace reports whether this process is in the
// system's own PID namespace, whose init reaps the orphans it inherits.
static int recallInInitialPIDNamespace(void) {
	char ns[64];
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	if (n < 0) {
		return 0;
	}
	ns[n] = 0;
	return strcmp(ns, recallInitialPIDNamespace) == 0;
}
#endif

// recallHandOverTeardown starts the helper; 0 when it runs.
static int recallHandOverTeardown(void) {
#ifndef recallHelperRuns
	return -1;
#else
	if (!recallInInitialPIDNamespace()) {
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
#endif
}
*/
import "C"

// handOverTeardown gives the unmapping of this process's memory to a helper
// that outlives it by a moment; the caller exits right after, having written
// everything it had to say. It reports whether the helper runs.
func handOverTeardown() bool {
	return C.recallHandOverTeardown() == 0
}
