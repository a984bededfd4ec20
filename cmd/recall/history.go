package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/project"

	"github.com/spf13/pflag"
)

var historyCommand = &command{
	short: "Search and read Claude Code's past conversations",
	group: "server",
	name:  "history",
	args:  "COMMAND",
	summary: "Search Claude Code's past conversations (~/.claude/projects), read them, index them.\n" +
		"search: this project's conversations (--global: all), by meaning and keywords.\n" +
		"show: a conversation, or --window messages around --around <uuid>.\n" +
		"index: bring the index up to date now (appended lines only), then embed.\n" +
		"stats: what the index holds.",
	subs: []*command{
		{name: "search", args: "<query> [--global] [--after D] [--before D] [--json]", quiet: true,
			summary: "Search this project's conversations (--global: all), by meaning and keywords.", setup: runHistorySearch},
		{name: "show", args: "<session> [--around <uuid>] [--window N] [--json]", quiet: true,
			summary: "Show a conversation, or --window messages around --around <uuid>.", setup: runHistoryShow},
		{name: "index", args: "[--no-embed]", quiet: true,
			summary: "Bring the index up to date now (appended lines only), then embed.", setup: runHistoryIndex},
		{name: "stats", args: "[--json]", quiet: true,
			summary: "Show what the index holds.", setup: runHistoryStats},
	},
}

// openHistoryFor loads the configuration and opens the history service for
// a history command; close it with hs.Index.Close.
func openHistoryFor(ctx context.Context, e *env) (*history.Service, error) {
	cfg, log, err := loadConfig(e.stderr)
	if err != nil {
		return nil, err
	}
	return openHistory(ctx, cfg, log)
}

// openHistory opens the history index and the service over it.
func openHistory(ctx context.Context, cfg *config.Config, log *slog.Logger) (*history.Service, error) {
	if !cfg.History {
		return nil, errors.New("conversation history is off (RECALL_HISTORY=off)")
	}
	ix, err := history.Open(ctx, cfg.HistoryIndexPath())
	if err != nil {
		return nil, err
	}
	s := &history.Service{Index: ix, Root: cfg.HistoryDir, Project: project.FindRoot(""),
		EmbedTimeout: min(cfg.OllamaTimeout, maxQueryEmbedWait), CatchUp: catchUp(cfg, log, ix), Logger: log}
	if cfg.HistoryEmbed {
		client, err := newOllama(cfg)
		if err != nil {
			ix.Close()
			return nil, err
		}
		s.Embedder = client
	}
	return s, nil
}

func newOllama(cfg *config.Config) (*embedding.Client, error) {
	return embedding.New(embedding.Options{Host: cfg.OllamaHost, EmbedModel: cfg.OllamaModel, ChatModel: cfg.OllamaChatModel, Timeout: cfg.OllamaTimeout})
}

func historyLimits(cfg *config.Config) history.Limits {
	return history.Limits{Projects: cfg.HistoryProjects, MaxAge: time.Duration(cfg.HistoryDays) * 24 * time.Hour}
}

func runHistorySearch(fs *pflag.FlagSet) runFunc {
	global := fs.Bool("global", false, "search every project's conversations")
	fs.Bool("project", true, "search this project's conversations (the default)")
	after := fs.String("after", "", "only messages on or after this ISO 8601 date or time")
	before := fs.String("before", "", "only messages before this ISO 8601 date or time")
	n := fs.IntP("limit", "n", 10, "number of results")
	offset := fs.Int("offset", 0, "results to skip")
	window := fs.Int("context", 3, "messages shown before and after each match")
	threshold := fs.Float64("threshold", 0.2, "least similarity of a match by meaning, 0 to 1")
	noSub := fs.Bool("no-subagents", false, "leave out subagent conversations")
	asJSON := fs.Bool("json", false, "print the JSON answer of search_project_history")
	return func(ctx context.Context, e *env, rest []string) error {
		query := strings.Join(rest, " ")
		if strings.TrimSpace(query) == "" {
			return usagef("missing the query")
		}
		hs, err := openHistoryFor(ctx, e)
		if err != nil {
			return err
		}
		defer hs.Index.Close()
		req := history.SearchRequest{Query: query, After: *after, Before: *before, Context: *window, Threshold: *threshold,
			MaxResults: *n, Offset: *offset, IncludeSubagents: !*noSub}
		if !*global {
			req.Projects = hs.ProjectPaths()
		}
		resp, err := hs.Search(ctx, req)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, resp)
		}
		printHistoryResults(e.stdout, resp)
		return nil
	}
}

