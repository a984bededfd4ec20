package tests

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runAsUser runs cmd as an unprivileged user when the tests run as root, for
// whom no directory is read-only. The binary is copied where that user can
// run it.
func runAsUser(t *testing.T, dir string, cmd *exec.Cmd) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	bin := filepath.Join(dir, "recall")
	src, err := os.Open(cmd.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	cmd.Path = bin
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

// TestReadOnlyDatabaseDirectorySaysSo: a database whose directory Recall
// cannot write fails with a message that says so, both for a new file and for
// an existing one (SQLite must create its WAL beside it).
func TestReadOnlyDatabaseDirectorySaysSo(t *testing.T) {
	base := t.TempDir()
	// Every directory up to base must be passable for the unprivileged user.
	for d := base; d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(d, fi.Mode().Perm()|0o005)
		}
	}
	env, _ := recallEnv(t)
	for _, existing := range []bool{false, true} {
		name := map[bool]string{false: "new", true: "existing"}[existing]
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(base, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "recall.db")
			if existing {
				create := exec.Command(recallBin, "stats")
				create.Env = append(env, "RECALL_SQLITE_PATH="+path)
				if out, err := create.CombinedOutput(); err != nil {
					t.Fatalf("create the database: %v\n%s", err, out)
				}
				os.Chmod(path, 0o666) // writable file, read-only directory
			}
			os.Chmod(dir, 0o555)
			defer os.Chmod(dir, 0o755)
			cmd := exec.Command(recallBin, "stats")
			cmd.Env = append(env, "RECALL_SQLITE_PATH="+path)
			runAsUser(t, base, cmd)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("recall stats succeeded in a read-only directory:\n%s", out)
			}
			if !strings.Contains(string(out), "read-only") || !strings.Contains(string(out), "RECALL_SQLITE_PATH") {
				t.Errorf("error does not say the directory is read-only and what to do:\n%s", out)
			}
		})
	}
}
