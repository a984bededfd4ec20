package config_test

import (
	"errors"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/config"
)

// cleanEnv unsets (empties) every variable Recall reads and gives the test its
// own home directory, so the machine's environment cannot leak in.
func cleanEnv(t *testing.T) (home string) {
	t.Helper()
	for _, s := range config.Settings() {
		t.Setenv(s.Name, "")
	}
	t.Setenv("OLLAMA_HOST", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	home = t.TempDir()
	t.Setenv("HOME", home)
	return home
}

func load(t *testing.T) *config.Config {
	t.Helper()
	c, err := config.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	home := cleanEnv(t)
	got := load(t)
	want := config.Config{
		SQLitePath:             filepath.Join(home, ".recall", "recall.db"),
		OllamaHost:             "http://localhost:11434",
		OllamaModel:            "mxbai-embed-large",
		OllamaChatModel:        "llama3.2",
		OllamaTimeout:          30 * time.Second,
		StoreEmbedTimeout:      5 * time.Second,
		LogLevel:               "INFO",
		DefaultNamespace:       "global",
		DefaultImportance:      0.5,
		DefaultConfidence:      0.3,
		DefaultTokenBudget:     4000,
		Curation:               true,
		CurationWorkers:        2,
		ContradictionThreshold: 0.7,
		StaleDays:              30,
		HTTPToken:              "",
		HTTPSessionIdle:        30 * time.Minute,
		HTTPMaxSessions:        1000,
		SyncFull:               true,
		HookTimeout:            100 * time.Millisecond,
		Capture:                true,
		Summaries:              true,
		SummaryCalls:           20,
		History:                true,
		HistoryDir:             filepath.Join(home, ".claude", "projects"),
		HistoryEmbed:           true,
		MatchMinSimilarity:     0.3,
		PromptMinCoverage:      0.6,
		ActivityRetentionDays:  90,
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", *got, want)
	}
	if got.SlogLevel() != slog.LevelInfo {
		t.Errorf("default slog level %v", got.SlogLevel())
	}
}

// overrides sets each variable to a valid non-default value and says what Load
// must make of it.
var overrides = []struct {
	name, value string
	check       func(c *config.Config) bool
}{
	{"RECALL_SQLITE_PATH", "/var/lib/recall/r.db", func(c *config.Config) bool { return c.SQLitePath == "/var/lib/recall/r.db" }},
	{"RECALL_OLLAMA", "off", func(c *config.Config) bool { return c.OllamaOff }},
	{"RECALL_DATABASE_URL", "postgres://recall@db:5432/recall", func(c *config.Config) bool { return c.DatabaseURL == "postgres://recall@db:5432/recall" }},
	{"RECALL_OLLAMA_HOST", "http://gpu-box:11434", func(c *config.Config) bool { return c.OllamaHost == "http://gpu-box:11434" }},
	{"RECALL_OLLAMA_MODEL", "nomic-embed-text", func(c *config.Config) bool { return c.OllamaModel == "nomic-embed-text" }},
	{"RECALL_OLLAMA_CHAT_MODEL", "qwen2.5:7b", func(c *config.Config) bool { return c.OllamaChatModel == "qwen2.5:7b" }},
	{"RECALL_OLLAMA_TIMEOUT", "12", func(c *config.Config) bool { return c.OllamaTimeout == 12*time.Second }},
	{"RECALL_LOG_LEVEL", "debug", func(c *config.Config) bool { return c.LogLevel == "DEBUG" && c.SlogLevel() == slog.LevelDebug }},
	{"RECALL_DEFAULT_NAMESPACE", "project:recall", func(c *config.Config) bool { return c.DefaultNamespace == "project:recall" }},
	{"RECALL_DEFAULT_IMPORTANCE", "0.8", func(c *config.Config) bool { return c.DefaultImportance == 0.8 }},
	{"RECALL_DEFAULT_CONFIDENCE", "0", func(c *config.Config) bool { return c.DefaultConfidence == 0 }},
	{"RECALL_DEFAULT_TOKEN_BUDGET", "100", func(c *config.Config) bool { return c.DefaultTokenBudget == 100 }},
	{"RECALL_CURATION", "OFF", func(c *config.Config) bool { return !c.Curation }},
	{"RECALL_CURATION_WORKERS", "16", func(c *config.Config) bool { return c.CurationWorkers == 16 }},
	{"RECALL_CONTRADICTION_THRESHOLD", "1", func(c *config.Config) bool { return c.ContradictionThreshold == 1 }},
	{"RECALL_MATCH_MIN_SIMILARITY", "0.6", func(c *config.Config) bool { return c.MatchMinSimilarity == 0.6 }},
	{"RECALL_PROMPT_MIN_COVERAGE", "1", func(c *config.Config) bool { return c.PromptMinCoverage == 1 }},
	{"RECALL_ACTIVITY_RETENTION_DAYS", "7", func(c *config.Config) bool { return c.ActivityRetentionDays == 7 }},
	{"RECALL_STALE_DAYS", "1", func(c *config.Config) bool { return c.StaleDays == 1 }},
	{"RECALL_UI_PORT", "28001", func(c *config.Config) bool { return c.UIPort == 28001 }},
	{"RECALL_HTTP_TOKEN", "s3cret", func(c *config.Config) bool { return c.HTTPToken == "s3cret" }},
	{"RECALL_HTTP_SESSION_IDLE", "90s", func(c *config.Config) bool { return c.HTTPSessionIdle == 90*time.Second }},
	{"RECALL_HTTP_MAX_SESSIONS", "5", func(c *config.Config) bool { return c.HTTPMaxSessions == 5 }},
	{"RECALL_SYNC", "Normal", func(c *config.Config) bool { return !c.SyncFull }},
	{"RECALL_STORE_EMBED_TIMEOUT", "2s", func(c *config.Config) bool { return c.StoreEmbedTimeout == 2*time.Second }},
	{"RECALL_HOOK_TIMEOUT", "750ms", func(c *config.Config) bool { return c.HookTimeout == 750*time.Millisecond }},
	{"RECALL_CAPTURE", "off", func(c *config.Config) bool { return !c.Capture }},
	{"RECALL_SUMMARIES", "off", func(c *config.Config) bool { return !c.Summaries }},
	{"RECALL_SUMMARY_CALLS", "3", func(c *config.Config) bool { return c.SummaryCalls == 3 }},
	{"RECALL_PROJECT", "shop-api", func(c *config.Config) bool { return c.Project == "project:shop-api" }},
	{"RECALL_HISTORY", "off", func(c *config.Config) bool { return !c.History }},
	{"RECALL_HISTORY_DIR", "/srv/claude/projects", func(c *config.Config) bool { return c.HistoryDir == "/srv/claude/projects" }},
	{"RECALL_HISTORY_PROJECTS", " /home/a, /home/b ,", func(c *config.Config) bool {
		return len(c.HistoryProjects) == 2 && c.HistoryProjects[0] == "/home/a" && c.HistoryProjects[1] == "/home/b"
	}},
	{"RECALL_HISTORY_DAYS", "90", func(c *config.Config) bool { return c.HistoryDays == 90 }},
	{"RECALL_HISTORY_EMBED", "off", func(c *config.Config) bool { return !c.HistoryEmbed }},
	{"RECALL_SERVER_URL", "https://recall.example.com/", func(c *config.Config) bool {
		return c.ServerURL == "https://recall.example.com" && c.ClientMode()
	}},
	{"RECALL_TOKEN", " tok ", func(c *config.Config) bool { return c.Token == "tok" }},
	{"RECALL_SERVER_CA", "/etc/team-ca.pem", func(c *config.Config) bool { return c.ServerCA == "/etc/team-ca.pem" }},
}

func TestEveryOverride(t *testing.T) {
	for _, o := range overrides {
		t.Run(o.name, func(t *testing.T) {
			cleanEnv(t)
			t.Setenv(o.name, o.value)
			if c := load(t); !o.check(c) {
				t.Errorf("%s=%s gave %+v", o.name, o.value, *c)
			}
		})
	}
}

func TestEverySettingIsDocumentedAndTested(t *testing.T) {
	tested := map[string]bool{}
	for _, o := range overrides {
		tested[o.name] = true
	}
	settings := config.Settings()
	if len(settings) != len(overrides) {
		t.Errorf("%d settings, %d overrides tested", len(settings), len(overrides))
	}
	table := config.Describe()
	for _, s := range settings {
		if !strings.HasPrefix(s.Name, "RECALL_") || s.Meaning == "" || s.Accepts == "" {
			t.Errorf("setting %+v lacks a RECALL_ name, a meaning or what it accepts", s)
		}
		if !tested[s.Name] {
			t.Errorf("%s has no override test", s.Name)
		}
		if !strings.Contains(table, s.Name) || !strings.Contains(table, s.Meaning) {
			t.Errorf("Describe() does not list %s", s.Name)
		}
	}
	if !strings.Contains(table, "~/.recall/recall.db") || !strings.Contains(table, "mxbai-embed-large") {
		t.Errorf("Describe() does not show defaults:\n%s", table)
	}
}

func TestHistoryDirFollowsClaudeConfigDir(t *testing.T) {
	home := cleanEnv(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "/srv/claude")
	c := load(t)
	if c.HistoryDir != "/srv/claude/projects" {
		t.Errorf("HistoryDir = %s, want $CLAUDE_CONFIG_DIR/projects", c.HistoryDir)
	}
	if got, want := c.HistoryIndexPath(), filepath.Join(home, ".recall", "history.db"); got != want {
		t.Errorf("HistoryIndexPath = %s, want %s beside the memory database", got, want)
	}
	t.Setenv("RECALL_HISTORY_DIR", "/elsewhere")
	if c := load(t); c.HistoryDir != "/elsewhere" {
		t.Errorf("RECALL_HISTORY_DIR must win: %s", c.HistoryDir)
	}
}

func TestHomeIsExpanded(t *testing.T) {
	home := cleanEnv(t)
	t.Setenv("RECALL_SQLITE_PATH", "~/data/memories.db")
	if got, want := load(t).SQLitePath, filepath.Join(home, "data", "memories.db"); got != want {
		t.Errorf("SQLitePath = %s, want %s", got, want)
	}
	if got, _ := config.ExpandHome("relative/~/x.db"); got != "relative/~/x.db" {
		t.Errorf("a ~ inside a path must stay: %s", got)
	}
}

func TestOllamaHostFormsAsOllamaReadsThem(t *testing.T) {
	for value, want := range map[string]string{
		"localhost:11434":             "http://localhost:11434",
		"0.0.0.0":                     "http://0.0.0.0:11434",
		"gpu-box":                     "http://gpu-box:11434",
		"https://ollama.example.com":  "https://ollama.example.com:443",
		"http://10.0.0.5:8080/ollama": "http://10.0.0.5:8080/ollama",
		"[::1]:11434":                 "http://[::1]:11434",
		" http://127.0.0.1:11434 ":    "http://127.0.0.1:11434",
	} {
		cleanEnv(t)
		t.Setenv("RECALL_OLLAMA_HOST", value)
		if got := load(t).OllamaHost; got != want {
			t.Errorf("RECALL_OLLAMA_HOST=%q gave %s, want %s", value, got, want)
		}
	}
}

func TestOllamaHostFallsBackToTheStandardVariable(t *testing.T) {
	cleanEnv(t)
	t.Setenv("OLLAMA_HOST", "192.168.1.9:11434")
	if got := load(t).OllamaHost; got != "http://192.168.1.9:11434" {
		t.Errorf("with only OLLAMA_HOST set: %s", got)
	}
	t.Setenv("RECALL_OLLAMA_HOST", "http://other:1234")
	if got := load(t).OllamaHost; got != "http://other:1234" {
		t.Errorf("RECALL_OLLAMA_HOST must win over OLLAMA_HOST: %s", got)
	}
	t.Setenv("RECALL_OLLAMA_HOST", "")
	t.Setenv("OLLAMA_HOST", "ftp://nope")
	_, err := config.Load()
	var bad *config.Error
	if !errors.As(err, &bad) || bad.Name != "OLLAMA_HOST" {
		t.Errorf("a bad OLLAMA_HOST must be reported under its own name: %v", err)
	}
}

func TestTimeoutForms(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"2s": 2 * time.Second, "45": 45 * time.Second, "1.5": 1500 * time.Millisecond, "1m30s": 90 * time.Second,
	} {
		cleanEnv(t)
		t.Setenv("RECALL_OLLAMA_TIMEOUT", value)
		t.Setenv("RECALL_HOOK_TIMEOUT", value)
		c := load(t)
		if c.OllamaTimeout != want || c.HookTimeout != want {
			t.Errorf("%q gave %v and %v, want %v", value, c.OllamaTimeout, c.HookTimeout, want)
		}
	}
}

