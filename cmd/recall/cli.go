package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"

	"github.com/spf13/pflag"
)

// The human commands: the same services as the MCP tools, printed for people.

var forgetCommand = &command{
	short: "Delete memories for good, by id or query; or captured sessions",
	quiet: true,
	name:  "forget",
	args:  "<id | query> [--yes] [--force] [--namespace NS] [-n N] | --session ID | --before DATE [--yes]",
	summary: "Delete a memory by id, or the memories matching a query.\n" +
		"A query only shows what it would delete until --yes is given; golden rules\n" +
		"need --force. --session and --before remove captured material instead: the\n" +
		"journal of a session, or everything captured before a date (2026-03-01 or\n" +
		"RFC 3339), with its file activity and the session memories summaries became.",
	setup: runForget,
}

func runForget(fs *pflag.FlagSet) runFunc {
	yes := fs.Bool("yes", false, "delete what a query matches (without it: only show)")
	force := fs.Bool("force", false, "also delete golden rules")
	ns := fs.String("namespace", "", "only memories of this namespace (query mode)")
	n := fs.IntP("limit", "n", 5, "at most this many memories (query mode)")
	session := fs.String("session", "", "remove what was captured of this Claude Code session")
	before := fs.String("before", "", "remove what was captured before this date (2026-03-01 or RFC 3339)")
	return func(ctx context.Context, e *env, rest []string) error {
		input := strings.TrimSpace(strings.Join(rest, " "))
		if *session != "" || *before != "" {
			if input != "" {
				return usagef("give either an id or query, or --session/--before, not both")
			}
			return forgetCaptured(ctx, e, *session, *before, *yes)
		}
		if input == "" {
			return usagef("missing the id or query of what to forget")
		}
		byID := memory.LooksLikeID(input)
		ops, err := openMemories(ctx, e)
		if err != nil {
			return err
		}
		defer ops.Close()
		res, err := ops.Forget(ctx, memory.ForgetRequest{
			Input: input, Namespace: cliNamespace(*ns), NResults: *n, Force: *force, Confirm: byID || *yes,
		})
		if errors.Is(err, memory.ErrProtected) {
			return fmt.Errorf("%s is a golden rule: add --force to delete it", input)
		}
		if err != nil {
			return err
		}
		verb := "deleted"
		if res.DryRun {
			verb = "would delete"
		}
		for _, d := range res.Deleted {
			fmt.Fprintf(e.stdout, "%s %s  %s\n", verb, d.ID, d.Preview)
		}
		for _, id := range res.Protected {
			fmt.Fprintf(e.stdout, "kept %s: a golden rule (add --force to delete it)\n", id)
		}
		switch {
		case res.DeletedCount == 0 && len(res.Protected) == 0:
			fmt.Fprintln(e.stdout, res.Message)
		case res.DryRun && res.DeletedCount > 0:
			fmt.Fprintln(e.stdout, "nothing deleted yet: run again with --yes to delete these")
		}
		return nil
	}
}

