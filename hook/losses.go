package hook

import (
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/spool"
)

// LossReporter tells what the store could not keep: hook writes lost (kept
// neither in the database nor in the spool) and spooled writes set aside as
// never applicable, since the last session start that told of them.
type LossReporter interface {
	UnreportedLosses() (spool.Losses, error)
	MarkLossesReported(at time.Time)
}

// lossNotice is the session-start context's word on what was lost since the
// last session start, for the model to tell the user; "" when nothing was.
// Once said, it is marked told: the next session starts without it.
func (h *Handler) lossNotice() string {
	if h.Losses == nil {
		return ""
	}
	now := h.now()
	l, err := h.Losses.UnreportedLosses()
	if err != nil {
		h.log().Warn("lost writes not checked", "err", err)
		return ""
	}
	if len(l.Lost) == 0 && l.SetAside == 0 {
		return ""
	}
	var parts []string
	if n := len(l.Lost); n > 0 {
		last := l.Lost[n-1]
		parts = append(parts, fmt.Sprintf("%s could be kept nowhere and are lost (last at %s, %s: %s)",
			describe.Count(n, "hook write", "hook writes"), last.At.Local().Format("2006-01-02 15:04"), last.Kind, last.Cause))
	}
	if l.SetAside > 0 {
		parts = append(parts, describe.Count(l.SetAside, "spooled hook write could", "spooled hook writes could")+" never be applied and were set aside")
	}
	h.Losses.MarkLossesReported(now)
	return "## Recall could not keep everything\n" + strings.Join(parts, "; ") +
		": what they captured is missing from Recall's journal and memories. Tell the user, and that `recall doctor` says what to fix.\n"
}
