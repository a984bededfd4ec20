package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
)

// The commands over memories: add (store), search, list. show, edit, rm and
// restore are in memory.go.

var addCommand = &command{
	short: "Add a memory from arguments, stdin or $EDITOR",
	quiet: true,
	group: "memories",
	name:  "add",
	args:  "[--type T] [--namespace NS] [--importance X] [TEXT... | -]",
	summary: "Add a memory: from the arguments, from stdin (- or a pipe), or written in $EDITOR.\n" +
		"The same content in the same namespace is stored once. Without --namespace the\n" +
		"memory goes to the project of the working directory's git repository, as the\n" +
		"hooks name it, else to RECALL_DEFAULT_NAMESPACE (recall help namespaces).",
	setup: runAdd,
}

// storeCommand is add under the name of the MCP tool (memory_store_tool).
var storeCommand = &command{
	quiet:   true,
	group:   "memories",
	name:    "store",
	args:    addCommand.args,
	summary: "Store a memory: the same as recall add.\n" + strings.SplitN(addCommand.summary, "\n", 2)[1],
	setup:   runAdd,
}

func runAdd(fs *pflag.FlagSet) runFunc {
	typ := fs.StringP("type", "t", string(memory.TypeSession), "memory type: "+typeNames())
	ns := fs.String("namespace", "", `"global", "project:<name>" or a project's name (default: this git project, else RECALL_DEFAULT_NAMESPACE)`)
	importance := fs.Float64("importance", -1, "importance from 0 to 1 (default RECALL_DEFAULT_IMPORTANCE)")
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, args []string) error {
		content, err := contentToAdd(e, args)
		if err != nil {
			return err
		}
		req := memory.StoreRequest{Content: content, Type: memory.Type(*typ), Namespace: cliNamespace(*ns)}
		if *importance >= 0 {
			req.Importance = importance
		}
		ops, err := openMemories(ctx, e)
		if err != nil {
			return err
		}
		defer ops.Close()
		res, err := ops.Remember(ctx, req)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, struct {
				Success bool `json:"success"`
				*memory.StoreResult
			}{true, res})
		}
		verb := "stored"
		if res.Duplicate {
			verb = "already stored"
		}
		fmt.Fprintf(e.stdout, "%s %s (%s, %s)\n", verb, res.ID, res.MemoryType, res.Namespace)
		if res.EmbeddingPending && res.Warning == "" && ops.Embeds() {
			fmt.Fprintln(e.stdout, "embedding pending: searchable by keywords now, by meaning once Ollama answers (recall serve fills it)")
		}
		for _, r := range res.AutoRelationships {
			fmt.Fprintf(e.stdout, "related: %s %s %s\n", r.SourceID, r.Relation, r.TargetID)
		}
		if res.Warning != "" && ops.Embeds() {
			fmt.Fprintln(e.stdout, "warning:", res.Warning)
		}
		return nil
	}
}

// contentToAdd is the text of a new memory: the arguments, stdin (- or a
// pipe), or what the person writes in $EDITOR when neither is given.
func contentToAdd(e *env, args []string) (string, error) {
	content := strings.Join(args, " ")
	switch {
	case content == "-" || (len(args) == 0 && !isTerminal(e.stdin)):
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinContent+1))
		if err != nil {
			return "", fmt.Errorf("read the content from stdin: %w", err)
		}
		if len(b) > maxStdinContent {
			return "", fmt.Errorf("content on stdin is over %d bytes", maxStdinContent)
		}
		content = string(b)
	case len(args) == 0:
		text, err := editText(e, "", "# Write the memory below. Lines starting with # are left out;\n# save an empty file to add nothing.\n")
		if err != nil {
			return "", err
		}
		if strings.TrimSpace(text) == "" {
			return "", usagef("nothing written: no memory added")
		}
		return text, nil
	}
	if strings.TrimSpace(content) == "" {
		return "", usagef("missing the content to store (give it as arguments, - to read stdin, or nothing to write it in $EDITOR)")
	}
	return content, nil
}

// filters are the selection flags search and list share.
type filters struct {
	namespace, project, typ string
	minConf, maxConf        float64
	since, until            string
	source                  string
	all                     bool
	sort                    string
	asc                     bool
	limit                   int
	asJSON                  *bool
}

