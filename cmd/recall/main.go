// Command recall is Recall's one binary: an MCP server (the default), the
// handler of Claude Code's hooks, and a CLI over the same memory store.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// runFunc runs a command with its positional arguments; its flags are
// already parsed into the variables its setup declared.
type runFunc func(ctx context.Context, e *env, args []string) error

// command is one subcommand of recall.
type command struct {
	name    string
	args    string // synopsis of the arguments after the name
	summary string // the help; its first line is the one-line summary unless short is set
	short   string
	// quiet commands are for people and scripts: no log below ERROR unless -v.
	quiet bool
	// setup declares the command's flags on fs and returns what runs it.
	setup func(fs *pflag.FlagSet) runFunc
	// subs are subcommands (recall history search ...); a command with subs
	// has no setup of its own.
	subs []*command
	// complete offers values for the positional arguments (memory ids, say).
	complete func(e *env, args []string, typed string) []string
	aliases  []string
	// group is the heading the command is listed under in recall --help.
	group string
}

// env is what commands read from and write to; tests of the binary see it as
// stdin, stdout and stderr.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// verbose is the -v flag of the human commands: log INFO to stderr.
	verbose bool
}

// usageError is a mistake on the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// exitError ends the process with a code after its message has been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// noArgs refuses positional arguments to a command that takes none.
func noArgs(args []string) error {
	if len(args) > 0 {
		return usagef("unexpected arguments %q", args)
	}
	return nil
}

var commands []*command

func init() {
	commands = []*command{
		serveCommand, callCommand, hookCommand,
		addCommand, storeCommand, searchCommand, listCommand, showCommand, editCommand, rmCommand, restoreCommand, forgetCommand,
		statsCommand, projectsCommand, reindexCommand, historyCommand, exportCommand, importCommand, doctorCommand, uiCommand, usersCommand, versionCommand,
	}
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	code := run(context.Background(), e, os.Args[1:])
	if len(os.Args) > 1 && os.Args[1] == hookCommand.name {
		// Claude Code waits for a hook's process to end: the unmapping of
		// its memory is left to a helper (see teardown_linux.go).
		handOverTeardown()
	}
	os.Exit(code)
}

// run dispatches to a command and turns its error into an exit code: 0, 1
// for a failure, 2 for a mistake on the command line.
func run(ctx context.Context, e *env, args []string) int {
	// A hook is a fresh process on every event of Claude Code's session: it
	// is dispatched before the command tree is built.
	if len(args) > 0 && args[0] == hookCommand.name {
		return exitCode(e, hookCommand.name, runHook(ctx, e, args[1:]))
	}
	switch {
	case len(args) == 0:
		args = []string{"serve"} // what an MCP client starting `recall` gets
	case args[0] == "-v" || args[0] == "--version":
		args = []string{"version"}
	case strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help":
		args = append([]string{"serve"}, args...) // recall --http ADDR
	}
	root := newRootFor(e, args[0])
	if name := args[0]; !strings.HasPrefix(name, "-") && !isCommand(root, name) {
		msg := fmt.Sprintf("recall: unknown command %q", name)
		if s := nearestCommand(root, name); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		fmt.Fprintln(e.stderr, msg+" (recall help lists the commands)")
		return 2
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	name := strings.TrimPrefix(cmd.CommandPath(), "recall ")
	return exitCode(e, name, err)
}

// exitCode prints err as recall NAME: message and returns the exit code.
func exitCode(e *env, name string, err error) int {
	var ue usageError
	var xe exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &xe):
		return xe.code
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "recall %s: %s\n(recall %s --help explains it)\n", name, ue.msg, name)
		return 2
	default:
		fmt.Fprintf(e.stderr, "recall %s: %v\n", name, err)
		return 1
	}
}

// isCommand reports whether name is a command, alias or help topic of root,
// or one cobra adds itself (help, completion and its hidden __complete).
func isCommand(root *cobra.Command, name string) bool {
	for _, c := range root.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return true
		}
	}
	return name == "help" || name == "completion" || strings.HasPrefix(name, "__complete")
}

// nearestCommand is the command whose name is fewest edits away from typed
// (a transposition counting one: serach, lsit), at most two; or one typed
// names the start of. "" when none is near.
func nearestCommand(root *cobra.Command, typed string) string {
	best, bestDist := "", 3
	for _, c := range root.Commands() {
		if c.Hidden || !c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			continue
		}
		for _, name := range append([]string{c.Name()}, c.Aliases...) {
			d := editDistance(typed, name)
			if len(typed) >= 2 && strings.HasPrefix(name, typed) {
				d = min(d, 1)
			}
			if d < bestDist {
				best, bestDist = name, d
			}
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// neighbours that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
