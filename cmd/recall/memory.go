package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// The commands over one memory: show, edit, rm and restore.

var showCommand = &command{
	short: "Show a memory whole: links, confidence chart, change log",
	quiet: true,
	group: "memories",
	name:  "show",
	args:  "ID",
	summary: "Show a memory whole: its metadata, its links as sentences, its confidence over\n" +
		"time as a small chart, and its change log.",
	setup:    runShow,
	complete: completeMemoryIDs,
}

// shown is recall show --json: the memory with the tools' field names, its
// edges (memory_inspect_graph_tool), its validation history
// (validation_history_tool) and its change log.
type shown struct {
	Memory  *memory.Memory            `json:"memory"`
	Edges   []memory.Edge             `json:"edges"`
	Events  []memory.ValidationEvent  `json:"events"`
	Summary validation.HistorySummary `json:"summary"`
	Changes []memory.Change           `json:"changes"`
	// previews are the contents of the memories its edges link, by id.
	previews map[string]string
}

// openOne opens the memories for a command over the one memory args name
// and reads it; the caller closes ops.
func openOne[T any](ctx context.Context, e *env, args []string, read func(memoryOps, context.Context, string) (T, error)) (memoryOps, T, error) {
	var none T
	if len(args) != 1 {
		return nil, none, usagef("want one memory id (recall list shows them)")
	}
	ops, err := openMemories(ctx, e)
	if err != nil {
		return nil, none, err
	}
	v, err := read(ops, ctx, args[0])
	if err != nil {
		ops.Close()
		return nil, none, notFound(args[0], err)
	}
	return ops, v, nil
}

func runShow(fs *pflag.FlagSet) runFunc {
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, args []string) error {
		ops, s, err := openOne(ctx, e, args, memoryOps.Show)
		if err != nil {
			return err
		}
		defer ops.Close()
		if *asJSON {
			return writeJSON(e.stdout, s)
		}
		out := page(e.stdout)
		printShown(out, s, style(colour(e.stdout)), termWidth(e.stdout))
		return out.flush()
	}
}

// newShown is m with its own edges (not those between its neighbours, which
// a graph walk also returns), its validation history and change log.
func newShown(m *memory.Memory, graphEdges []memory.Edge, hist *validation.HistoryResult, changes []memory.Change) *shown {
	edges := []memory.Edge{}
	for _, e := range graphEdges {
		if e.SourceID == m.ID || e.TargetID == m.ID {
			edges = append(edges, e)
		}
	}
	if changes == nil {
		changes = []memory.Change{}
	}
	return &shown{Memory: m, Edges: edges, Events: hist.Events, Summary: hist.Summary, Changes: changes, previews: map[string]string{}}
}

// preview is the start of a linked memory's content, or "(deleted)".
func (s *shown) preview(id string) string {
	if c, ok := s.previews[id]; ok {
		return cut(c, 60)
	}
	return "(deleted)"
}

// notFound words a missing memory for a person.
func notFound(id string, err error) error {
	if errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("no memory %s (recall list shows the ids; recall restore lists the trash)", id)
	}
	return err
}

// storedHow says through which door, and by whom on a team's server, a
// memory was stored ("" when neither was recorded).
func storedHow(m *memory.Memory) string {
	var s string
	if m.Source != "" {
		s = " through " + m.Source
	}
	if m.Author != "" {
		s += " by " + m.Author
	}
	return s
}

