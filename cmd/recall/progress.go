package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
)

// progress shows how long work goes (reindex, import, history index): on a
// terminal one line rewritten in place a few times a second; elsewhere (a
// log file, a pipe) a line every few seconds, or nothing when quiet.
type progress struct {
	w        io.Writer
	terminal bool
	quiet    bool // off a terminal, print nothing
	last     time.Time
	every    time.Duration
	printed  bool
}

// newProgress shows progress on w; off a terminal a line every 10 s, or
// nothing with quietOffTerminal.
func newProgress(w io.Writer, quietOffTerminal bool) *progress {
	p := &progress{w: w, terminal: isTerminal(w), quiet: quietOffTerminal, every: 10 * time.Second}
	if p.terminal {
		p.every = 200 * time.Millisecond
	}
	return p
}

// show writes line unless one was written moments ago; a last line (done)
// is always written.
func (p *progress) show(line string, done bool) {
	if p.quiet && !p.terminal {
		return
	}
	now := time.Now()
	if p.printed && now.Sub(p.last) < p.every && !done {
		return
	}
	p.last, p.printed = now, true
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// end finishes the line rewritten in place: kept (keep) or cleared.
func (p *progress) end(keep bool) {
	if !p.terminal || !p.printed {
		return
	}
	if keep {
		fmt.Fprintln(p.w)
	} else {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// reindexLine is "320/1000 memories, 12.3/s, about 55s left".
func reindexLine(r memory.ReindexProgress) string {
	line := fmt.Sprintf("%d/%d memories", r.Done, r.Total)
	doneNow := r.Done - r.Resumed
	if doneNow <= 0 || r.Elapsed <= 0 {
		return line
	}
	rate := float64(doneNow) / r.Elapsed.Seconds()
	line += fmt.Sprintf(", %.1f/s", rate)
	if left := r.Total - r.Done; left > 0 {
		line += fmt.Sprintf(", about %s left", describe.Age(time.Duration(float64(left)/rate*float64(time.Second))))
	}
	return line
}

// barLine is "[##########          ]  50% 52.4 of 104.9 MB": bytes read of
// those to read.
func barLine(done, total int64) string {
	pct := 100.0
	if total > 0 {
		pct = float64(done) * 100 / float64(total)
	}
	return fmt.Sprintf("[%-20s] %3.0f%% %.1f of %.1f MB", strings.Repeat("#", int(pct/5)), pct, float64(done)/1e6, float64(total)/1e6)
}
