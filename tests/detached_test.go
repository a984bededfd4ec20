package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dataDir is t.TempDir for a test's database. Hooks and the server start
// recall processes that outlive them on purpose (the history indexer, the
// Ollama probe); before the directory is removed, the test waits for those
// still working on it, or its removal fails on the files they write.
func dataDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	// Cleanups run last registered first: this one after everything the test
	// registers later (its servers, its fake Ollama), right before the removal.
	t.Cleanup(func() { waitForDetached(t, dir) })
	return dir
}

// detachedWait is how long a test waits for the recall processes left
// working on its directory: a probe gives up once the test's fake Ollama has
// closed, an indexer once it has read the test's few transcripts.
const detachedWait = 30 * time.Second

// waitForDetached waits until no recall process works on a database in dir.
// One still running after detachedWait fails the test and is killed.
func waitForDetached(t testing.TB, dir string) {
	t.Helper()
	deadline := time.Now().Add(detachedWait)
	for {
		left := processesOn(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for pid, args := range left {
				names = append(names, strconv.Itoa(pid)+" "+args)
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("recall processes started by this test still ran %s after it: %s", detachedWait, strings.Join(names, "; "))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesOn finds, in /proc, the processes other than this one whose
// RECALL_SQLITE_PATH is in dir (a detached child inherits its starter's
// environment), by pid with their command lines. A process that has exited
// but is not yet reaped has no environment left and is not counted.
func processesOn(dir string) map[int]string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	found := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if path, ok := bytes.CutPrefix(kv, []byte("RECALL_SQLITE_PATH=")); ok && strings.HasPrefix(string(path), dir+string(filepath.Separator)) {
				args, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				found[pid] = string(bytes.ReplaceAll(bytes.TrimRight(args, "\x00"), []byte{0}, []byte{' '}))
				break
			}
		}
	}
	return found
}