func printShown(w io.Writer, s *shown, st style, width int) {
	m := s.Memory
	fmt.Fprintf(w, "%s  %s\n", st.cyan(st.bold(m.ID)), st.bold(string(m.Type)))
	fmt.Fprintf(w, "namespace %s · confidence %s · importance %s\n", m.Namespace, confidenceText(st, m.Confidence), strconv.FormatFloat(m.Importance, 'f', -1, 64))
	used := "never used"
	if m.AccessCount > 0 {
		used = fmt.Sprintf("used %s, last %s", describe.Count(m.AccessCount, "time", "times"), when(m.AccessedAt))
	}
	fmt.Fprintf(w, "created %s%s · updated %s · %s\n", when(m.CreatedAt), storedHow(m), when(m.UpdatedAt), used)
	if m.EmbeddingPending {
		fmt.Fprintln(w, st.yellow("no vector yet: found by keywords until recall serve embeds it"))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, strings.TrimSpace(m.Content))

	fmt.Fprintln(w)
	fmt.Fprintln(w, st.bold("Links"))
	if len(s.Edges) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, e := range s.Edges {
		fmt.Fprintln(w, "  "+edgeSentence(e, m.ID, s.preview))
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, st.bold("Confidence"))
	for _, l := range confidenceChart(s.Events, m.Confidence, min(width-12, 60)) {
		fmt.Fprintln(w, "  "+l)
	}
	sum := s.Summary
	rate := "no outcome yet"
	if sum.SuccessRate != nil {
		rate = fmt.Sprintf("success rate %d%%", int(math.Round(*sum.SuccessRate*100)))
	}
	fmt.Fprintf(w, "  %s applied, %d succeeded, %d failed; %s\n", strconv.Itoa(sum.Applied), sum.Succeeded, sum.Failed, rate)

	fmt.Fprintln(w)
	fmt.Fprintln(w, st.bold("Changes"))
	if len(s.Changes) == 0 {
		fmt.Fprintln(w, "  none since it was stored")
	}
	for _, c := range s.Changes {
		fmt.Fprintln(w, "  "+changeLine(c))
	}
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func confidenceText(st style, c float64) string {
	text := strconv.FormatFloat(math.Round(c*100)/100, 'f', -1, 64)
	switch {
	case c >= memory.GoldenRuleThreshold:
		return st.green(text)
	case c < memory.LowConfidenceCutoff:
		return st.red(text)
	}
	return text
}

// edgeSentence says an edge in words, from the shown memory's side.
func edgeSentence(e memory.Edge, self string, preview func(string) string) string {
	other, outgoing := e.TargetID, true
	if e.TargetID == self {
		other, outgoing = e.SourceID, false
	}
	them := fmt.Sprintf("%s %q", other, preview(other))
	var s string
	switch {
	case e.Relation == memory.RelationSupersedes && outgoing:
		s = "This memory replaces " + them + "."
	case e.Relation == memory.RelationSupersedes:
		s = "Replaced by " + them + "."
	case e.Relation == memory.RelationContradicts && outgoing:
		s = "This memory contradicts " + them + "."
	case e.Relation == memory.RelationContradicts:
		s = "Contradicted by " + them + "."
	case e.Relation == memory.RelationCausedBy && outgoing:
		s = "This memory was caused by " + them + "."
	case e.Relation == memory.RelationCausedBy:
		s = "It caused " + them + "."
	default:
		s = "Related to " + them + "."
	}
	if e.Weight != 1 {
		s += fmt.Sprintf(" (weight %s)", strconv.FormatFloat(e.Weight, 'f', -1, 64))
	}
	return s
}

// sparks are the eight heights of a one-line chart.
var sparks = []rune("▁▂▃▄▅▆▇█")

// confidenceChart draws the confidence over the validation events, oldest
// first, as a line of bars scaled 0 to 1 (a sparkline), with the values at
// its ends.
func confidenceChart(events []memory.ValidationEvent, current float64, width int) []string {
	var values []float64
	for i := len(events) - 1; i >= 0; i-- { // events come newest first
		ev := events[i]
		if len(values) == 0 {
			values = append(values, ev.ConfidenceBefore)
		}
		values = append(values, ev.ConfidenceAfter)
	}
	if len(values) == 0 {
		return []string{fmt.Sprintf("%.2f, unchanged since it was stored (no validation events)", current)}
	}
	if width < 10 {
		width = 10
	}
	if len(values) > width { // keep the latest
		values = values[len(values)-width:]
	}
	var b strings.Builder
	for _, v := range values {
		i := int(math.Round(v * float64(len(sparks)-1)))
		b.WriteRune(sparks[max(0, min(i, len(sparks)-1))])
	}
	return []string{fmt.Sprintf("%s  %.2f → %.2f over %s (bars: 0 to 1)", b.String(), values[0], values[len(values)-1], describe.Count(len(values)-1, "event", "events"))}
}

func changeLine(c memory.Change) string {
	var fields []string
	for _, f := range c.Fields {
		if f.Before != nil || f.After != nil {
			fields = append(fields, fmt.Sprintf("%s %v → %v", f.Field, short(f.Before), short(f.After)))
		} else {
			fields = append(fields, f.Field)
		}
	}
	line := fmt.Sprintf("%s  %s by %s", when(c.At), c.Action, c.Source)
	if c.Author != "" { // on a team server: who, beside through what
		line = fmt.Sprintf("%s  %s by %s (%s)", when(c.At), c.Action, c.Author, c.Source)
	}
	if len(fields) > 0 {
		line += ": " + strings.Join(fields, ", ")
	}
	if c.Reason != "" {
		line += fmt.Sprintf(" (%s)", c.Reason)
	}
	return line
}

func short(v any) string {
	if v == nil {
		return "?"
	}
	return cut(fmt.Sprint(v), 40)
}

var editCommand = &command{
	quiet: true,
	group: "memories",
	name:  "edit",
	args:  "ID [--content TEXT] [--type T] [--importance X] [--namespace NS]",
	summary: "Change a memory: its content, type or importance, or move it to another namespace.\n" +
		"Without flags the memory opens in $VISUAL or $EDITOR (else vi) as a short header\n" +
		"(type, importance) and the content; what is saved is checked and recorded in the\n" +
		"memory's change log as made by the cli, as the viewer records its edits. A golden\n" +
		"rule's type is changed with the viewer's demote, which asks for a reason.",
	setup:    runEdit,
	complete: completeMemoryIDs,
}

func runEdit(fs *pflag.FlagSet) runFunc {
	content := fs.String("content", "", "the new content")
	typ := fs.StringP("type", "t", "", "the new type: "+typeNames())
	importance := fs.Float64("importance", -1, "the new importance, 0 to 1")
	ns := fs.String("namespace", "", `move it: "global", "project:<name>" or a project's name`)
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, args []string) error {
		ops, m, err := openOne(ctx, e, args, memoryOps.Get)
		if err != nil {
			return err
		}
		defer ops.Close()
		req := memory.UpdateRequest{MemoryID: m.ID, By: memory.SourceCLI}
		if fs.Changed("content") {
			req.Content = content
		}
		if fs.Changed("type") {
			t := memory.Type(*typ)
			req.Type = &t
		}
		if fs.Changed("importance") {
			req.Importance = importance
		}
		if fs.Changed("namespace") {
			to := cliNamespace(*ns)
			req.Namespace = &to
		}
		if req.Content == nil && req.Type == nil && req.Importance == nil && req.Namespace == nil {
			if req, err = editInEditor(e, m); err != nil {
				return err
			}
		}
		res, err := ops.Update(ctx, req)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, res)
		}
		if len(res.Changed) == 0 {
			fmt.Fprintf(e.stdout, "nothing changed in %s\n", m.ID)
			return nil
		}
		fmt.Fprintf(e.stdout, "changed %s of %s (recorded in its change log)\n", strings.Join(res.Changed, ", "), res.Memory.ID)
		return nil
	}
}

