package main

import (
	"log/slog"
	"os"
	"os/exec"
	"syscall"
)

// startDetached starts this binary with args as a process of its own (its
// own session, no terminal, stdin and stdout closed, stderr to stderr when
// given) and returns at once: the hook or command that starts it never waits
// for it. what names it in the log.
func startDetached(log *slog.Logger, what string, stderr *os.File, args ...string) {
	exe, err := os.Executable()
	if err != nil {
		log.Warn(what+" not started", "err", err)
		return
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if stderr != nil {
		cmd.Stderr = stderr // the child has its own descriptor
	}
	if err := cmd.Start(); err != nil {
		log.Warn(what+" not started", "err", err)
		return
	}
	log.Debug(what+" started", "pid", cmd.Process.Pid)
	go cmd.Wait() //nolint:errcheck // a long-lived parent (serve) reaps it; a hook exits first and init does
}
