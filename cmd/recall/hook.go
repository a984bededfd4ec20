package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/sqlite"
	"github.com/recall-mcp/recall/validation"
)

// hookSlack is the time a hook has for its database work beyond the embedding
// deadline (RECALL_HOOK_TIMEOUT); Claude Code's own timeout in hooks.json is
// larger still.
const hookSlack = 2 * time.Second

var hookCommand = &command{
	group:   "server",
	name:    "hook",
	args:    hookArgs,
	summary: hookSummary,
	setup: func(fs *pflag.FlagSet) runFunc {
		hookFlags(fs)
		// main runs hooks before the command tree is built (runHook); this
		// entry gives the tree its help and completion.
		return func(ctx context.Context, e *env, args []string) error { return runHook(ctx, e, args) }
	},
}

var hookArgs = "<" + strings.Join(hook.Events, "|") + ">"

const hookSummary = "Answer a Claude Code hook (JSON on stdin, answer on stdout).\n" +
	"session-start injects the project's context, user-prompt-submit the memories\n" +
	"relevant to the prompt and records the prompt; post-tool-use records the tool\n" +
	"call and touched files; stop, pre-compact and session-end queue a summary of\n" +
	"the session (session-end also records the end); session-start and pre-compact\n" +
	"also start the conversation history indexer in the background. Whatever goes\n" +
	"wrong, a hook exits 0 and logs to stderr."

func hookFlags(fs *pflag.FlagSet) *bool {
	return fs.Bool("probe-ollama", false, "check whether Ollama embeds within RECALL_HOOK_TIMEOUT again and tell the hooks (a hook starts it in the background)")
}

// runHook is `recall hook ...`, run before the command tree is built (a hook
// is a fresh process per event). Whatever is wrong, it exits 0: exit 2 would
// block Claude Code's session.
func runHook(ctx context.Context, e *env, args []string) error {
	releaseStartCPU() // started on one CPU for one processor (oneproc_linux.go)
	fs := pflag.NewFlagSet("recall hook", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	probe := hookFlags(fs)
	err := fs.Parse(args)
	rest := fs.Args()
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprintf(e.stdout, "Usage: recall hook %s\n\n%s\n\nFlags:\n%s", hookArgs, hookSummary, fs.FlagUsages())
		return nil
	}
	if *probe && err == nil && len(rest) == 0 {
		return probeOllama(ctx, e)
	}
	if err != nil || len(rest) != 1 {
		fmt.Fprintf(e.stderr, "recall hook: want exactly one hook event (%s), got %q; nothing done\n", strings.Join(hook.Events, ", "), args)
		return nil
	}
	cfg, log, err := loadConfig(e.stderr)
	if err != nil {
		// A broken configuration must not break the user's session either.
		log.Error("hook not answered", "hook", rest[0], "err", err)
		return nil
	}
	if cfg.ClientMode() {
		runHookAsClient(ctx, e, cfg, log, rest[0])
		return nil
	}
	if ev, err := hook.ParseEvent(rest[0]); err == nil && (ev == hook.SessionStart || ev == hook.PreCompact) {
		if cfg.History {
			startBackgroundIndex(cfg, log) // detached: returns at once
		}
		if ev == hook.PreCompact && !(cfg.Capture && cfg.Summaries) {
			return nil // nothing to answer, no summary to queue, no database to open
		}
	}
	open := func(ctx context.Context, ev string, in *hook.Input) (*hook.Handler, func(), error) {
		if h := keepingHandler(ctx, cfg, log, ev); h != nil {
			return h, func() {}, nil // the database is left closed
		}
		early := prefetchPromptVector(ctx, cfg, log, ev, in)
		a, err := openAppWith(ctx, cfg, log, modeHook)
		if err != nil {
			return nil, nil, err
		}
		// The database is left open: the process ends right after answering
		// and every write is already committed to the WAL. Claude Code waits
		// for the process to exit, not only for its answer, so closing the
		// last connection would make every hook pay a checkpoint; the WAL is
		// emptied only once it has grown (sqlite.ShortLivedCheckpointAt).
		release := func() {}
		if db, ok := a.db.(*sqlite.DB); ok {
			release = func() {
				if err := db.CheckpointIfDue(ctx); err != nil {
					log.Debug("WAL not emptied; a later hook will", "err", err)
				}
			}
		}
		mem := a.mem
		if early != nil {
			mem = memory.NewService(a.db, early, memoryOptions(cfg, log))
		}
		return a.hookHandler(mem), release, nil
	}
	sock := hook.Socket{Path: hookSocketPath(cfg), ConnectWait: socketConnectWait, AnswerWait: cfg.HookTimeout + socketAnswerSlack}
	hook.Run(ctx, rest[0], e.stdin, e.stdout, cfg.HookTimeout+hookSlack, log, open, sock, lostHookWrites(cfg, log))
	return nil
}

