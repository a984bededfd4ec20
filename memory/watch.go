package memory

import (
	"context"
	"time"
)

// Watcher tells the viewer what changed in the store, cheaply: Changed says
// whether anything was written since the last call, ChangedSince what. Each
// store watches its own way (SQLite's data_version, PostgreSQL's NOTIFY).
type Watcher interface {
	Changed(ctx context.Context) (bool, error)
	ChangedSince(ctx context.Context, since time.Time, limit int) (*Changes, error)
	Close() error
}

// MemoryStamp is when a memory was created and last changed.
type MemoryStamp struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Changes is what ChangedSince found.
type Changes struct {
	// Memories were updated at or after the time asked, oldest change first.
	Memories []MemoryStamp
	// Total counts all memories: a drop is how deletes show.
	Total int
	// Edges is the edge count and the highest edge id: it differs whenever an
	// edge was added or removed.
	Edges [2]int64
	// Journal is the same for the session journal's entries.
	Journal [2]int64
}
