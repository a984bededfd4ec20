// Package config loads Recall's settings from RECALL_* environment variables,
// fills in defaults and checks every value. Settings lists the variables; Describe prints them as a table.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-mcp/recall/spool"
)

// Config is Recall's configuration, every value parsed and checked.
type Config struct {
	SQLitePath             string        // absolute or relative path, ~ expanded
	OllamaOff              bool          // RECALL_OLLAMA=off: keywords only, no attempts, no warnings (the zero value keeps Ollama on)
	DatabaseURL            string        // PostgreSQL URL; "" means the SQLite file
	OllamaHost             string        // base URL with scheme and port, e.g. http://localhost:11434
	OllamaModel            string        // embedding model
	OllamaChatModel        string        // chat model for judgments
	OllamaTimeout          time.Duration // bound on each Ollama call
	StoreEmbedTimeout      time.Duration // how long a store waits for its vector
	LogLevel               string        // DEBUG, INFO, WARNING or ERROR
	DefaultNamespace       string
	DefaultImportance      float64
	DefaultConfidence      float64
	DefaultTokenBudget     int
	Curation               bool
	CurationWorkers        int
	ContradictionThreshold float64
	StaleDays              int
	HTTPToken              string
	HTTPSessionIdle        time.Duration // idle time after which an HTTP session is closed
	HTTPMaxSessions        int           // cap on open HTTP sessions
	SyncFull               bool          // SQLite synchronous=FULL (else NORMAL)
	HookTimeout            time.Duration // how long a hook waits for Ollama
	Capture                bool          // hooks write the session journal
	Summaries              bool          // the chat model summarises captured sessions
	SummaryCalls           int           // chat calls per session for summaries, at most
	Project                string        // pinned project namespace ("project:<name>"), "" when unset
	History                bool          // conversation history on
	HistoryDir             string        // Claude Code's projects directory
	HistoryProjects        []string      // only these projects' transcripts; empty: all
	HistoryDays            int           // only transcripts written this many days back; 0: all
	HistoryEmbed           bool          // embed history in the background
	MatchMinSimilarity     float64       // similarity floor of a match
	PromptMinCoverage      float64       // share of a prompt's content words an injected memory contains
	ActivityRetentionDays  int           // file activity older than this is summarised
	UIPort                 int           // port of recall ui; 0: derived from the user id
	ServerURL              string        // the team server this machine is a client of; "" when none
	Token                  string        // the bearer token for ServerURL
	ServerCA               string        // PEM file of extra authorities for ServerURL's certificate
}

// ClientMode reports whether this machine is a client of a team server.
func (c *Config) ClientMode() bool { return c.ServerURL != "" }

// SpoolDir is where this machine keeps the hooks' writes the database could
// not take, and the record of those lost: beside the SQLite file, or for a
// PostgreSQL database a directory of its own in the same place.
func (c *Config) SpoolDir() string {
	if c.DatabaseURL != "" {
		return spool.DirForServer(filepath.Dir(c.SQLitePath), c.DatabaseURL)
	}
	return spool.DirFor(c.SQLitePath)
}

// HistoryIndexPath is the history index's file: history.db beside the memory
// database, so that rebuilding it never touches memories.
func (c *Config) HistoryIndexPath() string {
	return filepath.Join(filepath.Dir(c.SQLitePath), "history.db")
}

// Error is a variable with a value Recall does not accept.
type Error struct {
	Name    string // the variable, e.g. RECALL_DEFAULT_IMPORTANCE
	Value   string // what it was set to
	Accepts string // what it accepts
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s=%s: must be %s", e.Name, e.Value, e.Accepts)
}

