package capture

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// The feed: the journal read a page at a time, newest first, as a person
// browses it (the viewer's Journal page).

// Feed page sizes.
const (
	DefaultFeedLimit = 50
	MaxFeedLimit     = 200
	// maxFeedScan bounds the batches one page of a kind reads.
	maxFeedScan = 20
)

// FeedKinds are the kinds a feed filters by.
var FeedKinds = []Kind{KindPrompt, KindObservation, KindSummary}

// FeedRequest asks for one page of the journal.
type FeedRequest struct {
	Namespace string    // empty: every namespace
	Kind      Kind      // empty: every kind
	Before    time.Time // the entries at or before it; zero: now
	Limit     int       // DefaultFeedLimit when 0; at most MaxFeedLimit
}

// FeedPage is one page, newest first; when HasMore, the next (older) page
// starts at Before.
type FeedPage struct {
	Entries []*Entry
	HasMore bool
	Before  time.Time
}

// Feed reads one page of the journal, newest first, of one namespace or all,
// one kind or all.
func (r *Reader) Feed(ctx context.Context, req FeedRequest) (*FeedPage, error) {
	limit := req.Limit
	switch {
	case limit == 0:
		limit = DefaultFeedLimit
	case limit < 0 || limit > MaxFeedLimit:
		return nil, memory.Invalidf("limit", fmt.Sprint(limit), fmt.Sprintf("a whole number from 1 to %d", MaxFeedLimit))
	}
	if req.Kind != "" && !slices.Contains(FeedKinds, req.Kind) {
		return nil, memory.Invalidf("kind", fmt.Sprintf("%q", req.Kind), "prompt, observation, summary")
	}
	at := req.Before
	if at.IsZero() {
		at = time.Now().UTC()
	}
	// The store reads a namespace's entries in time order; a kind is
	// filtered here, reading on (at most maxFeedScan batches) until the page
	// is full or the journal's start is reached.
	page := &FeedPage{Entries: []*Entry{}}
scan:
	for range maxFeedScan {
		batch, err := r.Store.NamespaceAround(ctx, req.Namespace, at, limit+1, 0)
		if err != nil {
			return nil, err
		}
		slices.Reverse(batch) // newest first
		full := len(batch) > limit
		if full {
			batch = batch[:limit]
		}
		for i, e := range batch {
			at = e.CreatedAt.Add(-time.Nanosecond)
			if req.Kind == "" || e.Kind == req.Kind {
				page.Entries = append(page.Entries, e)
			}
			if len(page.Entries) == limit {
				page.HasMore = full || i < len(batch)-1
				break scan
			}
		}
		if !full {
			page.HasMore = false // the journal's start
			break
		}
		page.HasMore = true // the scan stops here; the next page goes on
	}
	if page.HasMore {
		page.Before = at
	}
	return page, nil
}
