package main

import (
	"fmt"
	"io"
	"time"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
)

// progressPrinter shows how a reindex goes: on a terminal one line rewritten
// in place a few times a second, elsewhere (a log file, a pipe) a line every
// few seconds.
type progressPrinter struct {
	w        io.Writer
	terminal bool
	last     time.Time
	every    time.Duration
	printed  bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w, terminal: isTerminal(w), every: 10 * time.Second}
	if p.terminal {
		p.every = 200 * time.Millisecond
	}
	return p
}

func (p *progressPrinter) print(r memory.ReindexProgress) {
	now := time.Now()
	if p.printed && now.Sub(p.last) < p.every && r.Done < r.Total {
		return
	}
	p.last, p.printed = now, true
	line := progressLine(r)
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// end finishes the line rewritten in place.
func (p *progressPrinter) end() {
	if p.terminal && p.printed {
		fmt.Fprintln(p.w)
	}
}

// progressLine is "320/1000 memories, 12.3/s, about 55s left".
func progressLine(r memory.ReindexProgress) string {
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