func filterFlags(fs *pflag.FlagSet, limit int, sortHelp, sortDefault string) *filters {
	f := &filters{}
	fs.StringVar(&f.namespace, "namespace", "", `only this namespace: "global", "project:<name>" or a project's name`)
	fs.StringVarP(&f.project, "project", "p", "", `only this project ("." is the working directory's)`)
	fs.StringVarP(&f.typ, "type", "t", "", "only this memory type: "+typeNames())
	fs.Float64Var(&f.minConf, "min-confidence", 0, "only memories with at least this confidence (0 to 1)")
	fs.Float64Var(&f.maxConf, "max-confidence", 1, "only memories with at most this confidence (0 to 1)")
	fs.StringVar(&f.since, "since", "", "only memories created on or after this date (2026-03-01 or RFC 3339)")
	fs.StringVar(&f.until, "until", "", "only memories created before this date (2026-03-01 or RFC 3339)")
	fs.StringVar(&f.source, "source", "", "only memories stored through this door: "+strings.Join(memory.Sources, ", ")+`, or "unknown" (stored before Recall recorded it)`)
	fs.BoolVarP(&f.all, "all", "a", false, "also superseded memories (hidden by default)")
	fs.StringVarP(&f.sort, "sort", "s", sortDefault, sortHelp)
	fs.BoolVar(&f.asc, "asc", false, "ascending order (default: descending)")
	fs.IntVarP(&f.limit, "limit", "n", limit, "at most this many")
	f.asJSON = jsonFlag(fs)
	return f
}

// jsonFlag is --json: one JSON document with the MCP tools' field names.
func jsonFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("json", false, "print JSON with the MCP tools' field names (recall help json)")
}

// open opens this machine's database and resolves the flags in it.
func (f *filters) open(ctx context.Context, e *env) (*app, string, memory.Bounds, error) {
	a, err := openApp(ctx, e, modeFull)
	if err != nil {
		return nil, "", memory.Bounds{}, err
	}
	ns, bounds, err := f.resolve(ctx, a)
	if err != nil {
		a.Close()
		return nil, "", memory.Bounds{}, err
	}
	return a, ns, bounds, nil
}

// resolve turns the flags into a namespace and bounds.
func (f *filters) resolve(ctx context.Context, a *app) (string, memory.Bounds, error) {
	var b memory.Bounds
	ns := cliNamespace(f.namespace)
	if f.project != "" {
		if ns != "" {
			return "", b, usagef("give --namespace or --project, not both")
		}
		ns = cliNamespace(f.project)
		if f.project == "." {
			here, bound, err := a.projects.Peek(ctx, "")
			if err != nil {
				return "", b, err
			}
			if !bound {
				return "", b, fmt.Errorf("this directory is not a project yet (root %s): nothing stored for it", here.Root)
			}
			ns = here.Namespace
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"--min-confidence", f.minConf}, {"--max-confidence", f.maxConf}} {
		if c.v < 0 || c.v > 1 || math.IsNaN(c.v) {
			return "", b, usagef("invalid %s %v: accepted 0 to 1", c.name, c.v)
		}
	}
	if f.minConf > 0 {
		b.MinConfidence = &f.minConf
	}
	if f.maxConf < 1 {
		b.MaxConfidence = &f.maxConf
	}
	switch f.source {
	case "":
	case "unknown":
		b.Sources = []string{""}
	default:
		if err := memory.ValidateSource(f.source); err != nil {
			return "", b, usagef("invalid --source %q: accepted %s, or unknown", f.source, strings.Join(memory.Sources, ", "))
		}
		b.Sources = []string{f.source}
	}
	var err error
	if f.since != "" {
		if b.CreatedAfter, err = parseDateFlag("--since", f.since); err != nil {
			return "", b, err
		}
	}
	if f.until != "" {
		if b.CreatedBefore, err = parseDateFlag("--until", f.until); err != nil {
			return "", b, err
		}
	}
	return ns, b, nil
}

// Sort keys of list (the store orders) and search (relevance, or one of them).
var listSortKeys = []string{"created", "accessed", "importance", "confidence"}
var sortKeys = append([]string{"relevance"}, listSortKeys...)

func orderBy(key string) (memory.OrderBy, error) {
	switch key {
	case "created", "created_at":
		return memory.OrderCreatedAt, nil
	case "accessed", "accessed_at":
		return memory.OrderBy("accessed_at"), nil
	case "importance":
		return memory.OrderBy("importance"), nil
	case "confidence":
		return memory.OrderBy("confidence"), nil
	}
	return "", usagef("invalid --sort %q: accepted %s", key, strings.Join(listSortKeys, ", "))
}

var searchCommand = &command{
	quiet: true,
	group: "memories",
	name:  "search",
	args:  "[flags] QUERY...",
	summary: "Search memories by meaning and keywords, best first.\n" +
		"MATCH is how well each memory matches against the best one (100%); --sort\n" +
		"orders the matches otherwise. Filters narrow what is searched.",
	setup: runSearch,
}

