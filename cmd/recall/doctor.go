package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

var doctorCommand = &command{
	name: "doctor",
	args: "",
	summary: "Check the database, Ollama, the models and the Claude Code wiring.\n" +
		"Each problem comes with exactly what to run to fix it. Exits 1 only when\n" +
		"something essential is broken (the configuration or the database); Ollama is\n" +
		"optional (search falls back to keywords), so its problems are warnings.",
	run: runDoctor,
}

// level is the outcome of one check.
type level int

const (
	ok level = iota
	warn
	fail
)

var levelMarks = map[level]string{ok: "ok  ", warn: "warn", fail: "FAIL"}

// report prints checks as they complete and remembers the worst outcome.
type report struct {
	w     io.Writer
	worst level
}

// check prints one outcome; fix, when given, is what to run.
func (r *report) check(l level, what string, fix ...string) {
	fmt.Fprintf(r.w, "[%s] %s\n", levelMarks[l], what)
	for _, f := range fix {
		fmt.Fprintf(r.w, "       fix: %s\n", f)
	}
	r.worst = max(r.worst, l)
}

func runDoctor(ctx context.Context, e *env, fs *flag.FlagSet, args []string) error {
	if err := parseFlagsOnly(fs, args); err != nil {
		return err
	}
	r := &report{w: e.stdout}
	cfg, _, err := loadConfig(io.Discard)
	if err != nil {
		r.check(fail, "configuration: "+err.Error(), "correct the RECALL_* variable named above (recall --help lists them)")
		return exitError{1}
	}
	r.check(ok, fmt.Sprintf("configuration: database %s, Ollama %s", cfg.SQLitePath, cfg.OllamaHost))

	db := doctorDatabase(ctx, r, cfg)
	status := doctorOllama(ctx, r, cfg)
	if db != nil {
		doctorEmbeddings(ctx, r, cfg, db, status)
		db.Close()
	}
	doctorClaude(r)

	switch r.worst {
	case fail:
		fmt.Fprintln(e.stdout, "\nSomething essential is broken (marked FAIL): run the fixes above.")
		return exitError{1}
	case warn:
		fmt.Fprintln(e.stdout, "\nRecall works; the warnings above say how to get all of it.")
	default:
		fmt.Fprintln(e.stdout, "\nAll good.")
	}
	return nil
}

// doctorDatabase opens the database and checks its schema and integrity.
func doctorDatabase(ctx context.Context, r *report, cfg *config.Config) *storage.DB {
	db, err := storage.Open(ctx, cfg.SQLitePath)
	if err != nil {
		r.check(fail, "database: "+err.Error(),
			fmt.Sprintf("check that %s is writable and not used by a newer recall; move it aside to start afresh", cfg.SQLitePath))
		return nil
	}
	st, err := db.Stats(ctx)
	if err != nil {
		r.check(fail, "database statistics: "+err.Error())
		db.Close()
		return nil
	}
	var integrity string
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA quick_check").Scan(&integrity); err != nil {
		integrity = err.Error()
	}
	if integrity != "ok" {
		r.check(fail, "database integrity: "+integrity,
			fmt.Sprintf("sqlite3 %s '.recover' | sqlite3 recovered.db, then point RECALL_SQLITE_PATH at recovered.db", cfg.SQLitePath))
	} else {
		r.check(ok, fmt.Sprintf("database: schema %d, integrity ok, %d memories, %s", st.SchemaVersion, st.Memories, humanBytes(st.FileBytes)))
	}
	doctorPythonImport(ctx, r, db)
	doctorSpool(r, st, db.SpoolDir())
	return db
}

// doctorSpool reports the hooks' writes that met another process's write lock
// and wait beside the database; one that could never be applied is a warning:
// it is kept, with its reason, for a person to look at.
func doctorSpool(r *report, st *memory.Stats, dir string) {
	if st.FailedSpooledWrites > 0 {
		r.check(warn, fmt.Sprintf("spooled writes: %d hook writes could not be applied; they are kept with their reasons in %s", st.FailedSpooledWrites, filepath.Join(dir, "failed")),
			fmt.Sprintf("read the .reason files in %s; move a write back into %s to try it again, or delete it", filepath.Join(dir, "failed"), dir))
	}
	if st.SpooledWrites > 0 {
		r.check(ok, fmt.Sprintf("spooled writes: %d hook writes wait in %s for the write lock (the next hook or recall serve applies them)", st.SpooledWrites, dir))
	} else {
		r.check(ok, "spooled writes: none waiting")
	}
}

