package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// The human commands: the same services as the MCP tools, printed for people.

var storeCommand = &command{
	name:    "store",
	args:    "[--type T] [--namespace NS] [--importance X] <content>",
	summary: "Store a memory (the same content in the same namespace is stored once).",
	run:     runStore,
}

func runStore(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	typ := fs.String("type", string(memory.TypeSession), "memory type: "+typeNames())
	ns := fs.String("namespace", "", `"global" or "project:<name>" (default RECALL_DEFAULT_NAMESPACE)`)
	importance := fs.Float64("importance", -1, "importance from 0 to 1 (default RECALL_DEFAULT_IMPORTANCE)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	content := strings.Join(rest, " ")
	if strings.TrimSpace(content) == "" {
		return usagef("missing the content to store")
	}
	req := memory.StoreRequest{Content: content, Type: memory.Type(*typ), Namespace: *ns}
	if *importance >= 0 {
		req.Importance = importance
	}
	a, err := openApp(ctx, e.stderr, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()
	res, err := a.mem.Remember(ctx, req)
	if err != nil {
		return err
	}
	verb := "stored"
	if res.Duplicate {
		verb = "already stored"
	}
	fmt.Fprintf(e.stdout, "%s %s (%s, %s)\n", verb, res.ID, res.MemoryType, res.Namespace)
	if res.EmbeddingPending {
		fmt.Fprintln(e.stdout, "embedding pending: searchable by keywords now, by meaning once Ollama answers (recall serve fills it)")
	}
	for _, r := range res.AutoRelationships {
		fmt.Fprintf(e.stdout, "related: %s %s %s\n", r.SourceID, r.Relation, r.TargetID)
	}
	if res.Warning != "" {
		fmt.Fprintln(e.stdout, "warning:", res.Warning)
	}
	return nil
}

var searchCommand = &command{
	name:    "search",
	args:    "[-n N] [--namespace NS] [--type T] <query>",
	summary: "Search memories by meaning and keywords, best first.",
	run:     runSearch,
}

func runSearch(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	n := fs.Int("n", 5, "number of results")
	ns := fs.String("namespace", "", "only this namespace")
	typ := fs.String("type", "", "only this memory type: "+typeNames())
	related := fs.Bool("related", false, "also list memories linked to the results")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query := strings.Join(rest, " ")
	if strings.TrimSpace(query) == "" {
		return usagef("missing the query")
	}
	a, err := openApp(ctx, e.stderr, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()
	res, err := a.mem.Recall(ctx, memory.RecallRequest{
		Query: query, NResults: *n, Namespace: *ns, Type: memory.Type(*typ), IncludeRelated: *related,
	})
	if err != nil {
		return err
	}
	if res.Degraded {
		note := res.Reason
		if !strings.Contains(note, "keyword") {
			note = "keyword search only: " + note
		}
		fmt.Fprintln(e.stdout, "note:", note)
	}
	if len(res.Memories) == 0 {
		fmt.Fprintln(e.stdout, "no memories found")
		return nil
	}
	for i, m := range res.Memories {
		fmt.Fprintf(e.stdout, "%d. ", i+1)
		printMemory(e.stdout, m.Memory, fmt.Sprintf("score %.3f", m.Score))
	}
	for _, m := range res.Expanded {
		fmt.Fprintf(e.stdout, "   via %s of %s: ", m.ViaEdge, m.ViaID)
		printMemory(e.stdout, m.Memory, fmt.Sprintf("score %.3f", m.Score))
	}
	return nil
}

var listCommand = &command{
	name:    "list",
	args:    "[--namespace NS] [--type T] [--limit N] [--offset N] [--order-by K] [--asc]",
	summary: "List memories, newest first.",
	run:     runList,
}

func runList(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	ns := fs.String("namespace", "", "only this namespace")
	typ := fs.String("type", "", "only this memory type: "+typeNames())
	limit := fs.Int("limit", 20, "at most this many (up to 1000)")
	offset := fs.Int("offset", 0, "skip this many")
	order := fs.String("order-by", string(memory.OrderCreatedAt), "created_at, accessed_at, importance or confidence")
	asc := fs.Bool("asc", false, "ascending order")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	a, err := openApp(ctx, e.stderr, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()
	desc := !*asc
	res, err := a.mem.List(ctx, memory.ListRequest{
		Namespace: *ns, Type: memory.Type(*typ), Limit: *limit, Offset: *offset, OrderBy: *order, Descending: &desc,
	})
	if err != nil {
		return err
	}
	if res.Total == 0 {
		fmt.Fprintln(e.stdout, "no memories")
		return nil
	}
	for _, m := range res.Memories {
		printMemory(e.stdout, m, "")
	}
	fmt.Fprintf(e.stdout, "showing %d-%d of %d\n", res.Offset+1, res.Offset+res.Count, res.Total)
	return nil
}

var forgetCommand = &command{
	name: "forget",
	args: "<id | query> [--yes] [--force] [--namespace NS] [-n N]",
	summary: "Delete a memory by id, or the memories matching a query.\n" +
		"A query only shows what it would delete until --yes is given; golden rules\n" +
		"need --force.",
	run: runForget,
}

func runForget(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	yes := fs.Bool("yes", false, "delete what a query matches (without it: only show)")
	force := fs.Bool("force", false, "also delete golden rules")
	ns := fs.String("namespace", "", "only memories of this namespace (query mode)")
	n := fs.Int("n", 5, "at most this many memories (query mode)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input := strings.TrimSpace(strings.Join(rest, " "))
	if input == "" {
		return usagef("missing the id or query of what to forget")
	}
	byID := memory.LooksLikeID(input)
	a, err := openApp(ctx, e.stderr, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()
	res, err := a.mem.Forget(ctx, memory.ForgetRequest{
		Input: input, Namespace: *ns, NResults: *n, Force: *force, Confirm: byID || *yes,
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

var statsCommand = &command{
	name:    "stats",
	args:    "[--json]",
	summary: "Show what the database holds.",
	run:     runStats,
}

func runStats(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	a, err := openApp(ctx, e.stderr, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()
	st, err := a.db.Stats(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	w := e.stdout
	fmt.Fprintf(w, "database:           %s (%s, schema %d)\n", a.cfg.SQLitePath, humanBytes(st.FileBytes), st.SchemaVersion)
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
	fmt.Fprintf(w, "curation jobs:      %d pending\n", st.PendingJobs)
	return nil
}

var reindexCommand = &command{
	name: "reindex",
	args: "",
	summary: "Embed every memory again with the configured model.\n" +
		"Run it after changing RECALL_OLLAMA_MODEL, or when doctor reports a mismatched\n" +
		"embedding space. Progress goes to stderr.",
	run: runReindex,
}

func runReindex(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	a, err := openApp(ctx, e.stderr, modeFull)
	if err != nil {
		return err
	}
	defer a.Close()
	total, err := a.mem.Count(ctx, memory.CountRequest{})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "re-embedding %d memories with %s at %s ...\n", total, a.ollama.Model(), a.ollama.Host())
	n, err := a.mem.Reindex(ctx)
	if err != nil {
		return fmt.Errorf("reindex stopped after %d of %d memories (the rest stay pending and searchable by keywords): %w", n, total, err)
	}
	fmt.Fprintf(e.stderr, "done: %d memories embedded\n", n)
	return nil
}

var versionCommand = &command{
	name:    "version",
	args:    "",
	summary: "Print the version.",
	run: func(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
		if _, err := parseFlags(fs, args); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "recall %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	},
}

// buildVersion is set at link time: -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion string

// version is the link-time version, else the module version, else "dev".
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// printMemory prints one memory as a heading line and its content, indented.
func printMemory(w io.Writer, m *memory.Memory, extra string) {
	line := fmt.Sprintf("[%s] %s · %s · confidence %.2f · importance %.2f", m.ID, m.Type, m.Namespace, m.Confidence, m.Importance)
	if extra != "" {
		line += " · " + extra
	}
	fmt.Fprintln(w, line)
	for _, l := range strings.Split(strings.TrimSpace(m.Content), "\n") {
		fmt.Fprintf(w, "   %s\n", l)
	}
}

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

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func typeNames() string {
	names := make([]string, len(memory.Types))
	for i, t := range memory.Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