func runSearch(fs *pflag.FlagSet) runFunc {
	f := filterFlags(fs, 10, "order of the results: "+strings.Join(sortKeys, ", "), "relevance")
	related := fs.Bool("related", false, "also list memories linked to the results")
	return func(ctx context.Context, e *env, args []string) error {
		query := strings.Join(args, " ")
		if strings.TrimSpace(query) == "" {
			return usagef("missing the query")
		}
		if f.sort != "relevance" {
			if _, err := orderBy(f.sort); err != nil {
				return usagef("invalid --sort %q: accepted %s", f.sort, strings.Join(sortKeys, ", "))
			}
		}
		if cfg, log, ok := clientConfig(e); ok {
			res, err := searchThroughServer(ctx, cfg, log, f, query, *related)
			if err != nil {
				return err
			}
			return printSearch(e, f, res, cfg.OllamaOff)
		}
		a, ns, bounds, err := f.open(ctx, e)
		if err != nil {
			return err
		}
		defer a.Close()
		res, err := a.mem.Recall(ctx, memory.RecallRequest{
			Query: query, NResults: f.limit, Namespace: ns, Type: memory.Type(f.typ), IncludeRelated: *related,
			IncludeSuperseded: f.all, Bounds: bounds,
		})
		if err != nil {
			return err
		}
		if err := printSearch(e, f, res, a.cfg.OllamaOff); err != nil || len(res.Memories) > 0 || *f.asJSON {
			return err
		}
		printSessionMatches(ctx, e, a, query, ns)
		return nil
	}
}

// sessionMatches is how many entries of captured sessions a search that
// found no memory lists.
const sessionMatches = 3

// printSessionMatches lists the entries of captured sessions (prompts, tool
// calls, summaries) that match a search which found no memory: what the hooks
// captured is searched by recall_search, not by memory search, and a person
// looking for past work would otherwise be told there is nothing.
func printSessionMatches(ctx context.Context, e *env, a *app, query, namespace string) {
	var namespaces []string
	if namespace != "" {
		namespaces = []string{namespace}
	}
	hits, err := a.db.SearchEntries(ctx, query, namespaces, sessionMatches)
	if err != nil || len(hits) == 0 {
		return
	}
	fmt.Fprintln(e.stdout, "\ncaptured sessions match (what the hooks recorded; the agent finds it with recall_search):")
	for _, h := range hits {
		en := h.Entry
		fmt.Fprintf(e.stdout, "  %-6s %s  %s\n", capture.EntryID(en.ID), en.CreatedAt.Local().Format("2006-01-02"), memory.Preview(en.Title, 100))
	}
	fmt.Fprintf(e.stdout, "read one whole: recall call recall_details '{\"ids\": [\"%s\"]}'\n", capture.EntryID(hits[0].Entry.ID))
}

// printSearch prints a search's results as --json and the flags ask.
func printSearch(e *env, f *filters, res *memory.RecallResult, ollamaOff bool) error {
	best := 0.0
	if len(res.Memories) > 0 {
		best = res.Memories[0].Score
	}
	sortScored(res.Memories, f.sort, f.asc)
	if *f.asJSON {
		return writeJSON(e.stdout, struct {
			Success bool `json:"success"`
			*memory.RecallResult
		}{true, res})
	}
	out := page(e.stdout)
	st := style(colour(e.stdout))
	if res.Degraded && !ollamaOff {
		note := res.Reason
		if !strings.Contains(note, "keyword") {
			note = "keyword search only: " + note
		}
		fmt.Fprintln(out, st.yellow("note: "+note))
	}
	if len(res.Memories) == 0 {
		fmt.Fprintln(out, "no memories found")
		return out.flush()
	}
	t := memoryTable(st, "MATCH")
	for _, m := range res.Memories {
		t.add(memoryRow(m.Memory, matchPercent(m.Score, best))...)
	}
	for _, m := range res.Expanded {
		t.add(memoryRow(m.Memory, "via "+string(m.ViaEdge))...)
	}
	t.write(out, termWidth(e.stdout), st)
	return out.flush()
}

// matchPercent is a score against the best one: fused ranks give scores
// such as 0.016 that mean nothing alone; their ratio to the best does.
func matchPercent(score, best float64) string {
	if best <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", int(math.Round(100*score/best)))
}

// sortScored orders search results by key (relevance keeps the ranking).
func sortScored(ms []memory.ScoredMemory, key string, asc bool) {
	if key == "relevance" {
		if asc {
			slices.Reverse(ms)
		}
		return
	}
	slices.SortStableFunc(ms, func(a, b memory.ScoredMemory) int {
		var c int
		switch key {
		case "created":
			c = a.CreatedAt.Compare(b.CreatedAt)
		case "accessed":
			c = a.AccessedAt.Compare(b.AccessedAt)
		case "importance":
			c = cmp.Compare(a.Importance, b.Importance)
		case "confidence":
			c = cmp.Compare(a.Confidence, b.Confidence)
		}
		if !asc {
			c = -c
		}
		return c
	})
}