// doctorPythonImport says whether the database began as the Python Recall's,
// and what its migration kept and left out. (Vectors still to make are
// reported with the embeddings: the Python Recall kept its own outside SQLite.)
func doctorPythonImport(ctx context.Context, r *report, db *storage.DB) {
	imp, err := db.PythonImport(ctx)
	if err != nil {
		r.check(warn, "Python Recall migration record: "+err.Error())
		return
	}
	if imp == nil {
		return
	}
	res := imp.Result
	r.check(ok, fmt.Sprintf("Python Recall database found and migrated on %s: kept %d memories, %d edges, %d validation events, %d file activity rows; original backed up at %s",
		imp.At.Local().Format("2006-01-02 15:04"), res.Memories+res.Existing, res.Edges, res.Events, res.Files, imp.Backup))
	if len(res.Skipped) > 0 {
		r.check(warn, fmt.Sprintf("Python Recall migration left out %d rows: %s", len(res.Skipped), strings.Join(res.Skipped, "; ")),
			"the backup above still holds them")
	}
}

// doctorOllama checks that Ollama answers and has both models.
func doctorOllama(ctx context.Context, r *report, cfg *config.Config) *embedding.Status {
	client, err := embedding.New(embedding.Options{Host: cfg.OllamaHost, EmbedModel: cfg.OllamaModel, ChatModel: cfg.OllamaChatModel, Timeout: cfg.OllamaTimeout})
	if err != nil {
		r.check(warn, "Ollama: "+err.Error(), "set RECALL_OLLAMA_HOST to a URL such as http://localhost:11434")
		return nil
	}
	st, err := client.Check(ctx)
	if err != nil {
		r.check(warn, fmt.Sprintf("Ollama: %v (optional: search falls back to keywords)", err),
			"ollama serve", "or set RECALL_OLLAMA_HOST to where Ollama runs")
		return nil
	}
	r.check(ok, fmt.Sprintf("Ollama %s at %s", st.Version, st.Host))
	for _, p := range modelProblems(st) {
		r.check(p.level, p.what, p.fix)
	}
	if st.EmbedCapable() {
		r.check(ok, fmt.Sprintf("embedding model %s (can embed%s)", st.EmbedModel, contextNote(st.EmbedInfo)))
	}
	if st.ChatCapable() {
		r.check(ok, fmt.Sprintf("chat model %s (can chat%s)", st.ChatModel, contextNote(st.ChatInfo)))
	}
	return &st
}

// modelProblem is one thing wrong with the configured models.
type modelProblem struct {
	level     level
	what, fix string
}

// modelProblems checks the configured models by what Ollama says they are and
// can do, not by their names: a chat model set as the embedding model is
// pulled, yet cannot embed. Shared by doctor and the warning of recall serve.
func modelProblems(st embedding.Status) []modelProblem {
	var out []modelProblem
	switch {
	case !st.EmbedModelPulled: // keyword search still works: a warning
		out = append(out, modelProblem{warn, fmt.Sprintf("embedding model %s is not pulled (search falls back to keywords)", st.EmbedModel), "ollama pull " + st.EmbedModel})
	case !st.EmbedCapable():
		out = append(out, modelProblem{fail, fmt.Sprintf("embedding model %s cannot embed: Ollama lists its capabilities as %s (search falls back to keywords)", st.EmbedModel, strings.Join(st.EmbedInfo.Capabilities, ", ")),
			"set RECALL_OLLAMA_MODEL to an embedding model such as " + embedding.DefaultEmbedModel})
	}
	switch {
	case !st.ChatModelPulled:
		out = append(out, modelProblem{warn, fmt.Sprintf("chat model %s is not pulled (no contradiction checks or relationship inference)", st.ChatModel), "ollama pull " + st.ChatModel})
	case !st.ChatCapable():
		out = append(out, modelProblem{fail, fmt.Sprintf("chat model %s cannot chat: Ollama lists its capabilities as %s (every judgment fails)", st.ChatModel, strings.Join(st.ChatInfo.Capabilities, ", ")),
			"set RECALL_OLLAMA_CHAT_MODEL to a chat model such as " + embedding.DefaultChatModel})
	}
	return out
}

// contextNote prints a model's context length, when known.
func contextNote(m embedding.ModelInfo) string {
	if m.ContextLength == 0 {
		return ""
	}
	return fmt.Sprintf(", context %d tokens", m.ContextLength)
}