// forgetCaptured removes captured material of a session and/or before a date;
// without --yes it only counts it. On a client of a team server the server
// does it, as the person (their own sessions alone).
func forgetCaptured(ctx context.Context, e *env, session, beforeArg string, yes bool) error {
	var before time.Time
	if beforeArg != "" {
		var err error
		if before, err = parseDate(beforeArg); err != nil {
			return err
		}
	}
	var res *capture.ForgetResult
	if cfg, _, ok := clientConfig(e); ok {
		c, err := teamClient(cfg)
		if err != nil {
			return err
		}
		body := map[string]any{"session": session, "confirm": yes}
		if !before.IsZero() {
			body["before"] = before.Format(time.RFC3339Nano)
		}
		var out struct {
			Entries  int      `json:"entries"`
			Memories []string `json:"memories"`
			Kept     []string `json:"kept"`
		}
		if err := c.Do(ctx, http.MethodPost, "journal/forget", nil, body, &out); err != nil {
			return err
		}
		res = &capture.ForgetResult{Entries: out.Entries, Memories: out.Memories, Kept: out.Kept}
	} else {
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		if res, err = a.forgetCaptured(ctx, session, before, yes); err != nil {
			return err
		}
	}
	if !yes {
		fmt.Fprintf(e.stdout, "would delete %d captured entries, with their file activity and session memories\n", res.Entries)
		if res.Entries > 0 {
			fmt.Fprintln(e.stdout, "nothing deleted yet: run again with --yes to delete them")
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "deleted %d captured entries and %d session memories\n", res.Entries, len(res.Memories))
	for _, id := range res.Kept {
		fmt.Fprintf(e.stdout, "kept %s: a golden rule now (delete it by id with --force)\n", id)
	}
	return nil
}

// forgetCaptured removes what was captured of a session and/or before a
// time, as whoever asks in ctx (a person: their own sessions); unconfirmed,
// it only counts the entries (recall forget --session/--before, here and
// for a client machine through the viewer's API).
func (a *app) forgetCaptured(ctx context.Context, session string, before time.Time, confirm bool) (*capture.ForgetResult, error) {
	// Hook writes still in the spool may belong to what is forgotten: applied
	// later, they would bring it back. Apply them first.
	if res, err := a.drainSpoolOnce(ctx); err != nil || res.Left > 0 {
		return nil, fmt.Errorf("%d hook writes still wait in the spool beside the database (%v): run again once no other process holds the database", res.Left, err)
	}
	if !confirm {
		n, err := a.db.CountEntries(ctx, session, before)
		if err != nil {
			return nil, err
		}
		return &capture.ForgetResult{Entries: n}, nil
	}
	return capture.Forget(ctx, a.db, a.db, session, before)
}

// parseDate reads a day (2026-03-01, midnight UTC) or an RFC 3339 time.
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, usagef("invalid --before %q: want a date like 2026-03-01 or a time like 2026-03-01T15:04:05Z", s)
}

var statsCommand = &command{
	quiet:   true,
	name:    "stats",
	args:    "[--json]",
	summary: "Show what the database holds.",
	setup:   runStats,
}

func runStats(fs *pflag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print JSON")
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		ops, err := openMemories(ctx, e)
		if err != nil {
			return err
		}
		defer ops.Close()
		st, err := ops.Stats(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, st)
		}
		w := e.stdout
		fmt.Fprintf(w, "database:           %s (%s, schema %d)\n", ops.Where(), describe.Bytes(st.FileBytes), st.SchemaVersion)
		fmt.Fprintf(w, "memories:           %d\n", st.Memories)
		printCounts(w, "by namespace", st.ByNamespace)
		printCounts(w, "by type", st.ByType)
		fmt.Fprintf(w, "edges:              %d\n", st.Edges)
		fmt.Fprintf(w, "validation events:  %d\n", st.ValidationEvents)
		fmt.Fprintf(w, "file activity:      %d\n", st.FileActivity)
		model := st.EmbeddingModel
		if model == "" {
			model = "none yet"
		}
		fmt.Fprintf(w, "embeddings:         %s (dimension %d), %d pending\n", model, st.EmbeddingDim, st.PendingEmbeddings)
		fmt.Fprintf(w, "jobs:               %s\n", describe.JobBacklog(st, time.Now()))
		if st.LastJobError != "" {
			fmt.Fprintf(w, "  last job failure: %s\n", st.LastJobError)
		}
		if st.FailedJobs > 0 {
			fmt.Fprintf(w, "  failed for good:  %d (the last: %s)\n", st.FailedJobs, st.LastJobFailure)
		}
		for _, h := range st.ModelHealth {
			fmt.Fprintf(w, "%-20s%s\n", h.Role+" model:", describe.ModelFailing(h, time.Now()))
		}
		fmt.Fprintf(w, "session journal:    %d entries (%d trimmed), %d summaries pending\n", st.JournalEntries, st.TrimmedEntries, st.PendingSummaries)
		if local, ok := ops.(localOps); ok {
			if db := local.a.sqlite(); db != nil {
				fmt.Fprintf(w, "spooled writes:     %s\n", spoolBacklog(st, db.SpoolDir()))
			}
		}
		return nil
	}
}

