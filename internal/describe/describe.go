// Package describe words the figures people read in `recall stats`, `recall
// doctor` and progress lines: sizes, ages, the curation backlog and failing
// models, so every place says them the same way.
package describe

import (
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Bytes prints a size in bytes, KiB or MiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Age prints a duration to the second, or to the minute past an hour.
func Age(d time.Duration) string {
	if d >= time.Hour {
		return d.Round(time.Minute).String()
	}
	return max(d, 0).Round(time.Second).String()
}

// JobBacklog describes the job queue (curation, summaries): how many jobs, how many wait for a
// retry, and the age of the oldest.
func JobBacklog(st *memory.Stats, now time.Time) string {
	if st.PendingJobs == 0 {
		return "none pending"
	}
	out := fmt.Sprintf("%d pending", st.PendingJobs)
	if st.RetryingJobs > 0 {
		out += fmt.Sprintf(" (%d waiting to retry)", st.RetryingJobs)
	}
	return out + ", oldest queued " + Age(now.Sub(st.OldestJobAt)) + " ago"
}

// ModelFailing says how long a model role has been failing, and why.
func ModelFailing(h memory.ModelHealth, now time.Time) string {
	return fmt.Sprintf("failing, %d calls in a row for %s: %s", h.Failures, Age(now.Sub(h.FailingSince)), h.LastError)
}

// Count writes a count with the right form of its noun: "1 memory",
// "2 memories", "0 memories".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
