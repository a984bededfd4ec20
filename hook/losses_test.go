package hook

import (
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/spool"
)

type fakeLosses struct {
	l        spool.Losses
	reported time.Time
}

func (f *fakeLosses) UnreportedLosses() (spool.Losses, error) {
	var out spool.Losses
	for _, w := range f.l.Lost {
		if w.At.After(f.reported) {
			out.Lost = append(out.Lost, w)
		}
	}
	if f.reported.IsZero() {
		out.SetAside = f.l.SetAside
	}
	return out, nil
}

func (f *fakeLosses) MarkLossesReported(at time.Time) { f.reported = at }

// Session start tells what was lost since the last one, once.
func TestSessionStartTellsOfLostWritesOnce(t *testing.T) {
	at := time.Now().Add(-time.Hour)
	f := &fakeLosses{l: spool.Losses{Lost: []spool.Lost{{At: at, Kind: "tool_call", Cause: "the disk is full"}}, SetAside: 2}}
	h := &Handler{Losses: f}
	got := h.lossNotice()
	for _, want := range []string{"## Recall could not keep everything", "1 hook write could be kept nowhere", "tool_call: the disk is full",
		"2 spooled hook writes could never be applied", "recall doctor"} {
		if !strings.Contains(got, want) {
			t.Errorf("notice lacks %q:\n%s", want, got)
		}
	}
	if again := h.lossNotice(); again != "" {
		t.Errorf("told twice:\n%s", again)
	}
	if (&Handler{}).lossNotice() != "" {
		t.Error("a handler without a loss reporter told something")
	}
}