func TestLogLevels(t *testing.T) {
	for value, want := range map[string]slog.Level{
		"DEBUG": slog.LevelDebug, "info": slog.LevelInfo, "Warning": slog.LevelWarn, "warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		cleanEnv(t)
		t.Setenv("RECALL_LOG_LEVEL", value)
		if got := load(t).SlogLevel(); got != want {
			t.Errorf("RECALL_LOG_LEVEL=%s gave %v, want %v", value, got, want)
		}
	}
}

func TestBadValuesNameTheVariableTheValueAndWhatIsAccepted(t *testing.T) {
	for _, tc := range []struct{ name, value, message string }{
		{"RECALL_DEFAULT_IMPORTANCE", "7", "RECALL_DEFAULT_IMPORTANCE=7: must be a number from 0 to 1"},
		{"RECALL_DEFAULT_IMPORTANCE", "high", "RECALL_DEFAULT_IMPORTANCE=high: must be a number from 0 to 1"},
		{"RECALL_DEFAULT_CONFIDENCE", "-0.1", "RECALL_DEFAULT_CONFIDENCE=-0.1: must be a number from 0 to 1"},
		{"RECALL_DEFAULT_CONFIDENCE", "NaN", "RECALL_DEFAULT_CONFIDENCE=NaN: must be a number from 0 to 1"},
		{"RECALL_CONTRADICTION_THRESHOLD", "1.2", "RECALL_CONTRADICTION_THRESHOLD=1.2: must be a number from 0 to 1"},
		{"RECALL_MATCH_MIN_SIMILARITY", "-0.1", "RECALL_MATCH_MIN_SIMILARITY=-0.1: must be a number from 0 to 1"},
		{"RECALL_PROMPT_MIN_COVERAGE", "half", "RECALL_PROMPT_MIN_COVERAGE=half: must be a number from 0 to 1"},
		{"RECALL_ACTIVITY_RETENTION_DAYS", "0", "RECALL_ACTIVITY_RETENTION_DAYS=0: must be a whole number of at least 1"},
		{"RECALL_OLLAMA_TIMEOUT", "-5", "RECALL_OLLAMA_TIMEOUT=-5: must be a positive number of seconds, or a duration like 2s or 1m30s"},
		{"RECALL_OLLAMA_TIMEOUT", "0", "RECALL_OLLAMA_TIMEOUT=0: must be a positive number of seconds, or a duration like 2s or 1m30s"},
		{"RECALL_OLLAMA_TIMEOUT", "soon", "RECALL_OLLAMA_TIMEOUT=soon: must be a positive number of seconds, or a duration like 2s or 1m30s"},
		{"RECALL_HOOK_TIMEOUT", "-1s", "RECALL_HOOK_TIMEOUT=-1s: must be a positive number of seconds, or a duration like 2s or 1m30s"},
		{"RECALL_LOG_LEVEL", "verbose", "RECALL_LOG_LEVEL=verbose: must be one of DEBUG, INFO, WARNING (or WARN), ERROR"},
		{"RECALL_DEFAULT_NAMESPACE", "team", `RECALL_DEFAULT_NAMESPACE=team: must be "global" or "project:<name>"`},
		{"RECALL_DEFAULT_NAMESPACE", "project:", `RECALL_DEFAULT_NAMESPACE=project:: must be "global" or "project:<name>"`},
		{"RECALL_PROJECT", "project:\x07", "RECALL_PROJECT=project:\x07: must be empty, a project name, or \"project:<name>\""},
		{"RECALL_DEFAULT_TOKEN_BUDGET", "99", "RECALL_DEFAULT_TOKEN_BUDGET=99: must be a whole number of at least 100"},
		{"RECALL_DEFAULT_TOKEN_BUDGET", "4k", "RECALL_DEFAULT_TOKEN_BUDGET=4k: must be a whole number of at least 100"},
		{"RECALL_CURATION", "maybe", "RECALL_CURATION=maybe: must be on or off"},
		{"RECALL_CURATION_WORKERS", "0", "RECALL_CURATION_WORKERS=0: must be a whole number from 1 to 16"},
		{"RECALL_CURATION_WORKERS", "17", "RECALL_CURATION_WORKERS=17: must be a whole number from 1 to 16"},
		{"RECALL_CURATION_WORKERS", "2.5", "RECALL_CURATION_WORKERS=2.5: must be a whole number from 1 to 16"},
		{"RECALL_SYNC", "off", "RECALL_SYNC=off: must be full or normal"},
		{"RECALL_DATABASE_URL", "mysql://db/recall", "RECALL_DATABASE_URL=mysql://db/recall: must be empty, or a URL like postgres://user:password@host:5432/recall"},
		{"RECALL_HTTP_MAX_SESSIONS", "0", "RECALL_HTTP_MAX_SESSIONS=0: must be a whole number from 1 to 100000"},
		{"RECALL_STALE_DAYS", "0", "RECALL_STALE_DAYS=0: must be a whole number of at least 1"},
		{"RECALL_OLLAMA_HOST", "ftp://host", "RECALL_OLLAMA_HOST=ftp://host: must be a URL like http://localhost:11434, or host:port"},
		{"RECALL_SERVER_URL", "http://recall.example.com", "RECALL_SERVER_URL=http://recall.example.com: must be an https:// URL (http:// only to 127.0.0.1, [::1] or localhost)"},
		{"RECALL_SERVER_URL", "recall.example.com", "RECALL_SERVER_URL=recall.example.com: must be an https:// URL (http:// only to 127.0.0.1, [::1] or localhost)"},
		{"RECALL_OLLAMA_HOST", "localhost:99999", "RECALL_OLLAMA_HOST=localhost:99999: must be a URL like http://localhost:11434, or host:port"},
	} {
		cleanEnv(t)
		t.Setenv(tc.name, tc.value)
		c, err := config.Load()
		if err == nil {
			t.Errorf("%s=%s accepted: %+v", tc.name, tc.value, *c)
			continue
		}
		if err.Error() != tc.message {
			t.Errorf("%s=%s:\n got %q\nwant %q", tc.name, tc.value, err, tc.message)
		}
		var bad *config.Error
		if !errors.As(err, &bad) || bad.Name != tc.name || bad.Value != tc.value {
			t.Errorf("%s=%s: error %#v does not carry the name and value", tc.name, tc.value, err)
		}
	}
}

func TestSeveralBadValuesAreAllReported(t *testing.T) {
	cleanEnv(t)
	t.Setenv("RECALL_DEFAULT_IMPORTANCE", "7")
	t.Setenv("RECALL_LOG_LEVEL", "loud")
	t.Setenv("RECALL_STALE_DAYS", "-3")
	_, err := config.Load()
	if err == nil {
		t.Fatal("bad values accepted")
	}
	for _, name := range []string{"RECALL_DEFAULT_IMPORTANCE=7", "RECALL_LOG_LEVEL=loud", "RECALL_STALE_DAYS=-3"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not report %s", err, name)
		}
	}
}