// doctorEmbeddings checks that stored vectors fit the configured model and
// reports memories still waiting for one.
func doctorEmbeddings(ctx context.Context, r *report, cfg *config.Config, db *storage.DB, status *embedding.Status) {
	space, err := db.EmbeddingSpace(ctx)
	if err != nil {
		r.check(fail, "embedding space: "+err.Error())
		return
	}
	switch {
	case space.Model == "":
		r.check(ok, "embedding space: no vectors yet; the first one records "+cfg.OllamaModel)
	case !sameModelName(space.Model, cfg.OllamaModel):
		r.check(warn, fmt.Sprintf("embedding space: vectors were made by %s (dimension %d) but RECALL_OLLAMA_MODEL is %s; search runs on keywords", space.Model, space.Dimension, cfg.OllamaModel),
			"recall reindex", fmt.Sprintf("or set RECALL_OLLAMA_MODEL=%s", space.Model))
	default:
		r.check(ok, fmt.Sprintf("embedding space: %s, dimension %d", space.Model, space.Dimension))
	}
	st, err := db.Stats(ctx)
	if err != nil {
		return
	}
	doctorQueue(r, st)
	if st.PendingEmbeddings == 0 {
		return
	}
	fix := "recall serve fills them at start-up; or run: recall reindex"
	if status == nil || !status.EmbedCapable() {
		fix = "fix Ollama first (above); then " + fix
	}
	r.check(warn, fmt.Sprintf("%d memories wait for an embedding (found by keywords only meanwhile)", st.PendingEmbeddings), fix)
}

// doctorQueue reports the curation backlog and model roles that keep failing.
func doctorQueue(r *report, st *memory.Stats) {
	now := time.Now()
	for _, h := range st.ModelHealth {
		r.check(warn, fmt.Sprintf("%s model %s", h.Role, modelFailing(h, now)))
	}
	switch {
	case st.PendingJobs == 0:
		r.check(ok, "curation queue: empty")
	case st.RetryingJobs > 0:
		r.check(warn, "curation queue: "+jobBacklog(st, now)+"; last failure: "+st.LastJobError,
			"recall serve retries them, waiting up to an hour between attempts; fix the failure above to let them finish")
	default:
		r.check(ok, "curation queue: "+jobBacklog(st, now)+" (recall serve works through them)")
	}
}

// sameModelName compares model names as Ollama does: no tag means ":latest".
func sameModelName(a, b string) bool {
	tag := func(s string) string {
		if i := strings.LastIndex(s, ":"); i < 0 || strings.Contains(s[i:], "/") {
			return s + ":latest"
		}
		return s
	}
	return tag(a) == tag(b)
}

// doctorClaude looks for Claude Code and for Recall's MCP server and hooks in its
// configuration. What it cannot detect it reports as a warning, never a failure.
func doctorClaude(r *report) {
	if _, err := exec.LookPath("recall"); err != nil {
		r.check(warn, "recall is not on PATH: Claude Code's hooks and .mcp.json run `recall`",
			"from a clone of the repository: go install -tags sqlite_fts5 ./cmd/recall")
	}
	if _, err := exec.LookPath("claude"); err != nil {
		r.check(warn, "Claude Code (claude) not found on PATH: plugin wiring not checked")
		return
	}
	home, err := os.UserHomeDir()
	if err != nil {
		r.check(warn, "home directory unknown: plugin wiring not checked")
		return
	}
	var mcp, hooks bool
	for _, f := range claudeConfigFiles(home) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		mcp = mcp || strings.Contains(s, `"recall"`) && strings.Contains(s, "serve")
		hooks = hooks || strings.Contains(s, "recall hook")
	}
	if mcp && hooks {
		r.check(ok, "Claude Code: recall MCP server and hooks configured")
		return
	}
	if !mcp {
		r.check(warn, "Claude Code: no recall MCP server found in its configuration",
			"claude mcp add --scope user recall -- recall serve", "or install this repository as a plugin: /plugin install (it ships .mcp.json)")
	}
	if !hooks {
		r.check(warn, "Claude Code: no recall hooks found (no automatic context at session start or per prompt)",
			"install this repository as a Claude Code plugin (hooks/hooks.json), or copy its hooks into ~/.claude/settings.json")
	}
}

// claudeConfigFiles are where Claude Code keeps MCP servers and hooks: the user
// settings, the user state file and installed plugins' hooks and server lists.
func claudeConfigFiles(home string) []string {
	files := []string{
		filepath.Join(home, ".claude.json"),
		filepath.Join(home, ".claude", "settings.json"),
		filepath.Join(home, ".claude", "settings.local.json"),
	}
	for _, pattern := range []string{"*/hooks/hooks.json", "*/*/hooks/hooks.json", "*/*/*/hooks/hooks.json", "*/.mcp.json", "*/*/.mcp.json", "*/*/*/.mcp.json"} {
		matches, _ := filepath.Glob(filepath.Join(home, ".claude", "plugins", pattern))
		files = append(files, matches...)
	}
	return files
}