// editHeader is the top of the file recall edit opens: the fields a person
// may change, then the content.
const editHeader = `# Edit the memory below and save; quit without saving to change nothing.
# type is one of %s; importance is 0 to 1.
# Lines starting with # are left out.
type: %s
importance: %s
---
`

// editInEditor opens m in the editor and reads back what changed. A file
// that does not check out is kept, and its path given, so no writing is lost.
func editInEditor(e *env, m *memory.Memory) (memory.UpdateRequest, error) {
	req := memory.UpdateRequest{MemoryID: m.ID, By: memory.SourceCLI}
	header := fmt.Sprintf(editHeader, typeNames(), m.Type, strconv.FormatFloat(m.Importance, 'f', -1, 64))
	text, path, err := runEditor(e, header+m.Content+"\n")
	if err != nil {
		return req, err
	}
	keep := func(err error) error {
		if path == "" {
			return err
		}
		var ue usageError
		if errors.As(err, &ue) {
			return usagef("%s; your text is kept in %s", ue.msg, path)
		}
		return fmt.Errorf("%w; your text is kept in %s", err, path)
	}
	head, body, ok := strings.Cut(text, "\n---\n")
	if !ok {
		return req, keep(usagef("the line --- between the header and the content is gone: nothing changed"))
	}
	for line := range strings.Lines(head) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, _ := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		switch strings.TrimSpace(key) {
		case "type":
			if t := memory.Type(value); t != m.Type {
				if _, err := memory.ParseType(value); err != nil {
					return req, keep(err)
				}
				req.Type = &t
			}
		case "importance":
			v, err := strconv.ParseFloat(value, 64)
			if err != nil || v < 0 || v > 1 {
				return req, keep(usagef("importance %q: accepted a number from 0 to 1", value))
			}
			if v != m.Importance {
				req.Importance = &v
			}
		default:
			return req, keep(usagef("unknown header line %q: accepted type: and importance:", line))
		}
	}
	body = stripComments(body)
	if strings.TrimSpace(body) == "" {
		return req, keep(usagef("the content is empty: nothing changed (recall rm deletes a memory)"))
	}
	if strings.TrimSpace(body) != strings.TrimSpace(m.Content) {
		req.Content = &body
	}
	if path != "" {
		os.Remove(path)
	}
	return req, nil
}