// memoryTable is the table search and list print: a memory a line, its
// content cut to what the terminal's width leaves.
func memoryTable(st style, extra string) *table {
	t := &table{header: []string{"ID", "TYPE", "NAMESPACE", "CONF", "CREATED", "CONTENT"}}
	t.paint = []func(string) string{st.cyan, nil, st.dim, nil, st.dim, nil}
	if extra != "" {
		t.header = append([]string{extra}, t.header...)
		t.paint = append([]func(string) string{st.green}, t.paint...)
	}
	return t
}

func memoryRow(m *memory.Memory, extra string) []string {
	row := []string{m.ID, string(m.Type), m.Namespace, fmt.Sprintf("%.2f", m.Confidence), m.CreatedAt.Local().Format("2006-01-02"), m.Content}
	if extra != "" {
		row = append([]string{extra}, row...)
	}
	return row
}

var listCommand = &command{
	quiet: true,
	group: "memories",
	name:  "list",
	args:  "[flags]",
	summary: "List memories, newest first.\n" +
		"Superseded memories are hidden (the list says how many); --all shows them.",
	setup: runList,
}

func runList(fs *pflag.FlagSet) runFunc {
	f := filterFlags(fs, 20, "order: "+strings.Join(listSortKeys, ", "), "created")
	offset := fs.Int("offset", 0, "skip this many")
	return func(ctx context.Context, e *env, args []string) error {
		if err := noArgs(args); err != nil {
			return err
		}
		order, err := orderBy(f.sort)
		if err != nil {
			return err
		}
		if cfg, _, ok := clientConfig(e); ok {
			res, hidden, err := listThroughServer(ctx, cfg, f, string(order), *offset)
			if err != nil {
				return err
			}
			return printList(e, f, res, hidden)
		}
		a, ns, bounds, err := f.open(ctx, e)
		if err != nil {
			return err
		}
		defer a.Close()
		desc := !f.asc
		req := memory.ListRequest{
			Namespace: ns, Type: memory.Type(f.typ), Limit: f.limit, Offset: *offset, OrderBy: string(order), Descending: &desc,
			IncludeSuperseded: f.all, Bounds: bounds,
		}
		res, err := a.mem.List(ctx, req)
		if err != nil {
			return err
		}
		hidden := 0
		if !f.all {
			if hidden, err = supersededHidden(ctx, a, req, res.Total); err != nil {
				return err
			}
		}
		return printList(e, f, res, hidden)
	}
}

// printList prints a page of memories as --json and the flags ask; hidden
// is how many superseded memories the list leaves out.
func printList(e *env, f *filters, res *memory.ListResult, hidden int) error {
	if *f.asJSON {
		return writeJSON(e.stdout, struct {
			Success bool `json:"success"`
			*memory.ListResult
			HiddenSuperseded int `json:"hidden_superseded"`
		}{true, res, hidden})
	}
	note := ""
	if hidden > 0 {
		note = fmt.Sprintf(" (%s hidden: --all lists them)", describe.Count(hidden, "superseded memory", "superseded memories"))
	}
	if res.Total == 0 {
		fmt.Fprintf(e.stdout, "no memories%s\n", note)
		return nil
	}
	if res.Count == 0 {
		fmt.Fprintf(e.stdout, "nothing at offset %d: there are %s (offsets 0 to %d)%s\n", res.Offset, describe.Count(res.Total, "memory", "memories"), res.Total-1, note)
		return nil
	}
	out := page(e.stdout)
	st := style(colour(e.stdout))
	t := memoryTable(st, "")
	for _, m := range res.Memories {
		t.add(memoryRow(m, "")...)
	}
	t.write(out, termWidth(e.stdout), st)
	fmt.Fprintf(out, "showing %d-%d of %d%s\n", res.Offset+1, res.Offset+res.Count, res.Total, note)
	return out.flush()
}

// supersededHidden counts the memories req would list with superseded ones
// included, beyond the total it listed without them.
func supersededHidden(ctx context.Context, a *app, req memory.ListRequest, total int) (int, error) {
	req.IncludeSuperseded, req.Limit, req.Offset = true, 1, 0
	all, err := a.mem.List(ctx, req)
	if err != nil {
		return 0, err
	}
	return all.Total - total, nil
}

// parseDateFlag reads a day (2026-03-01, midnight local time) or an RFC 3339
// time.
func parseDateFlag(flag, s string) (time.Time, error) {
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, usagef("invalid %s %q: want a date like 2026-03-01 or a time like 2026-03-01T15:04:05Z", flag, s)
}
