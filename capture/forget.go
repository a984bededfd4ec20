package capture

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// MemoryDeleter removes the session memories summaries became.
type MemoryDeleter interface {
	DeleteMemory(ctx context.Context, id string, keepGolden bool) error
}

// ForgetResult reports what forgetting captured material removed.
type ForgetResult struct {
	Entries  int      // journal entries (prompts, observations, summaries)
	Memories []string // session memories made from the summaries
	Kept     []string // of those, golden rules kept (promoted by use since)
}

// Forget removes what was captured of a session and/or before a time: journal
// entries, file activity, pending summaries, and the session memories the
// summaries became (golden rules excepted: they were promoted by use).
func Forget(ctx context.Context, store EntryForgetter, mems MemoryDeleter, sessionID string, before time.Time) (*ForgetResult, error) {
	n, memIDs, err := store.ForgetEntries(ctx, sessionID, before)
	if err != nil {
		return nil, err
	}
	res := &ForgetResult{Entries: n}
	for _, id := range memIDs {
		err := mems.DeleteMemory(ctx, id, true)
		switch {
		case err == nil:
			res.Memories = append(res.Memories, id)
		case errors.Is(err, memory.ErrProtected):
			res.Kept = append(res.Kept, id)
		case errors.Is(err, memory.ErrNotFound):
		default:
			return res, fmt.Errorf("forget session memory %s: %w", id, err)
		}
	}
	return res, nil
}
