//go:build linux

package main

// A hook starts with one processor. The Go runtime sizes GOMAXPROCS, and so
// how many threads, per-processor caches and spinning schedulers it starts,
// from the CPUs the process may run on when it starts. A hook is short and
// mostly one goroutine after another: a second processor only started a
// thread and took a core now and then to look for work, and each of those
// threads' first touches and the flushes of the other core's TLB their page
// faults needed cost more than it gave (on two cores, paired, quiet and
// loaded: post-tool-use 0.3-0.7 ms and 50 page faults less, the prompt hook
// 0.4-0.7 ms and 80 less, its CPU 1-1.4 ms less). The environment
// (GOMAXPROCS=1) would say it too, but only where someone set it; so a C
// constructor, which runs before the runtime starts, lets `recall hook` run
// on the CPU it started on, and the hook gives every thread the CPUs it was
// started with back as soon as main runs (releaseStartCPU): the kernel moves
// its threads between cores as before, and GOMAXPROCS stays one. Other
// commands, and a process allowed one CPU only, are left alone; glibc passes
// constructors the command line, musl does not, so there it does nothing.

/*
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static cpu_set_t recallStartCPUs; // the CPUs the hook was started with
static int recallStartPinned;

#ifdef __GLIBC__
__attribute__((constructor)) static void recallHookOneProcessor(int argc, char **argv, char **envp) {
	(void)envp;
	if (argc < 2 || strcmp(argv[1], "hook") != 0) return;
	if (sched_getaffinity(0, sizeof recallStartCPUs, &recallStartCPUs) != 0 || CPU_COUNT(&recallStartCPUs) < 2) return;
	int cpu = sched_getcpu();
	if (cpu < 0) return;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) == 0) recallStartPinned = 1;
}
#endif

// recallReleaseStartCPU gives every thread of the process the CPUs it was
// started with.
static void recallReleaseStartCPU(void) {
	if (!recallStartPinned) return;
	recallStartPinned = 0;
	DIR *d = opendir("/proc/self/task");
	if (d == NULL) {
		sched_setaffinity(0, sizeof recallStartCPUs, &recallStartCPUs);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.') sched_setaffinity(atoi(e->d_name), sizeof recallStartCPUs, &recallStartCPUs);
	}
	closedir(d);
}
*/
import "C"

// releaseStartCPU lets a hook's threads run on every CPU the process was
// started with again; GOMAXPROCS stays what the runtime made it.
func releaseStartCPU() { C.recallReleaseStartCPU() }
