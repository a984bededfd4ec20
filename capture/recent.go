package capture

import (
	"context"
	"fmt"
)

// What the hooks read back from the journal: the project's recent sessions at
// session start, and the entries of past sessions that match a prompt.

// RecentSessions lists the namespace's last sessions, newest first, leaving out
// the session current (the one starting).
func (r *Recorder) RecentSessions(ctx context.Context, namespace, current string, limit int) ([]SessionBrief, error) {
	return r.Store.RecentSessions(ctx, namespace, current, limit)
}

// entryPool is how many keyword hits are judged against the floor for each
// entry asked for.
const entryPool = 4

// PastEntryChecker is a journal store that can tell at little cost whether
// it holds an entry of namespaces (all when empty) written in another session
// than current ("": in any session): when it does not, Matching has nothing
// to search for.
type PastEntryChecker interface {
	HasPastEntries(ctx context.Context, namespaces []string, current string) (bool, error)
}

// Matching returns, best first, at most n entries of past sessions in
// namespaces that contain at least minCoverage of the prompt's content words
// (the floor memories clear on a prompt; a prompt without content words
// matches nothing). Entries of the session current are left out (they are in
// its conversation), and so are summaries whose session memory is listed
// already: skip (nil: none) is asked for those once the journal is searched,
// so that the journal may be searched while the memories are.
func (r *Recorder) Matching(ctx context.Context, prompt string, namespaces []string, current string, n int, minCoverage float64, skip func() map[string]bool) ([]*Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	if c, ok := r.Store.(PastEntryChecker); ok {
		past, err := c.HasPastEntries(ctx, namespaces, current)
		if err != nil {
			return nil, fmt.Errorf("journal search: %w", err)
		}
		if !past {
			return nil, nil // every entry there is is the current session's
		}
	}
	hits, err := r.Store.SearchEntries(ctx, prompt, namespaces, n*entryPool)
	if err != nil {
		return nil, fmt.Errorf("journal search: %w", err)
	}
	var cands []*Entry
	var ids []int64
	for _, h := range hits {
		e := h.Entry
		if current != "" && e.SessionID == current {
			continue
		}
		cands = append(cands, e)
		ids = append(ids, e.ID)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	coverage, err := r.Store.EntryCoverage(ctx, prompt, ids)
	if err != nil {
		return nil, err
	}
	var listed map[string]bool
	if skip != nil {
		listed = skip()
	}
	var out []*Entry
	for _, e := range cands {
		if e.MemoryID != "" && listed[e.MemoryID] {
			continue
		}
		if c := coverage[e.ID]; c > 0 && c >= minCoverage {
			out = append(out, e)
			if len(out) == n {
				break
			}
		}
	}
	return out, nil
}
