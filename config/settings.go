package config

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"text/tabwriter"
)

// env is what Load reads: one string per variable, with its default, what it
// accepts and what it means in the tags. Values are parsed and checked by
// Load, so every bad value gets the same kind of message and all of them are
// reported at once.
type env struct {
	SQLitePath             string `env:"RECALL_SQLITE_PATH" default:"~/.recall/recall.db" accepts:"a file path (~ is your home directory)" desc:"SQLite database file holding every memory"`
	Ollama                 string `env:"RECALL_OLLAMA" default:"on" accepts:"on or off" desc:"use Ollama for embeddings and judgments; off: search by keywords only, without trying Ollama or warning that it is down (memories wait for their vectors until it is on again)"`
	DatabaseURL            string `env:"RECALL_DATABASE_URL" default:"" accepts:"empty, or a URL like postgres://user:password@host:5432/recall" desc:"PostgreSQL database (with pgvector) that every part of Recall uses instead of the SQLite file, for a team or several servers (empty: the SQLite file)"`
	OllamaHost             string `env:"RECALL_OLLAMA_HOST" default:"http://localhost:11434" accepts:"a URL like http://localhost:11434, or host:port" desc:"Ollama server; when unset, OLLAMA_HOST is used if set"`
	OllamaModel            string `env:"RECALL_OLLAMA_MODEL" default:"mxbai-embed-large" accepts:"an Ollama model name" desc:"embedding model"`
	OllamaChatModel        string `env:"RECALL_OLLAMA_CHAT_MODEL" default:"llama3.2" accepts:"an Ollama model name" desc:"chat model for relationship and contradiction judgments"`
	OllamaTimeout          string `env:"RECALL_OLLAMA_TIMEOUT" default:"30" accepts:"a positive number of seconds, or a duration like 2s or 1m30s" desc:"longest wait for one Ollama call, in seconds (or a duration like 2s)"`
	StoreEmbedTimeout      string `env:"RECALL_STORE_EMBED_TIMEOUT" default:"5s" accepts:"a positive number of seconds, or a duration like 2s or 1m30s" desc:"longest wait of a store for its memory's vector; past it the memory is stored pending and embedded in the background"`
	LogLevel               string `env:"RECALL_LOG_LEVEL" default:"INFO" accepts:"one of DEBUG, INFO, WARNING (or WARN), ERROR" desc:"least severe log level written to stderr"`
	DefaultNamespace       string `env:"RECALL_DEFAULT_NAMESPACE" default:"global" accepts:"\"global\" or \"project:<name>\"" desc:"namespace of a memory stored without one"`
	DefaultImportance      string `env:"RECALL_DEFAULT_IMPORTANCE" default:"0.5" accepts:"a number from 0 to 1" desc:"importance of a memory stored without one"`
	DefaultConfidence      string `env:"RECALL_DEFAULT_CONFIDENCE" default:"0.3" accepts:"a number from 0 to 1" desc:"confidence a new memory starts with"`
	DefaultTokenBudget     string `env:"RECALL_DEFAULT_TOKEN_BUDGET" default:"4000" accepts:"a whole number of at least 100" desc:"token budget of memory_context_tool when none is given"`
	Curation               string `env:"RECALL_CURATION" default:"on" accepts:"on or off" desc:"infer relationships and look for contradictions with the chat model"`
	CurationWorkers        string `env:"RECALL_CURATION_WORKERS" default:"2" accepts:"a whole number from 1 to 16" desc:"curation jobs run at once"`
	ContradictionThreshold string `env:"RECALL_CONTRADICTION_THRESHOLD" default:"0.7" accepts:"a number from 0 to 1" desc:"similarity above which two memories are checked for contradiction"`
	StaleDays              string `env:"RECALL_STALE_DAYS" default:"30" accepts:"a whole number of at least 1" desc:"days without a validation event (apply, outcome, validate; counted from creation when there is none) after which memory_analyze_health calls a memory stale; the default of its stale_days"`
	HTTPToken              string `env:"RECALL_HTTP_TOKEN" default:"" accepts:"any text; empty means no token" desc:"bearer token the HTTP transport and a viewer served to other machines require (empty: none)"`
	Capture                string `env:"RECALL_CAPTURE" default:"on" accepts:"on or off" desc:"hooks record prompts and one line per tool call in the session journal"`
	Summaries              string `env:"RECALL_SUMMARIES" default:"on" accepts:"on or off" desc:"the chat model summarises captured sessions (in recall serve, after Stop, PreCompact and SessionEnd)"`
	SummaryCalls           string `env:"RECALL_SUMMARY_CALLS" default:"20" accepts:"a whole number from 1 to 1000" desc:"most chat-model calls spent on summaries of one session"`
	Project                string `env:"RECALL_PROJECT" default:"" accepts:"empty, a project name, or \"project:<name>\"" desc:"pins the project namespace of hooks, the CLI and memory_context_tool for a shell or CI job (empty: from the git root of the working directory, or the MCP client's roots)"`
	HTTPSessionIdle        string `env:"RECALL_HTTP_SESSION_IDLE" default:"30m" accepts:"a positive number of seconds, or a duration like 2s or 1m30s" desc:"an HTTP session unused this long is closed"`
	HTTPMaxSessions        string `env:"RECALL_HTTP_MAX_SESSIONS" default:"1000" accepts:"a whole number from 1 to 100000" desc:"most HTTP sessions open at once; a new one closes the longest unused"`
	Sync                   string `env:"RECALL_SYNC" default:"full" accepts:"full or normal" desc:"SQLite synchronous mode of memories and every other write but the hooks' records (always normal, synced right after by recall serve): full survives power loss; normal is faster and survives crashes only"`
	HookTimeout            string `env:"RECALL_HOOK_TIMEOUT" default:"100ms" accepts:"a positive number of seconds, or a duration like 2s or 1m30s" desc:"the prompt hook's budget for the prompt's vector: past it the keywords answer alone, and hooks skip Ollama until it answers within it again (checked in the background); on a client of a team server a hook waits for the server at most this plus 400 ms"`
	History                string `env:"RECALL_HISTORY" default:"on" accepts:"on or off" desc:"index and search Claude Code's conversation transcripts (history tools, hooks)"`
	HistoryDir             string `env:"RECALL_HISTORY_DIR" default:"~/.claude/projects" accepts:"a directory path (~ is your home directory)" desc:"Claude Code's transcripts; when unset, $CLAUDE_CONFIG_DIR/projects is used if that is set"`
	HistoryProjects        string `env:"RECALL_HISTORY_PROJECTS" default:"" accepts:"comma-separated project directories; empty means all" desc:"the only projects whose conversations are indexed"`
	HistoryDays            string `env:"RECALL_HISTORY_DAYS" default:"0" accepts:"a whole number of days; 0 means no limit" desc:"leave out transcripts last written longer ago"`
	HistoryEmbed           string `env:"RECALL_HISTORY_EMBED" default:"on" accepts:"on or off" desc:"embed indexed history in the background for search by meaning (off: keywords only)"`
	MatchMinSimilarity     string `env:"RECALL_MATCH_MIN_SIMILARITY" default:"0.3" accepts:"a number from 0 to 1" desc:"least cosine similarity of query and memory vectors for a match (forget by query, prompt hook); applies when both have vectors"`
	PromptMinCoverage      string `env:"RECALL_PROMPT_MIN_COVERAGE" default:"0.6" accepts:"a number from 0 to 1" desc:"least share of a prompt's content words a memory must contain for the prompt hook to inject it"`
	ActivityRetentionDays  string `env:"RECALL_ACTIVITY_RETENTION_DAYS" default:"90" accepts:"a whole number of at least 1" desc:"days file activity is kept one row per touch; older touches are folded into one summary row per file"`
	ServerURL              string `env:"RECALL_SERVER_URL" default:"" accepts:"empty, an https:// URL, or http:// to a loopback address" desc:"the team server this machine is a client of: recall serve forwards tool calls, hooks, the CLI and recall ui go to it, and no local database is opened (empty: this machine's own database)"`
	Token                  string `env:"RECALL_TOKEN" default:"" accepts:"your token from recall users add/token on the team server" desc:"the bearer token sent to RECALL_SERVER_URL"`
	ServerCA               string `env:"RECALL_SERVER_CA" default:"" accepts:"empty, or a PEM file of certificate authorities" desc:"authorities that may sign the team server's certificate, beside the system's"`
	UIPort                 string `env:"RECALL_UI_PORT" default:"" accepts:"a port from 1 to 65535; empty: 20000 + user id mod 10000" desc:"port of recall ui on 127.0.0.1"`
}

