package main

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/recall-mcp/recall/internal/describe"
)

// The command tree is cobra's: it parses flags (GNU style, in any order with
// the arguments), writes help, suggests the nearest command and generates the
// shell completion scripts, which ask the binary itself (recall __complete)
// for memory ids and namespaces.

const rootHelp = `Recall is long-term memory for AI coding agents: an MCP server, Claude Code
hooks and a CLI over one SQLite file, with Ollama for embeddings.

Without a command recall serves MCP on stdio. "recall help COMMAND" explains a
command; "recall help config" lists the RECALL_* variables; "recall help json"
says what --json prints.`

func newRoot(e *env) *cobra.Command { return newRootFor(e, "") }

// newRootFor builds the tree with only the command or help topic called name
// (or aliased) under the root, or the whole tree when none is: help,
// completion, a typo. Building all of it, every command's flags and
// completions, took 0.3-0.4 ms of each start, the MCP server's included;
// running one command needs no other.
func newRootFor(e *env, name string) *cobra.Command {
	if !slices.ContainsFunc(commands, func(c *command) bool { return c.named(name) }) &&
		!slices.ContainsFunc(helpTopics, func(t helpTopic) bool { return t.name == name }) {
		name = ""
	}
	root := &cobra.Command{
		Use:           "recall",
		Short:         "Long-term memory for AI coding agents",
		Long:          rootHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		// serach -> search, lsit -> list: a transposition is two edits.
		SuggestionsMinimumDistance: 2,
		CompletionOptions:          cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddGroup(
		&cobra.Group{ID: "memories", Title: "Memories:"},
		&cobra.Group{ID: "store", Title: "The store:"},
		&cobra.Group{ID: "server", Title: "Server, hooks and viewer:"},
	)
	root.SetHelpCommandGroupID("store")
	root.SetCompletionCommandGroupID("store")
	for _, c := range commands {
		if name == "" || c.named(name) {
			root.AddCommand(c.cobra(e))
		}
	}
	for _, t := range helpTopics {
		if name == "" || t.name == name {
			root.AddCommand(&cobra.Command{Use: t.name, Short: t.short, Long: t.long()})
		}
	}
	return root
}

// named reports whether c is called name or has it as an alias.
func (c *command) named(name string) bool { return c.name == name || slices.Contains(c.aliases, name) }

// cobra builds c's command (and its subcommands').
func (c *command) cobra(e *env) *cobra.Command {
	short, _, _ := strings.Cut(c.summary, "\n")
	if c.short != "" {
		short = c.short
	}
	cc := &cobra.Command{
		Use:     strings.TrimSpace(c.name + " " + c.args),
		Aliases: c.aliases,
		Short:   short,
		Long:    c.summary,
		GroupID: c.group,
	}
	if c.group == "" {
		cc.GroupID = "store"
	}
	for _, sub := range c.subs {
		s := sub.cobra(e)
		s.GroupID = ""
		cc.AddCommand(s)
	}
	if c.setup == nil {
		return cc
	}
	fs := cc.Flags()
	run := c.setup(fs)
	if c.quiet {
		fs.BoolVarP(&e.verbose, "verbose", "v", false, "log what recall does to stderr (INFO; RECALL_LOG_LEVEL also sets it)")
	}
	if run != nil {
		cc.RunE = func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), e, args) }
	}
	if c.complete != nil {
		cc.ValidArgsFunction = func(_ *cobra.Command, args []string, typed string) ([]string, cobra.ShellCompDirective) {
			return c.complete(e, args, typed), cobra.ShellCompDirectiveNoFileComp
		}
	}
	registerFlagCompletions(e, cc, fs)
	return cc
}

// registerFlagCompletions offers the values of the flags every command
// spells the same way.
func registerFlagCompletions(e *env, cc *cobra.Command, fs *pflag.FlagSet) {
	fixed := func(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	if fs.Lookup("namespace") != nil {
		_ = cc.RegisterFlagCompletionFunc("namespace", func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
			return completeNamespaces(e, typed), cobra.ShellCompDirectiveNoFileComp
		})
	}
	if fs.Lookup("type") != nil {
		_ = cc.RegisterFlagCompletionFunc("type", fixed(strings.Split(typeNames(), ", ")...))
	}
	if fs.Lookup("sort") != nil {
		_ = cc.RegisterFlagCompletionFunc("sort", fixed(sortKeys...))
	}
	if fs.Lookup("format") != nil && cc.Name() == "export" {
		_ = cc.RegisterFlagCompletionFunc("format", fixed("jsonl", "memory-jsonl"))
	}
}

// helpTopic is `recall help NAME` for something that is not a command.
type helpTopic struct {
	name, short string
	long        func() string
}

var helpTopics = []helpTopic{
	{"config", "The RECALL_* environment variables, their defaults and meanings", func() string {
		return "Configuration (environment variables):\n\n" + configHelp()
	}},
	{"namespaces", "Where memories live: global, project:<name>, and how a directory finds its project", func() string {
		return namespacesHelp
	}},
	{"json", "What --json prints: the MCP tools' field names", func() string {
		return jsonHelp
	}},
}

const namespacesHelp = `Namespaces

Every memory lives in one namespace:
  global            shared by every project
  project:<name>    one project's; --namespace also takes the bare <name>

A project is its root: the top level of its git repository (every worktree of
it included), else the directory. Each root is bound to one namespace the first
time a hook (or a store) runs there; a second root whose name is taken gets a
distinct one, such as project:api-3f2a. "recall projects" lists them and says
which one the working directory is; it only reads, it never binds.

recall store (and add) without --namespace stores into the project of the
working directory's git repository, as the hooks name it; outside git, into
RECALL_DEFAULT_NAMESPACE (global unless set). RECALL_PROJECT pins one project
for every directory.`

const jsonHelp = `--json

Every command that prints data takes --json and then prints one JSON document
on stdout, with the field names of the MCP tool that returns the same data, so
a script written against one works with the other:

  recall search --json     memory_recall_tool: memories[] with id, content,
                           memory_type, namespace, importance, confidence,
                           created_at, ..., score
  recall list --json       memory_list_tool: memories, count, total, limit,
                           offset, has_more (and hidden_superseded)
  recall show ID --json    memory (the memory_list_tool fields), edges
                           (memory_inspect_graph_tool's: id, source_id,
                           target_id, relation, weight, created_at), events
                           and summary (validation_history_tool's), changes
  recall store/add --json  memory_store_tool: success, id, content_hash,
                           memory_type, namespace, auto_relationships
  recall rm/restore --json memory_forget_tool: deleted_ids, deleted_count;
                           restore: restored_id
  recall stats --json      the store's counts
  recall projects --json   projects[] with namespace, roots, memories

Dates are RFC 3339 in UTC. Fields are added over time, never renamed.`

// completeNamespaces offers the namespaces that hold memories.
func completeNamespaces(e *env, typed string) []string {
	return completing(func(ctx context.Context, a *app) []string {
		st, err := a.mem.Stats(ctx)
		if err != nil {
			return nil
		}
		var out []string
		for ns, n := range st.ByNamespace {
			if strings.HasPrefix(ns, typed) {
				out = append(out, ns+"\t"+describe.Count(n, "memory", "memories"))
			}
		}
		return out
	})
}
