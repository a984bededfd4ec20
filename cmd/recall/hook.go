package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// hookSlack is the time a hook has for its database work beyond the embedding
// deadline (RECALL_HOOK_TIMEOUT); Claude Code's own timeout in hooks.json is
// larger still.
const hookSlack = 2 * time.Second

var hookCommand = &command{
	name: "hook",
	args: "<" + strings.Join(hook.Events, "|") + ">",
	summary: "Answer a Claude Code hook (JSON on stdin, answer on stdout).\n" +
		"session-start injects the project's context, user-prompt-submit the memories\n" +
		"relevant to the prompt; post-tool-use records touched files; session-end\n" +
		"records the end; session-start and pre-compact also start the conversation\n" +
		"history indexer in the background. Whatever goes wrong, a hook exits 0 and\n" +
		"logs to stderr.",
	run: runHook,
}

func runHook(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("want one hook event: %s", strings.Join(hook.Events, ", "))
	}
	cfg, log, err := loadConfig(e.stderr)
	if err != nil {
		// A broken configuration must not break the user's session either.
		log.Error("hook not answered", "hook", rest[0], "err", err)
		return nil
	}
	if ev, err := hook.ParseEvent(rest[0]); err == nil && (ev == hook.SessionStart || ev == hook.PreCompact) {
		if cfg.History {
			startBackgroundIndex(cfg, log) // detached: returns at once
		}
		if ev == hook.PreCompact {
			return nil // nothing to answer, no database to open
		}
	}
	open := func(ctx context.Context) (*hook.Handler, func(), error) {
		a, err := openAppWith(ctx, cfg, log, modeHook)
		if err != nil {
			return nil, nil, err
		}
		h := &hook.Handler{
			Memory:      a.mem,
			TokenBudget: cfg.DefaultTokenBudget,
			Floor:       memory.Floor{MinCoverage: cfg.PromptMinCoverage, MinSimilarity: cfg.MatchMinSimilarity},
			Logger:      log,
			Context: func(ctx context.Context, query, project string, budget int) (string, error) {
				res, err := a.cur.Context(ctx, validation.ContextRequest{Query: query, Project: project, TokenBudget: budget})
				if err != nil {
					return "", err
				}
				if len(res.MemoryIDs) == 0 {
					return "", nil // a preamble without memories is not worth its tokens
				}
				return res.Context, nil
			},
		}
		// The database is left open: the process ends right after answering,
		// every write is already committed to the WAL, and closing the last
		// connection would checkpoint the WAL while Claude Code waits.
		return h, func() {}, nil
	}
	hook.Run(ctx, rest[0], e.stdin, e.stdout, cfg.HookTimeout+hookSlack, log, open)
	return nil
}