// Setting describes one environment variable.
type Setting struct {
	Name    string // e.g. RECALL_SQLITE_PATH
	Default string // "" when empty by default
	Accepts string // what values are valid
	Meaning string // what it changes
}

// Settings lists every environment variable Recall reads, in a stable order,
// for README and `recall --help`.
func Settings() []Setting {
	t := reflect.TypeFor[env]()
	out := make([]Setting, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, settingOf(t.Field(i).Tag))
	}
	return out
}

// setting returns the description of one variable. Load asks for the default
// of every variable left empty: it reads the other fields' names only, not
// their descriptions (reading all of them for each took 0.2 ms of every
// process's start).
func setting(name string) Setting {
	t := reflect.TypeFor[env]()
	for i := range t.NumField() {
		if tag := t.Field(i).Tag; tag.Get("env") == name {
			return settingOf(tag)
		}
	}
	return Setting{Name: name}
}

// readEnv reads every variable of env, or its default when it is unset (set
// and empty, it stays empty, and Load gives it the default). It is a loop over
// the tags rather than a library: a process reads its settings before it does
// anything else, and envconfig took 0.1 ms of every start for it, with two
// regular expressions compiled at initialisation.
func readEnv() env {
	var raw env
	v := reflect.ValueOf(&raw).Elem()
	for i := range v.NumField() {
		tag := v.Type().Field(i).Tag
		value, set := os.LookupEnv(tag.Get("env"))
		if !set {
			value = tag.Get("default")
		}
		v.Field(i).SetString(value)
	}
	return raw
}

func settingOf(tag reflect.StructTag) Setting {
	return Setting{
		Name:    tag.Get("env"),
		Default: tag.Get("default"),
		Accepts: tag.Get("accepts"),
		Meaning: tag.Get("desc"),
	}
}

// Describe renders Settings as an aligned plain-text table: variable, default,
// meaning.
func Describe() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "VARIABLE\tDEFAULT\tMEANING")
	for _, s := range Settings() {
		def := s.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", s.Name, def, s.Meaning)
	}
	w.Flush()
	return b.String()
}