// keepingHandler is the handler of a post-tool-use hook that keeps its tool
// call in the spool beside the SQLite database instead of opening it (see
// hook.KeptToolCall); nil for other events, for a PostgreSQL database (which
// a hook opens in less than SQLite's schema takes to read), and when a server
// took the request without answering (the hook then writes under the
// request's id, so that what the server wrote is not written twice).
func keepingHandler(ctx context.Context, cfg *config.Config, log *slog.Logger, ev string) *hook.Handler {
	if ev != hook.PostToolUse || cfg.DatabaseURL != "" || spool.WriteID(ctx) != "" {
		return nil
	}
	h := &hook.Handler{Memory: memory.NewService(nil, nil, memoryOptions(cfg, log)), Logger: log,
		Projects: project.NewResolver(nil, cfg.Project, log)} // for a pinned project only: no database
	if cfg.Capture {
		h.Capture = &capture.Recorder{}
	}
	h.KeepToolCalls = func(ctx context.Context, k *hook.KeptToolCall) error {
		w, err := spool.New(cfg.SpoolDir(), log).AddUnsynced(sqlite.SpoolKeptToolCall, "", k)
		if err == nil {
			log.Debug("tool call kept in the spool for the next hook that opens the database", "id", w.ID, "spool", cfg.SpoolDir())
			return nil
		}
		// The spool cannot take it (a full disk, a read-only directory):
		// the database may still.
		log.Warn("tool call not kept in the spool; writing it to the database", "spool", cfg.SpoolDir(), "err", err)
		a, oerr := openAppWith(ctx, cfg, log, modeHook)
		if oerr != nil {
			return errors.Join(err, oerr)
		}
		return a.hookHandler(a.mem).RecordKept(ctx, k)
	}
	return h
}

// prefetchPromptVector asks Ollama for the vector of a prompt hook's query
// at once, before the hook opens the database (the embedding and the opening
// then run side by side), and returns the embedder that hands it over; nil
// for other events or with Ollama turned off.
func prefetchPromptVector(ctx context.Context, cfg *config.Config, log *slog.Logger, ev string, in *hook.Input) memory.Embedder {
	if ev != hook.UserPromptSubmit || cfg.OllamaOff {
		return nil
	}
	client, err := newOllama(cfg)
	if err != nil {
		return nil // openAppWith says why
	}
	return askedAtOnce(ctx, ev, in, hookGuard(cfg, log).Embedder(client))
}

// askedAtOnce is embedder with the vector of a prompt hook's query asked for
// now (hook.PrefetchQuery); embedder itself for other events or a prompt too
// short to be searched.
func askedAtOnce(ctx context.Context, ev string, in *hook.Input, embedder memory.Embedder) memory.Embedder {
	query, ok := hook.PromptQuery(in)
	if ev != hook.UserPromptSubmit || !ok || embedder == nil {
		return embedder
	}
	return hook.PrefetchQuery(ctx, embedder, query)
}

