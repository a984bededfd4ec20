package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/recall-mcp/recall/config"
	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/internal/describe"

	"github.com/spf13/pflag"
)

// backgroundMaxTime bounds a background indexer: whatever happens (a huge
// first index, Ollama crawling), it ends and the next hook starts another
// that resumes where it stopped.
const backgroundMaxTime = 30 * time.Minute

// embedBatch is how many messages go to Ollama in one request.
const embedBatch = 32

func runHistoryIndex(fs *pflag.FlagSet) runFunc {
	background := fs.Bool("background", false, "run as the hooks' background indexer: quit at once if another is running, stop after "+backgroundMaxTime.String())
	noEmbed := fs.Bool("no-embed", false, "index keywords only; leave embedding to a later run")
	return func(ctx context.Context, e *env, rest []string) error {
		if err := noArgs(rest); err != nil {
			return err
		}
		// By hand it is quiet (a progress line, then what it did); as the
		// hooks' background indexer it logs to its log file.
		level := cliLevel(e)
		if *background {
			level = nil
		}
		cfg, log, err := loadConfigLevel(e.stderr, level)
		if err != nil {
			return err
		}
		if !cfg.History {
			return errors.New("conversation history is off (RECALL_HISTORY=off)")
		}
		if *background {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, backgroundMaxTime)
			defer cancel()
		}
		lock, err := takeLock(ctx, log, *background, cfg.HistoryIndexPath(), history.TryLock, history.WaitLock, "another indexer is running")
		if err != nil || lock == nil {
			return err
		}
		return indexHistory(ctx, e, cfg, log, lock, !*noEmbed && cfg.HistoryEmbed, *background)
	}
}

// takeLock takes one of the index's locks: waiting for it, or in the
// background only when it is free (nil, nil when busy: the process that holds
// it does the work).
func takeLock(ctx context.Context, log *slog.Logger, background bool, indexPath string,
	try func(string) (*history.Lock, error), wait func(context.Context, string) (*history.Lock, error), busy string) (*history.Lock, error) {
	if !background {
		return wait(ctx, indexPath)
	}
	lock, err := try(indexPath)
	if errors.Is(err, history.ErrBusy) {
		log.Debug("history index: " + busy)
		return nil, nil
	}
	return lock, err
}

// indexHistory updates the index under lock, then releases it and embeds
// what has no vector yet under the embedding lock (not waiting for it in the
// background): searches catch up with new messages while Ollama works.
func indexHistory(ctx context.Context, e *env, cfg *config.Config, log *slog.Logger, lock *history.Lock, embed, background bool) error {
	defer lock.Unlock() // a second Unlock is harmless
	report := !background
	ix, err := history.OpenForIndexing(ctx, cfg.HistoryIndexPath())
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now()
	opts := history.UpdateOptions{Root: cfg.HistoryDir, Limits: historyLimits(cfg)}
	var bar *progress
	if report {
		bar = newProgress(e.stderr, true)
		opts.Progress = func(done, total int64) { bar.show("indexing "+barLine(done, total), done >= total) }
	}
	st, err := ix.Update(ctx, opts)
	if bar != nil {
		bar.end(false)
	}
	if err != nil {
		return err
	}
	log.Info("history indexed", "transcripts", st.Files, "read", st.Read, "messages", st.Messages,
		"malformed_lines", st.Malformed, "excluded", st.Excluded, "removed", st.Removed, "elapsed", time.Since(start).Round(time.Millisecond))
	if report {
		fmt.Fprintf(e.stdout, "indexed %s from %d of %s in %s (%s skipped, %s left out by limits)\n",
			describe.Count(st.Messages, "new message", "new messages"), st.Read, describe.Count(st.Files, "transcript", "transcripts"),
			time.Since(start).Round(time.Millisecond), describe.Count(st.Malformed, "malformed line", "malformed lines"),
			describe.Count(st.Excluded, "session", "sessions"))
	}
	lock.Unlock()
	if !embed {
		return nil
	}
	embedLock, err := takeLock(ctx, log, background, cfg.HistoryIndexPath(), history.TryEmbedLock, history.WaitEmbedLock, "another process is embedding")
	if err != nil || embedLock == nil {
		return err
	}
	defer embedLock.Unlock()
	client, err := newOllama(cfg)
	if err != nil {
		return err
	}
	es, err := ix.Embed(ctx, client, embedBatch, 0)
	if err != nil {
		// Keywords work already; the vectors wait for the next run.
		log.Warn("history embedding stopped; the next run resumes it", "embedded", es.Messages, "pending", es.Pending, "err", err)
	}
	if report {
		fmt.Fprintf(e.stdout, "embedded %s, %d pending\n", describe.Count(es.Messages, "message", "messages"), es.Pending)
	}
	return nil
}