func printHistoryResults(w io.Writer, r *history.Response) {
	fmt.Fprintf(w, "%s for %q (%s search)", describe.Count(r.TotalMatches, "match", "matches"), r.Query, r.Mode)
	if r.Offset > 0 {
		fmt.Fprintf(w, ", from %d", r.Offset+1)
	}
	fmt.Fprintln(w)
	if r.Note != "" {
		fmt.Fprintln(w, "note:", r.Note)
	}
	for _, res := range r.Results {
		m := res.Matched
		fmt.Fprintf(w, "\n[%.2f] %s  %s  session %s\n", res.Score, m.Timestamp, m.Project, m.SessionID)
		for _, c := range res.Context {
			mark := "  "
			if c.UUID == m.UUID {
				mark = "> "
			}
			fmt.Fprintf(w, "%s%s %s: %s\n", mark, c.UUID, c.Role, oneLine(c.Content, 160))
		}
	}
	if r.HasMore {
		fmt.Fprintf(w, "\nmore: --offset %d\n", r.Offset+len(r.Results))
	}
}

// oneLine shows text on one line of at most n runes.
func oneLine(text string, n int) string {
	s := []rune(strings.Join(strings.Fields(text), " "))
	if len(s) > n {
		return string(s[:n]) + "…"
	}
	return string(s)
}

func runHistoryShow(fs *pflag.FlagSet) runFunc {
	around := fs.String("around", "", "show the messages around this message uuid")
	window := fs.Int("window", 5, "messages before and after --around")
	asJSON := fs.Bool("json", false, "print JSON")
	return func(ctx context.Context, e *env, rest []string) error {
		if len(rest) != 1 {
			return usagef("want one session id")
		}
		hs, err := openHistoryFor(ctx, e)
		if err != nil {
			return err
		}
		defer hs.Index.Close()
		// A whole session is read a page at a time and printed whole.
		w, err := hs.Show(ctx, rest[0], *around, *window, "")
		if err != nil {
			return err
		}
		for next := w.NextCursor; next != ""; {
			page, err := hs.Show(ctx, rest[0], "", 0, next)
			if err != nil {
				return err
			}
			w.Messages, next = append(w.Messages, page.Messages...), page.NextCursor
		}
		w.NextCursor = ""
		if *asJSON {
			return writeJSON(e.stdout, w)
		}
		fmt.Fprintf(e.stdout, "session %s  %s\n%s\n", w.SessionID, w.Project, w.Path)
		for _, m := range w.Messages {
			mark := ""
			if m.IsMatch != nil && *m.IsMatch {
				mark = ">>> "
			}
			fmt.Fprintf(e.stdout, "\n%s[%s] %s %s\n%s\n", mark, m.Timestamp, m.Role, m.UUID, m.Content)
		}
		return nil
	}
}

func runHistoryStats(fs *pflag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print JSON")
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		hs, err := openHistoryFor(ctx, e)
		if err != nil {
			return err
		}
		defer hs.Index.Close()
		st, err := hs.Index.Stats(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, st)
		}
		fmt.Fprintf(e.stdout, "index %s (%.1f MB), transcripts from %s\n", st.Path, float64(st.Bytes)/1e6, hs.Root)
		fmt.Fprintf(e.stdout, "%s in %s of %s (%s, %s skipped)\n",
			describe.Count(st.Messages, "message", "messages"), describe.Count(st.Sessions, "session", "sessions"),
			describe.Count(st.Projects, "project", "projects"), describe.Count(st.Transcripts, "transcript", "transcripts"),
			describe.Count(st.Malformed, "malformed line", "malformed lines"))
		fmt.Fprintf(e.stdout, "%d embedded (%s), %s left out by RECALL_HISTORY_* limits, updated %s\n",
			st.Embedded, orNone(st.EmbedModel), describe.Count(st.ExcludedSessions, "session", "sessions"), orNone(st.UpdatedAt))
		return nil
	}
}

func orNone(s string) string {
	if s == "" {
		return "never"
	}
	return s
}