// editText opens text in the editor and returns what was saved, without the
// comment lines (for recall add).
func editText(e *env, text, help string) (string, error) {
	out, path, err := runEditor(e, help+text)
	if path != "" {
		os.Remove(path)
	}
	if err != nil {
		return "", err
	}
	return stripComments(out), nil
}

func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if !strings.HasPrefix(line, "#") {
			b.WriteString(line)
		}
	}
	return strings.TrimSpace(b.String())
}

// runEditor writes text to a temporary file, runs $VISUAL or $EDITOR (else
// vi) on it attached to the terminal, and returns what was saved and the
// file's path (the caller removes it).
func runEditor(e *env, text string) (string, string, error) {
	editor := strings.TrimSpace(os.Getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "recall-*.md")
	if err != nil {
		return "", "", err
	}
	path := f.Name()
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", path, err
	}
	if err := f.Close(); err != nil {
		return "", path, err
	}
	// The editor may be a command with arguments (code --wait): the shell
	// splits it; the file is passed as its own argument.
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if f, ok := e.stdin.(*os.File); ok {
		cmd.Stdin = f
	}
	if err := cmd.Run(); err != nil {
		return "", path, fmt.Errorf("the editor (%s) failed: %w; nothing changed", editor, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", path, err
	}
	return string(b), path, nil
}

var rmCommand = &command{
	short: "Delete memories by id, into the trash",
	quiet: true,
	group: "memories",
	name:  "rm",
	args:  "ID... [--force]",
	summary: "Delete memories by id, into the trash: recall restore brings one back within\n" +
		"30 days. Golden rules need --force. (recall forget deletes for good, also by query.)",
	setup:    runRm,
	complete: completeMemoryIDs,
}

func runRm(fs *pflag.FlagSet) runFunc {
	force := fs.BoolP("force", "f", false, "also delete golden rules")
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, args []string) error {
		if len(args) == 0 {
			return usagef("want one or more memory ids (recall list shows them)")
		}
		ops, err := openMemories(ctx, e)
		if err != nil {
			return err
		}
		defer ops.Close()
		all := &memory.ForgetResult{DeletedIDs: []string{}, Deleted: []memory.ForgottenMemory{}, Mode: "id"}
		var failed error
		for _, id := range args {
			res, err := ops.Forget(ctx, memory.ForgetRequest{MemoryID: id, Confirm: true, Force: *force, Trash: true})
			switch {
			case errors.Is(err, memory.ErrProtected):
				fmt.Fprintf(e.stderr, "recall rm: %s is a golden rule: add --force to delete it\n", id)
				failed = exitError{1}
				continue
			case err != nil:
				fmt.Fprintf(e.stderr, "recall rm: %v\n", notFound(id, err))
				failed = exitError{1}
				continue
			}
			all.DeletedIDs = append(all.DeletedIDs, res.DeletedIDs...)
			all.Deleted = append(all.Deleted, res.Deleted...)
			all.DeletedCount += res.DeletedCount
		}
		if *asJSON {
			if err := writeJSON(e.stdout, struct {
				Success bool `json:"success"`
				*memory.ForgetResult
			}{failed == nil, all}); err != nil {
				return err
			}
			return failed
		}
		for _, d := range all.Deleted {
			fmt.Fprintf(e.stdout, "deleted %s  %s\n", d.ID, d.Preview)
		}
		if all.DeletedCount > 0 {
			fmt.Fprintf(e.stdout, "in the trash for %d days: recall restore ID brings one back\n", int(memory.TrashKeep.Hours()/24))
		}
		return failed
	}
}

