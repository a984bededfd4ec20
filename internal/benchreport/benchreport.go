// Package benchreport reports what the project's benchmarks promise in their
// figures: latency percentiles (a benchmark's ns/op is a mean, which a few slow
// first calls can move) and the process's resident memory.
package benchreport

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Latencies collects the duration of each measured operation.
type Latencies []time.Duration

// Time runs op and records how long it took.
func (l *Latencies) Time(op func()) {
	start := time.Now()
	op()
	*l = append(*l, time.Since(start))
}

// Add records one duration measured by the caller.
func (l *Latencies) Add(d time.Duration) { *l = append(*l, d) }

// Report adds the median as "p50-ms" and each other percentile asked for (90
// gives "p90-ms") to the benchmark's results.
func (l Latencies) Report(b *testing.B, percentiles ...int) {
	b.Helper()
	l.report(b, "p", percentiles)
}

func (l Latencies) report(b *testing.B, prefix string, percentiles []int) {
	if len(l) == 0 {
		return
	}
	sorted := slices.Clone(l)
	slices.Sort(sorted)
	for _, p := range append([]int{50}, percentiles...) {
		d := sorted[min(len(sorted)-1, len(sorted)*p/100)]
		b.ReportMetric(float64(d.Microseconds())/1000, prefix+strconv.Itoa(p)+"-ms")
	}
}

// Timer records each operation's wall time and the CPU time the whole
// process spent meanwhile (user and system, every thread). On a machine
// shared with other work the wall time grows with the load while the CPU time
// stays close to what the operation costs, so the two together tell a slow
// operation from a busy machine.
type Timer struct {
	Wall, CPU Latencies
}

// Time runs op and records its wall and CPU time.
func (t *Timer) Time(op func()) {
	cpu := ProcessCPU()
	start := time.Now()
	op()
	t.Wall.Add(time.Since(start))
	t.CPU.Add(ProcessCPU() - cpu)
}

// Report adds the wall time's percentiles as Latencies.Report does and the
// CPU time's as "cpu-p50-ms" and so on.
func (t Timer) Report(b *testing.B, percentiles ...int) {
	b.Helper()
	t.Wall.report(b, "p", percentiles)
	t.CPU.report(b, "cpu-p", percentiles)
}

// ProcessCPU is the CPU time the process has used so far (0 where
// getrusage is missing).
func ProcessCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// ReportRSS adds the process's resident memory now ("vmrss-MB") and at its peak
// ("vmhwm-MB"), and the resident memory now split into anonymous memory (heap,
// SQLite's page cache: "rssanon-MB") and file pages (the memory-mapped database:
// "rssfile-MB"). It reports nothing where /proc is missing (not Linux).
func ReportRSS(b *testing.B) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		for _, key := range []string{"VmRSS:", "VmHWM:", "RssAnon:", "RssFile:"} {
			if rest, ok := strings.CutPrefix(line, key); ok {
				if kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB")); err == nil {
					b.ReportMetric(float64(kb)/1024, strings.ToLower(strings.TrimSuffix(key, ":"))+"-MB")
				}
			}
		}
	}
}