// spoolBacklog describes the hooks' writes that met another process's write
// lock: how many wait to be applied, and how many never could be.
func spoolBacklog(st *memory.Stats, dir string) string {
	out := fmt.Sprintf("%d waiting", st.SpooledWrites)
	if st.SpooledWrites > 0 {
		out += " (the next hook or recall serve applies them)"
	}
	if st.FailedSpooledWrites > 0 {
		out += fmt.Sprintf(", %d could not be applied (in %s)", st.FailedSpooledWrites, filepath.Join(dir, "failed"))
	}
	if st.LostWrites > 0 {
		out += fmt.Sprintf(", %d LOST (kept nowhere; last %s)", st.LostWrites, st.LastLostWrite)
	}
	return out
}

var reindexCommand = &command{
	quiet: true,
	name:  "reindex",
	args:  "",
	summary: "Embed every memory again with the configured model.\n" +
		"Run it after changing RECALL_OLLAMA_MODEL, or when doctor reports a mismatched\n" +
		"embedding space. The old vectors stay in use until every memory has a new one;\n" +
		"Ctrl-C (or a kill) keeps what is done, and running it again continues there.\n" +
		"Progress (count, rate, time left) goes to stderr.",
	setup: runReindex,
}

func runReindex(fs *pflag.FlagSet) runFunc {
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		a, err := openApp(ctx, e, modeFull)
		if err != nil {
			return err
		}
		defer a.Close()
		if a.cfg.OllamaOff {
			return errors.New("RECALL_OLLAMA=off: there is no embedding model to reindex with; unset it (or set it to on) first")
		}
		fmt.Fprintf(e.stderr, "re-embedding with %s at %s ...\n", a.ollama.Model(), a.ollama.Host())
		pr := newProgress(e.stderr, false)
		p, err := a.mem.Reindex(ctx, func(r memory.ReindexProgress) { pr.show(reindexLine(r), r.Done >= r.Total) })
		pr.end(true)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("reindex interrupted after %d of %d memories; the old vectors stay in use; run recall reindex again to continue", p.Done, p.Total)
			}
			return err
		}
		fmt.Fprintf(e.stderr, "done: %s embedded in %s", describe.Count(p.Done, "memory", "memories"), p.Elapsed.Round(time.Millisecond))
		if p.Resumed > 0 {
			fmt.Fprintf(e.stderr, " (%d by an earlier run)", p.Resumed)
		}
		if p.Skipped > 0 {
			fmt.Fprintf(e.stderr, "; %d timed out and stay pending (raise RECALL_OLLAMA_TIMEOUT, then run it again)", p.Skipped)
		}
		fmt.Fprintln(e.stderr)
		return nil
	}
}

var versionCommand = &command{
	short:   "Print the version and what it was built from",
	name:    "version",
	args:    "",
	summary: "Print the version, the module version and VCS revision it was built from, and Go's.",
	setup: func(fs *pflag.FlagSet) runFunc {
		return func(ctx context.Context, e *env, args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "recall %s (%s, %s/%s)\n", version(), buildDetail(), runtime.GOOS, runtime.GOARCH)
			return nil
		}
	},
}

// releaseVersion is the version of this source tree; .claude-plugin/plugin.json
// carries the same one (a test checks), and a release is tagged v<it>.
const releaseVersion = "0.1.0"

// buildVersion is set at link time: -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion string

// version is the link-time version, else the module's tagged version from the
// build information (go install ...@v0.1.0), else releaseVersion.
func version() string {
	if buildVersion != "" {
		return strings.TrimPrefix(buildVersion, "v")
	}
	if bi, ok := debug.ReadBuildInfo(); ok && isReleaseTag(bi.Main.Version) {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return releaseVersion
}

// isReleaseTag reports a plain vX.Y.Z: not "(devel)", not a pseudo-version
// (v0.0.0-20260101000000-abcdef) nor a dirty build.
func isReleaseTag(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.ContainsAny(v, "-+")
}

// buildDetail is the module version and VCS revision of the build, and Go's
// version.
func buildDetail() string {
	parts := []string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		parts = append(parts, "module "+bi.Main.Version)
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				parts = append(parts, "revision "+s.Value[:12])
			}
		}
	}
	return strings.Join(append(parts, runtime.Version()), ", ")
}

// maxStdinContent bounds what `recall store -` reads.
const maxStdinContent = 1 << 20

func printCounts(w io.Writer, label string, counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	fmt.Fprintf(w, "  %-17s %s\n", label+":", strings.Join(parts, ", "))
}

func typeNames() string {
	names := make([]string, len(memory.Types))
	for i, t := range memory.Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
