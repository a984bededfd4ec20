// Package doctor checks what Recall needs (its configuration, the database,
// Ollama and its models, the stored vectors, the job queue (curation, summaries), Claude Code's
// wiring) and says for each problem exactly what to run to fix it. `recall
// doctor` prints its findings; the viewer's Health page shows the same ones.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/spool"
	"github.com/recall-mcp/recall/storage/postgres"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// Level is the outcome of one check. Only Fail is essential: Ollama is
// optional (search falls back to keywords), so its problems are warnings.
type Level int

const (
	OK Level = iota
	Warn
	Fail
)

var levelNames = map[Level]string{OK: "ok", Warn: "warn", Fail: "fail"}

func (l Level) String() string { return levelNames[l] }

// MarshalText writes the level as ok, warn or fail.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Finding is one check's outcome and, for a problem, what to run.
type Finding struct {
	Level Level    `json:"level"`
	What  string   `json:"what"`
	Fix   []string `json:"fix,omitempty"`
}

// report passes findings on as they come.
type report struct{ emit func(Finding) }

func (r *report) check(l Level, what string, fix ...string) {
	r.emit(Finding{Level: l, What: what, Fix: fix})
}

// Run checks everything after the configuration (which the caller loaded)
// and hands each finding to emit as soon as it is known, so a slow Ollama
// shows as the one line still waiting. It opens its own handle on the
// database, as another process would.
func Run(ctx context.Context, cfg *config.Config, emit func(Finding)) {
	r := &report{emit: emit}
	if cfg.ClientMode() {
		checkTeamServer(ctx, r, cfg)
		checkClaude(r)
		return
	}
	where := cfg.SQLitePath
	if cfg.DatabaseURL != "" {
		where = redacted(cfg.DatabaseURL)
	}
	r.check(OK, fmt.Sprintf("configuration: database %s, Ollama %s", where, redacted(cfg.OllamaHost)))
	var db spaceStore
	var st *memory.Stats
	if cfg.DatabaseURL != "" {
		db, st = checkPostgres(ctx, r, cfg)
	} else {
		db, st = checkDatabase(ctx, r, cfg)
	}
	checkLost(r, cfg)
	status := checkOllama(ctx, r, cfg)
	checkHooksOllamaNote(r, cfg)
	if db != nil && st != nil {
		checkEmbeddings(ctx, r, cfg, db, st, status)
		db.Close()
	}
	checkClaude(r)
}

// redacted hides a password in a URL (http://user:secret@host): findings are
// shown on the viewer's page.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// Collect is Run gathering the findings, with the worst level among them.
func Collect(ctx context.Context, cfg *config.Config) ([]Finding, Level) {
	var out []Finding
	worst := OK
	Run(ctx, cfg, func(f Finding) {
		out = append(out, f)
		worst = max(worst, f.Level)
	})
	return out, worst
}

// openFix is what to do about a database that does not open. A read-only file
// or directory, or a newer schema, holds the memories intact: moving it aside
// would only hide them.
func openFix(err error, path string) string {
	msg := err.Error()
	switch {
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || strings.Contains(msg, "read-only"):
		return fmt.Sprintf("make %s and its directory writable by you (or set RECALL_SQLITE_PATH to a writable place); keep the file: your memories are in it", path)
	case strings.Contains(msg, "newer than this recall"):
		return "upgrade recall; keep the file: a newer recall wrote it"
	}
	return fmt.Sprintf("check that %s is writable and not used by a newer recall; if it is damaged, move it aside to start afresh (recall import can bring back an export)", path)
}

// checkDatabase opens the database and checks its schema and integrity.
func checkDatabase(ctx context.Context, r *report, cfg *config.Config) (spaceStore, *memory.Stats) {
	db, err := sqlite.Open(ctx, cfg.SQLitePath)
	if err != nil {
		r.check(Fail, "database: "+err.Error(), openFix(err, cfg.SQLitePath))
		return nil, nil
	}
	st := readStats(ctx, r, db)
	if st == nil {
		return nil, nil
	}
	var integrity string
	if err := db.SQL().QueryRowContext(ctx, "PRAGMA quick_check").Scan(&integrity); err != nil {
		integrity = err.Error()
	}
	if integrity != "ok" {
		r.check(Fail, "database integrity: "+integrity,
			fmt.Sprintf("sqlite3 %s '.recover' | sqlite3 recovered.db, then point RECALL_SQLITE_PATH at recovered.db", cfg.SQLitePath))
	} else {
		r.check(OK, fmt.Sprintf("database: schema %d, integrity ok, %s, %s", st.SchemaVersion, describe.Count(st.Memories, "memory", "memories"), describe.Bytes(st.FileBytes)))
	}
	checkPythonImport(ctx, r, db)
	checkSpool(r, st, db.SpoolDir())
	return db, st
}

