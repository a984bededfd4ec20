// Command recall is Recall's one binary: an MCP server (the default), the
// handler of Claude Code's hooks, and a small CLI over the same memory store.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one subcommand of recall.
type command struct {
	name    string
	args    string // synopsis of the arguments after the name
	summary string
	// quiet commands are for people and scripts: no log below ERROR unless -v.
	quiet bool
	// run executes the command with its own flag set (already named and
	// described) and the arguments after the command name.
	run func(ctx context.Context, env *env, fs *flag.FlagSet, args []string) error
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

// usageError is a mistake on the command line: usage is shown, exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// exitError ends the process with a code after its message has been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

var commands []*command

func init() {
	commands = []*command{
		serveCommand, callCommand, hookCommand,
		storeCommand, searchCommand, listCommand, forgetCommand, statsCommand,
		projectsCommand, reindexCommand, historyCommand, exportCommand, importCommand, doctorCommand, uiCommand, usersCommand, versionCommand,
	}
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	os.Exit(run(context.Background(), e, os.Args[1:]))
}

// run dispatches to a command and turns its error into an exit code.
func run(ctx context.Context, e *env, args []string) int {
	name := "serve" // what an MCP client starting `recall` gets
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			if len(args) > 1 && lookup(args[1]) != nil {
				return run(ctx, e, []string{args[1], "--help"})
			}
			printUsage(e.stdout)
			return 0
		case "-v", "--version":
			name, args = "version", args[1:]
		default:
			if !strings.HasPrefix(args[0], "-") {
				name, args = args[0], args[1:]
			}
		}
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(e.stderr, "recall: unknown command %q\n\n", name)
		printUsage(e.stderr)
		return 2
	}
	fs := flag.NewFlagSet("recall "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are reported once, below, with the usage
	fs.Usage = func() {}
	if cmd.quiet {
		fs.BoolVar(&e.verbose, "v", false, "log what recall does to stderr (INFO; RECALL_LOG_LEVEL also sets it)")
	}
	err := cmd.run(ctx, e, fs, args)
	var ue usageError
	var xe exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		printCommandUsage(e.stdout, cmd, fs)
		return 0
	case errors.As(err, &xe):
		return xe.code
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "recall %s: %s\n", cmd.name, ue.msg)
		printCommandUsage(e.stderr, cmd, fs)
		return 2
	default:
		fmt.Fprintf(e.stderr, "recall %s: %v\n", cmd.name, err)
		return 1
	}
}

// parseFlagsOnly parses a command that takes flags and no arguments.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected arguments %q", rest)
	}
	return nil
}

// parseFlags parses args with fs, letting flags and arguments come in any order
// (`recall search -n 3 caching` and `recall search caching -n 3`). Everything
// after "--" is an argument (`recall store -- -1 is not a valid id`).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest, tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(rest, tail...), nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `Recall is long-term memory for AI coding agents: an MCP server, Claude Code
hooks and a small CLI over one SQLite file, with Ollama for embeddings.

Usage:
  recall [command] [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		first, _, _ := strings.Cut(c.summary, "\n")
		fmt.Fprintf(w, "  %-9s %s\n", c.name, first)
	}
	fmt.Fprint(w, `
Without a command recall serves MCP on stdio. "recall <command> --help" explains
a command.

`)
	printConfigHelp(w)
}

func printCommandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: recall %s %s\n\n%s\n", c.name, c.args, c.summary)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}