// lostHookWrites records, in the spool's directory of cfg's database, the
// writes of a hook event that were never made (the database did not open,
// or the hook's time ran out first): stats, doctor and the next session's
// start tell of them. An event that writes nothing with cfg loses nothing.
func lostHookWrites(cfg *config.Config, log *slog.Logger) hook.Lost {
	return func(event, cause string) {
		kind := hook.WriteOf(event, cfg.Capture, cfg.Summaries)
		if kind == "" {
			return
		}
		if err := spool.New(cfg.SpoolDir(), log).RecordLost(kind, cause); err != nil {
			log.Error("a lost hook write could not be recorded either", "hook", event, "err", err)
		}
	}
}

// endOfTurnDrain bounds what Stop, PreCompact and SessionEnd apply of the
// spool (a turn's kept tool calls, a millisecond or less each): the rest is
// applied by the next write, a bounded part at a time, or by recall serve.
var endOfTurnDrain = spool.Budget{Time: 500 * time.Millisecond}

// A running recall serve answers a hook when it takes the connection within
// socketConnectWait and answers within the vector budget plus
// socketAnswerSlack; past either the hook does the work itself.
const (
	socketConnectWait = 10 * time.Millisecond
	socketAnswerSlack = 400 * time.Millisecond
)

// hookHandler answers hook events over a's services, with mem for the prompt
// hook's search.
func (a *app) hookHandler(mem *memory.Service) *hook.Handler {
	h := &hook.Handler{
		Memory:      mem,
		Projects:    a.projects,
		TokenBudget: a.cfg.DefaultTokenBudget,
		Summaries:   a.cfg.Summaries,
		Floor:       memory.Floor{MinCoverage: a.cfg.PromptMinCoverage, MinSimilarity: a.cfg.MatchMinSimilarity},
		Logger:      a.log,
		Vectors:     &a.vectors,
		ToolCalls:   a.db,
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
	if a.cfg.Capture {
		h.Capture = &capture.Recorder{Store: a.db}
	}
	switch db := a.db.(type) {
	case *sqlite.DB:
		h.Losses = db // its spool records what it could not keep
		h.ApplyKept = func(ctx context.Context) error {
			_, err := db.DrainSpool(ctx, endOfTurnDrain)
			return err
		}
	case *postgres.DB:
		// Takes a write at once or not at all: the handler records the
		// writes it failed to make.
		h.Losses, h.Lost = db, db
	}
	return h
}

// answerHook answers one hook event of a client machine over HTTP in a
// running server, its writes made before the answer.
func (a *app) answerHook(ctx context.Context, event string, in *hook.Input) (*hook.Output, error) {
	return a.serverHookHandler(ctx, event, in).Handle(ctx, event, in)
}

// answerHookFirst answers one hook event of this machine on the socket, its
// writes made after the answer (see hook.Server.InFlight).
func (a *app) answerHookFirst(ctx context.Context, event string, in *hook.Input) (*hook.Output, func() error, error) {
	return a.serverHookHandler(ctx, event, in).HandleFirst(ctx, event, in)
}

// serverHookHandler is the handler of one hook event in a running server.
func (a *app) serverHookHandler(ctx context.Context, event string, in *hook.Input) *hook.Handler {
	// A guard per event: what it learns of Ollama goes to the state file,
	// which every hook reads, not into this process. A prompt's vector is
	// asked for as the request comes in, as a hook working alone does.
	// With RECALL_OLLAMA=off nothing asks Ollama, as in a hook working alone.
	var embedder memory.Embedder
	if !a.cfg.OllamaOff {
		embedder = askedAtOnce(ctx, event, in, hookGuard(a.cfg, a.log).Embedder(a.ollama))
	}
	mem := memory.NewService(a.db, embedder, memoryOptions(a.cfg, a.log))
	h := a.hookHandler(mem)
	h.Beside = true // the server's connections are open: the journal's work runs beside the search
	if at, ok := hook.ReceivedAt(ctx); ok {
		// Records written after the answer, or by the next server, carry
		// the time the event came.
		now := func() time.Time { return at }
		h.Now = now
		if h.Capture != nil {
			h.Capture.Now = now
		}
	}
	return h
}

// serveHooks answers hooks on the socket beside the database until ctx ends:
// from the server's warm indexes, with the hooks' own vector budget and
// knowledge of Ollama. Another server already answering is left to it.
func (a *app) serveHooks(ctx context.Context) {
	path := hookSocketPath(a.cfg)
	ln, err := hook.Listen(path)
	if err != nil {
		a.log.Info("hooks not served on a socket; they open the database themselves", "socket", path, "err", err)
		return
	}
	a.log.Debug("answering hooks", "socket", path)
	s := &hook.Server{
		Deadline: a.cfg.HookTimeout + hookSlack,
		UID:      os.Getuid(),
		Logger:   a.log,
		Handle:   a.answerHookFirst,
		InFlight: hook.NewInFlight(hook.InFlightPath(path)),
	}
	// What a server before this one answered but did not write: the socket
	// is this server's now, so no other is writing it. The server waits for
	// the replay before it stops (and closes the database).
	var replaying sync.WaitGroup
	defer replaying.Wait()
	if replay, err := s.TakeOver(); err != nil {
		a.log.Warn("hook requests a stopped server had answered not read; the next server tries again", "err", err)
	} else {
		replaying.Go(func() {
			if n, err := replay.Run(ctx); err != nil || n > 0 {
				a.log.Info("hook requests a stopped server had answered, written now", "requests", n, "err", err)
			}
		})
	}
	if err := s.Serve(ctx, ln); err != nil {
		a.log.Warn("hook socket closed", "err", err)
	}
}

// hookSocketPath is where this machine's hooks find the server of the
// database: beside the SQLite file, or for a PostgreSQL database a socket of
// its own in the same directory.
func hookSocketPath(cfg *config.Config) string {
	if cfg.DatabaseURL != "" {
		return hook.ServerSocketPath(filepath.Dir(cfg.SQLitePath), cfg.DatabaseURL)
	}
	return hook.SocketPath(cfg.SQLitePath)
}

// hookGuard is how hooks treat Ollama: RECALL_HOOK_TIMEOUT is the vector
// side's budget, and the state file beside the database tells the next hooks
// to skip Ollama once one found it down, hung or too slow.
func hookGuard(cfg *config.Config, log *slog.Logger) hook.Guard {
	return hook.Guard{
		Budget:     cfg.HookTimeout,
		State:      hook.OllamaStatePath(cfg.SQLitePath),
		StartProbe: func() { startOllamaProbe(log) },
		Logger:     log,
	}
}

// startOllamaProbe starts `recall hook --probe-ollama` detached (its own
// session, no terminal), so that the prompt that asked never waits for it.
func startOllamaProbe(log *slog.Logger) {
	startDetached(log, "Ollama probe", nil, "hook", "--probe-ollama")
}

// probeOllama is `recall hook --probe-ollama`: it waits up to
// RECALL_OLLAMA_TIMEOUT for Ollama (loading the model if it must) and records
// whether it now embeds within the hooks' budget.
func probeOllama(ctx context.Context, e *env) error {
	cfg, log, err := loadConfig(e.stderr)
	if err != nil {
		return err
	}
	// A new client per embedding, as each hook makes its own: with a
	// transport of its own too, or the connection the last one left open
	// would be reused.
	newClient := func() (memory.Embedder, error) {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.DisableKeepAlives = true
		return embedding.New(embedding.Options{Host: cfg.OllamaHost, EmbedModel: cfg.OllamaModel, Timeout: cfg.OllamaTimeout,
			HTTPClient: &http.Client{Transport: transport}})
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.OllamaTimeout)
	defer cancel()
	if err := hook.Probe(ctx, newClient, hook.OllamaStatePath(cfg.SQLitePath), cfg.HookTimeout); err != nil {
		log.Info("hooks keep skipping Ollama", "reason", err)
		return nil
	}
	log.Info("Ollama answers in time again; hooks use vectors")
	return nil
}
