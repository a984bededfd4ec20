package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// printProcessors prints, as `<test binary> hook` or `<test binary> stats`
// runs it: GOMAXPROCS, the CPUs its threads may use before releaseStartCPU
// and after it (each thread's, one line each), then exits.
func printProcessors() {
	fmt.Println("procs", runtime.GOMAXPROCS(0))
	fmt.Println("before", strings.Join(threadCPUs(), " "))
	releaseStartCPU()
	fmt.Println("after", strings.Join(threadCPUs(), " "))
	os.Exit(0)
}

// threadCPUs lists each thread's Cpus_allowed_list.
func threadCPUs() []string {
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	var out []string
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				out = append(out, strings.TrimSpace(v))
			}
		}
	}
	return out
}

// A hook's runtime starts with one processor (it started on one CPU), and
// once main runs every thread may use all the CPUs it was started with
// again; other commands keep a processor per CPU.
func TestAHookStartsWithOneProcessor(t *testing.T) {
	all := threadCPUs()[0]
	procs := runtime.GOMAXPROCS(0) // as the runtime sizes it for any process here (CPUs, cgroup quota)
	if runtime.NumCPU() < 2 || procs < 2 {
		t.Skipf("one CPU or processor (%s, GOMAXPROCS %d): a hook has one processor anyway", all, procs)
	}
	run := func(command string) map[string][]string {
		t.Helper()
		cmd := exec.Command(os.Args[0], command)
		cmd.Env = append(os.Environ(), "RECALL_TEST_PRINT_PROCS=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		got := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			got[f[0]] = f[1:]
		}
		return got
	}
	hook := run("hook")
	if p := hook["procs"]; len(p) != 1 || p[0] != "1" {
		t.Errorf("a hook's GOMAXPROCS is %v, want 1", p)
	}
	for _, cpus := range hook["before"] {
		if strings.ContainsAny(cpus, ",-") {
			t.Errorf("a hook's thread may run on %s before main lets it go, want one CPU", cpus)
		}
	}
	for _, cpus := range hook["after"] {
		if cpus != all {
			t.Errorf("a hook's thread may run on %s once main runs, want %s (the CPUs it was started with)", cpus, all)
		}
	}
	other := run("stats")
	if p := other["procs"]; len(p) != 1 || p[0] != fmt.Sprint(procs) {
		t.Errorf("recall stats' GOMAXPROCS is %v, want %d as for any process here", p, procs)
	}
}
