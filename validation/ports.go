package validation

import (
	"context"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Store is what validation needs of a store: it reads memories and their
// records, searches for a memory's neighbours, walks and writes the graph, and
// moves confidence through UpdateMemoryWithEvent. It never inserts, edits or
// deletes a memory otherwise.
//
// It has more than ten methods because the curation does four jobs; each is
// one of the domain's small ports, named below, and a store that implements
// memory.Store implements this.
type Store interface {
	memory.MemoryReader // the memories curated, listed for health and staleness
	memory.Searcher     // a stored memory's neighbours, by vector and by words
	memory.Graph        // relationships, contradictions, supersedes
	memory.EventLog     // the validation loop's events; the not-a-contradiction verdicts

	// UpdateMemoryWithEvent moves a memory's confidence (and type, when it is
	// promoted) with the event that records it, in one transaction.
	UpdateMemoryWithEvent(ctx context.Context, id string, fn func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error)) (*memory.Memory, int64, error)
	// Embedding returns the stored vector of a memory, or nil when it has none.
	Embedding(ctx context.Context, id string) ([]float32, error)
	// RecordModelHealth records how a call to the chat model went.
	RecordModelHealth(ctx context.Context, role, errMsg string, at time.Time) error
}