// readStats reads what the database holds; when it cannot, it says so and
// closes db (nil).
func readStats(ctx context.Context, r *report, db interface {
	Stats(context.Context) (*memory.Stats, error)
	Close() error
}) *memory.Stats {
	st, err := db.Stats(ctx)
	if err != nil {
		r.check(Fail, "database statistics: "+err.Error())
		db.Close()
		return nil
	}
	return st
}

// checkSpool reports the hooks' writes that met another process's write lock
// and wait beside the database; one that could never be applied is a warning:
// it is kept, with its reason, for a person to look at.
func checkSpool(r *report, st *memory.Stats, dir string) {
	if st.FailedSpooledWrites > 0 {
		r.check(Warn, fmt.Sprintf("spooled writes: %d hook writes could not be applied; they are kept with their reasons in %s", st.FailedSpooledWrites, filepath.Join(dir, "failed")),
			fmt.Sprintf("read the .reason files in %s; move a write back into %s to try it again, or delete it", filepath.Join(dir, "failed"), dir))
	}
	if st.SpooledWrites > 0 {
		r.check(OK, fmt.Sprintf("spooled writes: %d hook writes wait in %s for the write lock (the next hook or recall serve applies them)", st.SpooledWrites, dir))
	} else {
		r.check(OK, "spooled writes: none waiting")
	}
}

// checkLost reports hook writes that were kept nowhere: what they captured
// is gone, and the cause (a full disk, a read-only directory, a database
// server away) may last. The record is on this machine, so it is read even
// when the database does not open.
func checkLost(r *report, cfg *config.Config) {
	sp := spool.New(cfg.SpoolDir(), nil)
	n, last := sp.LostTally()
	if n == 0 {
		return
	}
	where, fix := "could be kept neither in the database nor in the spool", "free disk space or make the database's directory writable again (the cause above)"
	if cfg.DatabaseURL != "" {
		where, fix = "never reached the PostgreSQL database", "bring the PostgreSQL server back or check RECALL_DATABASE_URL (the cause above)"
	}
	r.check(Warn, fmt.Sprintf("lost writes: %s %s; what they captured is missing (last %s)",
		describe.Count(n, "hook write", "hook writes"), where, last),
		fix, "then delete "+strings.Join(sp.LostRecords(), " and ")+" to clear this record")
}

// checkPythonImport says whether the database began as the Python Recall's,
// and what its migration kept and left out. (Vectors still to make are
// reported with the embeddings: the Python Recall kept its own outside SQLite.)
func checkPythonImport(ctx context.Context, r *report, db *sqlite.DB) {
	imp, err := db.PythonImport(ctx)
	if err != nil {
		r.check(Warn, "Python Recall migration record: "+err.Error())
		return
	}
	if imp == nil {
		return
	}
	res := imp.Result
	r.check(OK, fmt.Sprintf("Python Recall database found and migrated on %s: kept %d memories, %d edges, %d validation events, %d file activity rows; original backed up at %s",
		imp.At.Local().Format("2006-01-02 15:04"), res.Memories+res.Existing, res.Edges, res.Events, res.Files, imp.Backup))
	if len(res.Skipped) > 0 {
		r.check(Warn, fmt.Sprintf("Python Recall migration left out %d rows: %s", len(res.Skipped), strings.Join(res.Skipped, "; ")),
			"the backup above still holds them")
	}
}

// checkOllama checks that Ollama answers and has both models.
func checkOllama(ctx context.Context, r *report, cfg *config.Config) *embedding.Status {
	if cfg.OllamaOff {
		r.check(OK, "Ollama: off (RECALL_OLLAMA=off): search by keywords only; memories wait for their vectors until it is on")
		return nil
	}
	client, err := embedding.New(embedding.Options{Host: cfg.OllamaHost, EmbedModel: cfg.OllamaModel, ChatModel: cfg.OllamaChatModel, Timeout: cfg.OllamaTimeout})
	if err != nil {
		r.check(Warn, "Ollama: "+err.Error(), "set RECALL_OLLAMA_HOST to a URL such as http://localhost:11434")
		return nil
	}
	st, err := client.Check(ctx)
	if err != nil {
		r.check(Warn, fmt.Sprintf("Ollama: %v (optional: search falls back to keywords)", err),
			"ollama serve", "or set RECALL_OLLAMA_HOST to where Ollama runs")
		return nil
	}
	r.check(OK, fmt.Sprintf("Ollama %s at %s", st.Version, redacted(st.Host)))
	for _, p := range ModelProblems(st) {
		r.check(p.Level, p.What, p.Fix)
	}
	if st.EmbedCapable() {
		r.check(OK, fmt.Sprintf("embedding model %s (can embed%s)", st.EmbedModel, contextNote(st.EmbedInfo)))
	}
	if st.ChatCapable() {
		r.check(OK, fmt.Sprintf("chat model %s (can chat%s)", st.ChatModel, contextNote(st.ChatInfo)))
	}
	return &st
}