// maxIndexLog bounds the background indexer's log file.
const maxIndexLog = 1 << 20

// startBackgroundIndex starts `recall history index --background` as a
// detached process (its own session, no terminal, stdin and stdout closed,
// stderr to history-index.log) and returns at once. It starts nothing when an
// indexer already runs. The child ends when its work is done, when another
// indexer holds the lock, or after backgroundMaxTime.
func startBackgroundIndex(cfg *config.Config, log *slog.Logger) {
	lock, err := history.TryLock(cfg.HistoryIndexPath())
	if err != nil {
		log.Debug("history indexer not started", "err", err)
		return
	}
	lock.Unlock() // the child takes it; a race with another starter is settled there
	logPath := filepath.Join(filepath.Dir(cfg.HistoryIndexPath()), "history-index.log")
	if info, err := os.Stat(logPath); err == nil && info.Size() > maxIndexLog {
		os.Truncate(logPath, 0)
	}
	var stderr *os.File
	if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		stderr = f
		defer f.Close()
	}
	startDetached(log, "history indexer", stderr, "history", "index", "--background")
}

// refresher starts a background index at most once per interval: searches
// ask for fresh results without ever waiting for them.
func refresher(cfg *config.Config, log *slog.Logger, interval time.Duration) func() {
	var mu sync.Mutex
	var last time.Time
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < interval {
			return
		}
		last = time.Now()
		startBackgroundIndex(cfg, log)
	}
}

// What a search may spend to see the newest messages: how long it waits for
// another process's update of the index, and how much it reads itself.
const (
	catchUpWait  = time.Second
	catchUpBytes = 8 << 20
)

// catchUp reads into the index what was appended to the projects'
// transcripts (every project's when none) since the last update, before a
// search: a search sees the messages written before it. It returns a note
// for the search's answer when it could not read them all.
func catchUp(cfg *config.Config, log *slog.Logger, ix *history.Index) func(context.Context, []string) string {
	return func(ctx context.Context, projects []string) string {
		wait, cancel := context.WithTimeout(ctx, catchUpWait)
		lock, err := history.WaitLock(wait, cfg.HistoryIndexPath())
		cancel()
		if err != nil {
			log.Debug("history search without catching up", "err", err)
			return "the newest messages may be missing: another recall process is updating the history index"
		}
		defer lock.Unlock()
		st, left, err := ix.CatchUp(ctx, history.CatchUpOptions{Root: cfg.HistoryDir, Projects: projects,
			Limits: historyLimits(cfg), MaxBytes: catchUpBytes})
		if err != nil {
			log.Warn("history search without catching up", "err", err)
			return "the newest messages may be missing: " + err.Error()
		}
		if st.Messages > 0 {
			log.Debug("history caught up before a search", "messages", st.Messages, "bytes", st.Bytes)
		}
		if left > 0 {
			return fmt.Sprintf("%d MB of transcripts are still being indexed in the background: search again shortly", (left+1<<20-1)>>20)
		}
		return ""
	}
}
