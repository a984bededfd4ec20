package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// ChangedSinceQuery reads the memories updated since a time by the
// memories_updated index: the whole table is never scanned.
const ChangedSinceQuery = `SELECT id, created_at, updated_at FROM memories
	WHERE updated_at >= $1 ORDER BY updated_at LIMIT $2`

// ChangedSince lists the memories updated at or after since (at most limit)
// and sums up the memories, edges and journal entries: the counts that tell
// additions and deletions apart.
func (s Statements) ChangedSince(ctx context.Context, since time.Time, limit int) (*memory.Changes, error) {
	c := &memory.Changes{}
	if err := s.SQL.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories),
		(SELECT count(*) FROM edges), (SELECT coalesce(max(id), 0) FROM edges),
		(SELECT count(*) FROM journal), (SELECT coalesce(max(id), 0) FROM journal)`).Scan(&c.Total, &c.Edges[0], &c.Edges[1],
		&c.Journal[0], &c.Journal[1]); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	var err error
	if c.Memories, err = QueryAll(ctx, s.SQL, func(r Row) (memory.MemoryStamp, error) {
		var st memory.MemoryStamp
		err := r.Scan(&st.ID, &st.CreatedAt, &st.UpdatedAt)
		return st, err
	}, ChangedSinceQuery, since, limit); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	return c, nil
}
