package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"

	"github.com/spf13/pflag"
)

var projectsCommand = &command{
	short: "List projects; rename or merge them",
	quiet: true,
	name:  "projects",
	args:  "[--json] | rename <namespace> <new-namespace> | merge <from-namespace> <into-namespace>",
	summary: "List projects: each namespace with its root directories and memory count.\n" +
		"A project is its root (the top level of its git repository, every worktree\n" +
		"included, else the directory); a second root with a name already taken gets a\n" +
		"distinct namespace such as project:api-3f2a.\n" +
		"  rename A B   gives project A the unused name B (memories, roots, sessions move)\n" +
		"  merge A B    moves everything of A into B; a memory of A whose content B\n" +
		"               already holds is folded into B's copy (its edges and validation\n" +
		"               events move there) and deleted\n" +
		"Namespaces are written \"project:<name>\" or just the name.",
	setup: runProjects,
}

func runProjects(fs *pflag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print JSON")
	return func(ctx context.Context, e *env, rest []string) error {
		verb := "list"
		if len(rest) > 0 {
			verb, rest = rest[0], rest[1:]
		}
		switch verb {
		case "list":
			if len(rest) > 0 {
				return usagef("list takes no arguments, got %q", rest)
			}
		case "rename", "merge":
			if len(rest) != 2 {
				return usagef("%s wants two namespaces, got %d arguments", verb, len(rest))
			}
		default:
			return usagef("unknown projects command %q: want list, rename or merge", verb)
		}
		if cfg, _, ok := clientConfig(e); ok && verb == "list" {
			return listProjectsOfServer(ctx, e, cfg, *asJSON)
		}
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		switch verb {
		case "rename":
			from, to := asProject(rest[0]), asProject(rest[1])
			n, err := a.db.RenameProject(ctx, from, to)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(e.stdout, map[string]any{"from": from, "to": to, "moved": n})
			}
			fmt.Fprintf(e.stdout, "renamed %s to %s: %s moved\n", from, to, describe.Count(n, "memory", "memories"))
			return nil
		case "merge":
			rep, err := a.db.MergeProjects(ctx, asProject(rest[0]), asProject(rest[1]))
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(e.stdout, rep)
			}
			fmt.Fprintf(e.stdout, "merged %s into %s: %s moved, %s moved\n", rep.From, rep.Into,
				describe.Count(rep.Moved, "memory", "memories"), describe.Count(rep.Roots, "root", "roots"))
			for _, d := range rep.Duplicates {
				fmt.Fprintf(e.stdout, "duplicate %s folded into %s (same content)\n", d.Deleted, d.KeptID)
			}
			return nil
		}
		return listProjects(ctx, e, a, *asJSON)
	}
}

func listProjects(ctx context.Context, e *env, a *app, asJSON bool) error {
	// A read: the directory's project is looked up, never bound here (a
	// binding would take the name from a real project opened later).
	here, bound, err := a.projects.Peek(ctx, "")
	if err != nil {
		return err
	}
	ps, err := a.db.ProjectSummaries(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, map[string]any{"projects": ps, "current": here, "current_bound": bound})
	}
	printProjects(e, ps)
	if !bound {
		fmt.Fprintf(e.stdout, "this directory: not a project yet (root %s); the first hook or store here binds it, as %s if still free\n", here.Root, here.Namespace)
		return nil
	}
	fmt.Fprintf(e.stdout, "this directory: %s (root %s, from %s)\n", here.Namespace, here.Root, here.Source)
	return nil
}

func printProjects(e *env, ps []memory.ProjectSummary) {
	if len(ps) == 0 {
		fmt.Fprintln(e.stdout, "no projects yet")
	}
	for _, p := range ps {
		roots := "(no root bound yet: the first directory that claims the name gets it)"
		if len(p.Roots) > 0 {
			roots = strings.Join(p.Roots, ", ")
		}
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", p.Namespace, describe.Count(p.Memories, "memory", "memories"), roots)
	}
}

// listProjectsOfServer is recall projects on a client of a team server: the
// server's projects (their roots are the keys client machines send), and
// what this directory sends. Renames and merges run on the server's machine.
func listProjectsOfServer(ctx context.Context, e *env, cfg *config.Config, asJSON bool) error {
	c, err := teamClient(cfg)
	if err != nil {
		return err
	}
	var ps []memory.ProjectSummary
	if err := c.Do(ctx, http.MethodGet, "projects", nil, nil, &ps); err != nil {
		return err
	}
	here := project.ClientOf("", cfg.Project)
	if asJSON {
		return writeJSON(e.stdout, map[string]any{"projects": ps, "current": here})
	}
	printProjects(e, ps)
	if here.Namespace != "" {
		fmt.Fprintf(e.stdout, "this directory: %s (RECALL_PROJECT)\n", here.Namespace)
		return nil
	}
	fmt.Fprintf(e.stdout, "this directory: sent to the team server as %s; the first hook or add here binds it on the server\n", here.Root)
	return nil
}

// cliNamespace reads a --namespace value: "global", "project:<name>" (or
// another "kind:<name>"), or a bare project name, which means
// "project:<name>". Empty stays empty (the command's default).
func cliNamespace(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || s == memory.GlobalNamespace || s == "private" || strings.Contains(s, ":") {
		return s
	}
	return memory.ProjectNamespace(s)
}

// asProject accepts "name" or "project:name".
func asProject(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, memory.ProjectNamespacePref) {
		return s
	}
	return memory.ProjectNamespace(s)
}
