package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// runCLI runs recall in process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
	code = run(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

func TestUnknownCommandNamesTheNearestInOneLine(t *testing.T) {
	code, stdout, stderr := runCLI(t, "serach", "caching")
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `did you mean "search"?`) {
		t.Errorf("recall serach: exit %d, stdout %q, stderr %q; want exit 2 and one line naming search", code, stdout, stderr)
	}
}

func TestNearestCommand(t *testing.T) {
	root := newRoot(&env{})
	for typed, want := range map[string]string{"lsit": "list", "serach": "search", "shwo": "show", "rmv": "rm", "imp": "import", "zzzzzz": ""} {
		if got := nearestCommand(root, typed); got != want {
			t.Errorf("nearest to %q = %q, want %q", typed, got, want)
		}
	}
}

func TestFlagsInAnyOrderAndUnknownFlagsAreUsageErrors(t *testing.T) {
	t.Setenv("RECALL_SQLITE_PATH", t.TempDir()+"/recall.db")
	t.Setenv("RECALL_OLLAMA", "off")
	if code, _, stderr := runCLI(t, "list", "--colour", "red"); code != 2 || !strings.Contains(stderr, "unknown flag: --colour") {
		t.Errorf("unknown flag: exit %d, %q", code, stderr)
	}
	if code, out, stderr := runCLI(t, "add", "Deploys go through staging", "-t", "decision", "--namespace", "global"); code != 0 || !strings.Contains(out, "(decision, global)") {
		t.Errorf("flags after the text: exit %d, %q %q", code, out, stderr)
	}
}

func TestHelpTopics(t *testing.T) {
	for topic, want := range map[string]string{"config": "RECALL_SQLITE_PATH", "namespaces": "project:<name>", "json": "memory_recall_tool", "search": "--min-confidence"} {
		code, out, _ := runCLI(t, "help", topic)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("recall help %s: exit %d, want %q in:\n%s", topic, code, want, out)
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8765": true, "localhost:8765": true, "[::1]:8765": true,
		"0.0.0.0:8765": false, ":8765": false, "192.168.1.4:8765": false, "nonsense": false,
	} {
		if err := checkLoopback(addr); (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v, want allowed %v", addr, err, ok)
		}
	}
}

// A command runs in a tree holding it alone (newRootFor); what it prints for
// --help must be what the whole tree prints.
func TestEachCommandHelpsAloneAsInTheWholeTree(t *testing.T) {
	helpOf := func(root func(e *env) *cobra.Command, args ...string) string {
		var out bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &out}
		r := root(e)
		r.SetArgs(append(args, "--help"))
		if err := r.Execute(); err != nil {
			fmt.Fprintf(&out, "error: %v", err)
		}
		return out.String()
	}
	var calls [][]string
	for _, c := range commands {
		calls = append(calls, []string{c.name})
		for _, a := range c.aliases {
			calls = append(calls, []string{a})
		}
		for _, s := range c.subs {
			calls = append(calls, []string{c.name, s.name})
		}
	}
	for _, topic := range helpTopics {
		calls = append(calls, []string{topic.name})
	}
	for _, args := range calls {
		alone := helpOf(func(e *env) *cobra.Command { return newRootFor(e, args[0]) }, args...)
		whole := helpOf(newRoot, args...)
		if alone != whole || alone == "" || strings.Contains(alone, "error:") {
			t.Errorf("recall %s --help alone:\n%s\nin the whole tree:\n%s", strings.Join(args, " "), alone, whole)
		}
	}
}