// checkHooksOllamaNote reports the note the prompt hooks keep beside the
// database while Ollama is down, hung or slower than their vector budget:
// until it goes, prompts are recalled by keywords alone, even when Ollama
// answered doctor just now.
func checkHooksOllamaNote(r *report, cfg *config.Config) {
	if cfg.OllamaOff || cfg.ClientMode() {
		return
	}
	path := hook.OllamaStatePath(cfg.SQLitePath)
	st, err := hook.ReadOllamaState(path)
	switch {
	case err != nil:
		r.check(Warn, fmt.Sprintf("prompt hooks' note on Ollama unreadable: %v", err),
			"rm "+path+" (the hooks write it again if Ollama fails them)")
	case st != nil:
		r.check(Warn, fmt.Sprintf("prompt hooks skip Ollama and recall by keywords only, since %s: %s (last tried %s; tried again in the background every %s; note %s)",
			st.Since.Local().Format(time.DateTime), st.Reason, st.Checked.Local().Format(time.TimeOnly), hook.DefaultRetryAfter, path),
			"recall hook --probe-ollama (tries Ollama now; the note goes when it embeds within RECALL_HOOK_TIMEOUT)",
			fmt.Sprintf("or raise RECALL_HOOK_TIMEOUT (now %s) if this machine's model is slower than that", cfg.HookTimeout))
	}
}

// modelProblem is one thing wrong with the configured models.
type ModelProblem struct {
	Level     Level
	What, Fix string
}