var restoreCommand = &command{
	short:    "Bring deleted memories back; without an id, list the trash",
	quiet:    true,
	group:    "memories",
	name:     "restore",
	args:     "[ID...]",
	summary:  "Bring deleted memories back from the trash with their links and history; without an id, list the trash.",
	setup:    runRestore,
	complete: completeTrashIDs,
}

func runRestore(fs *pflag.FlagSet) runFunc {
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, args []string) error {
		ops, err := openMemories(ctx, e)
		if err != nil {
			return err
		}
		defer ops.Close()
		if len(args) == 0 {
			items, err := ops.Trash(ctx)
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(e.stdout, map[string]any{"memories": items})
			}
			if len(items) == 0 {
				fmt.Fprintln(e.stdout, "the trash is empty")
				return nil
			}
			st := style(colour(e.stdout))
			t := &table{header: []string{"ID", "DELETED", "TYPE", "NAMESPACE", "CONTENT"}, paint: []func(string) string{st.cyan, st.dim}}
			for _, it := range items {
				how := when(it.DeletedAt)
				if it.Archived {
					how += " (archived)"
				}
				t.add(it.Memory.ID, how, string(it.Memory.Type), it.Memory.Namespace, it.Memory.Content)
			}
			out := page(e.stdout)
			t.write(out, termWidth(e.stdout), st)
			return out.flush()
		}
		var restored []string
		var failed error
		for _, id := range args {
			res, err := ops.Restore(ctx, id)
			if err != nil {
				fmt.Fprintf(e.stderr, "recall restore: %v\n", err)
				failed = exitError{1}
				continue
			}
			restored = append(restored, res.Restored)
			if !*asJSON {
				if res.Restored != id {
					fmt.Fprintf(e.stdout, "restored %s into %s (the same text was stored again since)\n", id, res.Restored)
				} else {
					fmt.Fprintf(e.stdout, "restored %s\n", id)
				}
			}
		}
		if *asJSON {
			if err := writeJSON(e.stdout, map[string]any{"success": failed == nil, "restored_ids": orEmpty(restored)}); err != nil {
				return err
			}
		}
		return failed
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// completeMemoryIDs offers the ids of the newest memories, each with the
// start of its content.
func completeMemoryIDs(e *env, args []string, typed string) []string {
	return completing(func(ctx context.Context, a *app) []string {
		desc := true
		res, err := a.mem.List(ctx, memory.ListRequest{Limit: 200, OrderBy: string(memory.OrderBy("accessed_at")), Descending: &desc, IncludeSuperseded: true})
		if err != nil {
			return nil
		}
		return offerIDs(args, typed, res.Memories)
	})
}

// completeTrashIDs offers the ids in the trash.
func completeTrashIDs(e *env, args []string, typed string) []string {
	return completing(func(ctx context.Context, a *app) []string {
		items, err := a.mem.Trash(ctx)
		if err != nil {
			return nil
		}
		ms := make([]*memory.Memory, len(items))
		for i, it := range items {
			ms[i] = it.Memory
		}
		return offerIDs(args, typed, ms)
	})
}

// offerIDs offers the ids of ms that start with typed and are not among args
// yet, each with the start of its content.
func offerIDs(args []string, typed string, ms []*memory.Memory) []string {
	var out []string
	for _, m := range ms {
		if strings.HasPrefix(m.ID, typed) && !slices.Contains(args, m.ID) {
			out = append(out, m.ID+"\t"+cut(m.Content, 50))
		}
	}
	return out
}

// openQuiet opens the store for a completion: nothing logged, no Ollama.
func openQuiet(ctx context.Context) (*app, error) {
	cfg, _, err := loadConfigLevel(io.Discard, nil)
	if err != nil {
		return nil, err
	}
	cfg.OllamaOff = true
	if _, err := os.Stat(cfg.SQLitePath); err != nil && cfg.DatabaseURL == "" {
		return nil, err // no database yet: nothing to offer, and none made by a tab
	}
	return openAppWith(ctx, cfg, slog.New(slog.DiscardHandler), modeFull)
}

// completing runs fn over the app opened quietly for a shell completion,
// within the time a shell waits; it offers nothing when the app cannot open.
func completing(fn func(ctx context.Context, a *app) []string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	a, err := openQuiet(ctx)
	if err != nil {
		return nil
	}
	defer a.Close()
	return fn(ctx, a)
}
