package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/recall-mcp/recall/team"

	"github.com/spf13/pflag"
)

var usersCommand = &command{
	quiet: true,
	name:  "users",
	args:  "add NAME | list | remove NAME | token NAME",
	summary: "Manage the people of a team server (recall serve --http).\n" +
		"add creates a person and prints their token once (only its hash is kept);\n" +
		"list shows names, when added and when last seen (never tokens); remove\n" +
		"removes a person (their tokens stop working at once; their private\n" +
		"memories stay); token prints a new token (the old one stops working).\n" +
		"Names: lowercase letters, digits, '-' and '_'. A person's token opens\n" +
		"the shared namespaces and their own user:NAME (alias private);\n" +
		"RECALL_HTTP_TOKEN stays the administrator's, which sees everything.",
	setup: runUsers,
}

func runUsers(fs *pflag.FlagSet) runFunc {
	return func(ctx context.Context, e *env, rest []string) error {
		if len(rest) == 0 {
			return usagef("missing what to do: add NAME, list, remove NAME or token NAME")
		}
		verb, names := rest[0], rest[1:]
		want := 1
		if verb == "list" {
			want = 0
		}
		switch verb {
		case "add", "list", "remove", "token":
		default:
			return usagef("unknown users action %q: use add NAME, list, remove NAME or token NAME", verb)
		}
		if len(names) != want {
			if want == 0 {
				return usagef("users list takes no name")
			}
			return usagef("users %s takes one NAME", verb)
		}
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		people := team.People{Dir: a.db}
		switch verb {
		case "add":
			tok, err := people.Add(ctx, names[0])
			return showToken(e, tok, err, "added %s; their token (shown once, keep it secret):\n", names[0])
		case "token":
			tok, err := people.NewToken(ctx, names[0])
			return showToken(e, tok, err, "new token for %s (the old one no longer works):\n", names[0])
		case "remove":
			if err := people.Remove(ctx, names[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "removed %s; their tokens no longer work (their memories in user:%s stay)\n", names[0], names[0])
		case "list":
			ps, err := people.List(ctx)
			if err != nil {
				return err
			}
			if len(ps) == 0 {
				fmt.Fprintln(e.stdout, "no people yet: recall users add NAME")
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tADDED\tLAST SEEN")
			for _, p := range ps {
				seen := "never"
				if !p.LastSeenAt.IsZero() {
					seen = p.LastSeenAt.Local().Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.CreatedAt.Local().Format(time.DateTime), seen)
			}
			return tw.Flush()
		}
		return nil
	}
}

// showToken prints a new token alone on stdout, for a script to take, and
// what it is on stderr.
func showToken(e *env, tok string, err error, format string, name string) error {
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, format, name)
	fmt.Fprintln(e.stdout, tok)
	return nil
}