// ModelProblems checks the configured models by what Ollama says they are and
// can do, not by their names: a chat model set as the embedding model is
// pulled, yet cannot embed. Shared by doctor and the warning of recall serve.
func ModelProblems(st embedding.Status) []ModelProblem {
	var out []ModelProblem
	switch {
	case !st.EmbedModelPulled: // keyword search still works: a warning
		out = append(out, ModelProblem{Warn, fmt.Sprintf("embedding model %s is not pulled (search falls back to keywords)", st.EmbedModel), "ollama pull " + st.EmbedModel})
	case !st.EmbedCapable():
		out = append(out, ModelProblem{Fail, fmt.Sprintf("embedding model %s cannot embed: Ollama lists its capabilities as %s (search falls back to keywords)", st.EmbedModel, strings.Join(st.EmbedInfo.Capabilities, ", ")),
			"set RECALL_OLLAMA_MODEL to an embedding model such as " + embedding.DefaultEmbedModel})
	}
	switch {
	case !st.ChatModelPulled:
		out = append(out, ModelProblem{Warn, fmt.Sprintf("chat model %s is not pulled (no contradiction checks or relationship inference)", st.ChatModel), "ollama pull " + st.ChatModel})
	case !st.ChatCapable():
		out = append(out, ModelProblem{Fail, fmt.Sprintf("chat model %s cannot chat: Ollama lists its capabilities as %s (every judgment fails)", st.ChatModel, strings.Join(st.ChatInfo.Capabilities, ", ")),
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

// checkEmbeddings checks that stored vectors fit the configured model and
// reports memories still waiting for one (st: the database's figures).
// spaceStore is what the checks after the database's own read of either
// store: its embedding space.
type spaceStore interface {
	EmbeddingSpace(ctx context.Context) (memory.EmbeddingSpace, error)
	Close() error
}

// checkPostgres checks the PostgreSQL server of RECALL_DATABASE_URL:
// reachable, its version and pgvector's (opening refuses one older than
// postgres.MinVectorVersion, and says what to run), the schema, and the
// indexes the hot queries need, with the statement that makes each missing
// one.
func checkPostgres(ctx context.Context, r *report, cfg *config.Config) (spaceStore, *memory.Stats) {
	db, err := postgres.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		r.check(Fail, "database: "+err.Error())
		return nil, nil
	}
	h, err := db.Health(ctx)
	if err != nil {
		r.check(Fail, "database: "+err.Error())
		db.Close()
		return nil, nil
	}
	st := readStats(ctx, r, db)
	if st == nil {
		return nil, nil
	}
	r.check(OK, fmt.Sprintf("database: PostgreSQL %s, pgvector %s, schema %d, %s, %s", h.ServerVersion, h.VectorVersion,
		h.SchemaVersion, describe.Count(st.Memories, "memory", "memories"), describe.Bytes(st.FileBytes)))
	for _, p := range h.Problems {
		r.check(Warn, fmt.Sprintf("database index %s is %s: the searches that use it scan the table instead", p.Index, p.Problem),
			fmt.Sprintf("psql %q -c '%s'", redacted(cfg.DatabaseURL), p.Fix))
	}
	if len(h.Problems) == 0 {
		r.check(OK, "database indexes: all there and valid")
	}
	return db, st
}

func checkEmbeddings(ctx context.Context, r *report, cfg *config.Config, db spaceStore, st *memory.Stats, status *embedding.Status) {
	space, err := db.EmbeddingSpace(ctx)
	if err != nil {
		r.check(Fail, "embedding space: "+err.Error())
		return
	}
	switch {
	case space.Model == "":
		r.check(OK, "embedding space: no vectors yet; the first one records "+cfg.OllamaModel)
	case !sameModelName(space.Model, cfg.OllamaModel):
		r.check(Warn, fmt.Sprintf("embedding space: vectors were made by %s (dimension %d) but RECALL_OLLAMA_MODEL is %s; search runs on keywords", space.Model, space.Dimension, cfg.OllamaModel),
			"recall reindex", fmt.Sprintf("or set RECALL_OLLAMA_MODEL=%s", space.Model))
	default:
		r.check(OK, fmt.Sprintf("embedding space: %s, dimension %d", space.Model, space.Dimension))
	}
	checkQueue(r, st)
	if st.PendingEmbeddings == 0 || cfg.OllamaOff {
		return // with Ollama off, waiting is what was asked for
	}
	fix := "recall serve fills them at start-up; or run: recall reindex"
	if status == nil || !status.EmbedCapable() {
		fix = "fix Ollama first (above); then " + fix
	}
	r.check(Warn, fmt.Sprintf("%s for an embedding (found by keywords only meanwhile)", describe.Count(st.PendingEmbeddings, "memory waits", "memories wait")), fix)
}

// checkQueue reports the job backlog (curation and session summaries), the
// jobs that failed for good, and model roles that keep failing.
func checkQueue(r *report, st *memory.Stats) {
	now := time.Now()
	for _, h := range st.ModelHealth {
		r.check(Warn, fmt.Sprintf("%s model %s", h.Role, describe.ModelFailing(h, now)))
	}
	switch {
	case st.PendingJobs == 0:
		r.check(OK, "job queue: empty")
	case st.RetryingJobs > 0:
		r.check(Warn, "job queue: "+describe.JobBacklog(st, now)+"; last failure: "+st.LastJobError,
			"recall serve retries them, waiting up to an hour between attempts; fix the failure above to let them finish")
	default:
		r.check(OK, "job queue: "+describe.JobBacklog(st, now)+" (recall serve works through them)")
	}
	if st.FailedJobs > 0 {
		r.check(Warn, fmt.Sprintf("%d jobs failed for good (kept on record); the last: %s", st.FailedJobs, st.LastJobFailure),
			"no retry can fix these (a model reply that does not parse, say): a session keeps its extractive summary; a memory's relations can be asked for with memory_detect_contradictions")
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

// checkClaude looks for Claude Code and for Recall's MCP server and hooks in its
// configuration. What it cannot detect it reports as a warning, never a failure.
func checkClaude(r *report) {
	if _, err := exec.LookPath("recall"); err != nil {
		r.check(Warn, "recall is not on PATH: Claude Code's hooks and .mcp.json run `recall`",
			"from a clone of the repository: go install -tags sqlite_fts5 ./cmd/recall")
	}
	if _, err := exec.LookPath("claude"); err != nil {
		r.check(Warn, "Claude Code (claude) not found on PATH: plugin wiring not checked")
		return
	}
	home, err := os.UserHomeDir()
	if err != nil {
		r.check(Warn, "home directory unknown: plugin wiring not checked")
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
		r.check(OK, "Claude Code: recall MCP server and hooks configured")
		return
	}
	if !mcp {
		r.check(Warn, "Claude Code: no recall MCP server found in its configuration",
			"claude mcp add --scope user recall -- recall serve", "or install this repository as a plugin: /plugin install (it ships .mcp.json)")
	}
	if !hooks {
		r.check(Warn, "Claude Code: no recall hooks found (no automatic context at session start or per prompt)",
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