// Load reads the environment. An unset or empty variable takes its default. A
// bad value is an *Error naming the variable, the value and what it accepts; when
// several are bad, all are reported (joined).
func Load() (*Config, error) {
	raw := readEnv()
	p := parser{}
	if _, set := os.LookupEnv("RECALL_HISTORY_DIR"); (!set || strings.TrimSpace(raw.HistoryDir) == "") && os.Getenv("CLAUDE_CONFIG_DIR") != "" {
		raw.HistoryDir = filepath.Join(os.Getenv("CLAUDE_CONFIG_DIR"), "projects")
	}
	hostVar := "RECALL_OLLAMA_HOST"
	if _, set := os.LookupEnv(hostVar); !set || strings.TrimSpace(raw.OllamaHost) == "" {
		if h := strings.TrimSpace(os.Getenv("OLLAMA_HOST")); h != "" {
			hostVar, raw.OllamaHost = "OLLAMA_HOST", h
		}
	}
	c := &Config{
		SQLitePath:             p.path("RECALL_SQLITE_PATH", raw.SQLitePath),
		OllamaOff:              !p.onOff("RECALL_OLLAMA", raw.Ollama),
		DatabaseURL:            p.databaseURL("RECALL_DATABASE_URL", raw.DatabaseURL),
		OllamaHost:             p.host(hostVar, raw.OllamaHost),
		OllamaModel:            p.text("RECALL_OLLAMA_MODEL", raw.OllamaModel),
		OllamaChatModel:        p.text("RECALL_OLLAMA_CHAT_MODEL", raw.OllamaChatModel),
		OllamaTimeout:          p.duration("RECALL_OLLAMA_TIMEOUT", raw.OllamaTimeout),
		StoreEmbedTimeout:      p.duration("RECALL_STORE_EMBED_TIMEOUT", raw.StoreEmbedTimeout),
		LogLevel:               p.logLevel("RECALL_LOG_LEVEL", raw.LogLevel),
		DefaultNamespace:       p.namespace("RECALL_DEFAULT_NAMESPACE", raw.DefaultNamespace),
		DefaultImportance:      p.fraction("RECALL_DEFAULT_IMPORTANCE", raw.DefaultImportance),
		DefaultConfidence:      p.fraction("RECALL_DEFAULT_CONFIDENCE", raw.DefaultConfidence),
		DefaultTokenBudget:     p.integer("RECALL_DEFAULT_TOKEN_BUDGET", raw.DefaultTokenBudget, 100, 0),
		Curation:               p.onOff("RECALL_CURATION", raw.Curation),
		CurationWorkers:        p.integer("RECALL_CURATION_WORKERS", raw.CurationWorkers, 1, 16),
		ContradictionThreshold: p.fraction("RECALL_CONTRADICTION_THRESHOLD", raw.ContradictionThreshold),
		StaleDays:              p.integer("RECALL_STALE_DAYS", raw.StaleDays, 1, 0),
		HTTPToken:              raw.HTTPToken,
		HTTPSessionIdle:        p.duration("RECALL_HTTP_SESSION_IDLE", raw.HTTPSessionIdle),
		HTTPMaxSessions:        p.integer("RECALL_HTTP_MAX_SESSIONS", raw.HTTPMaxSessions, 1, 100000),
		SyncFull:               p.choice("RECALL_SYNC", raw.Sync, "full", "normal") == "full",
		HookTimeout:            p.duration("RECALL_HOOK_TIMEOUT", raw.HookTimeout),
		Capture:                p.onOff("RECALL_CAPTURE", raw.Capture),
		Summaries:              p.onOff("RECALL_SUMMARIES", raw.Summaries),
		SummaryCalls:           p.integer("RECALL_SUMMARY_CALLS", raw.SummaryCalls, 1, 1000),
		Project:                p.project("RECALL_PROJECT", raw.Project),
		History:                p.onOff("RECALL_HISTORY", raw.History),
		HistoryDir:             p.path("RECALL_HISTORY_DIR", raw.HistoryDir),
		HistoryProjects:        p.list("RECALL_HISTORY_PROJECTS", raw.HistoryProjects),
		HistoryDays:            p.integer("RECALL_HISTORY_DAYS", raw.HistoryDays, 0, 0),
		HistoryEmbed:           p.onOff("RECALL_HISTORY_EMBED", raw.HistoryEmbed),
		MatchMinSimilarity:     p.fraction("RECALL_MATCH_MIN_SIMILARITY", raw.MatchMinSimilarity),
		PromptMinCoverage:      p.fraction("RECALL_PROMPT_MIN_COVERAGE", raw.PromptMinCoverage),
		ActivityRetentionDays:  p.integer("RECALL_ACTIVITY_RETENTION_DAYS", raw.ActivityRetentionDays, 1, 0),
		UIPort:                 p.optionalPort("RECALL_UI_PORT", raw.UIPort),
		ServerURL:              p.serverURL("RECALL_SERVER_URL", raw.ServerURL),
		Token:                  strings.TrimSpace(raw.Token),
		ServerCA:               p.path("RECALL_SERVER_CA", raw.ServerCA),
	}

	if err := errors.Join(p.errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// SlogLevel is LogLevel as a log/slog level.
func (c *Config) SlogLevel() slog.Level {
	switch c.LogLevel {
	case "DEBUG":
		return slog.LevelDebug
	case "WARNING":
		return slog.LevelWarn
	case "ERROR":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// ExpandHome replaces a leading "~" or "~/" with the user's home directory.
func ExpandHome(path string) (string, error) {
	if path != "~" && !strings.HasPrefix(path, "~/") && !strings.HasPrefix(path, "~"+string(filepath.Separator)) {
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding ~ in %s: %w", path, err)
	}
	return filepath.Join(home, path[1:]), nil
}
