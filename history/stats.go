package history

import (
	"context"
	"os"
	"strconv"
)

// Stats describe the index.
type Stats struct {
	Path             string `json:"path"`
	Bytes            int64  `json:"bytes"`
	Transcripts      int    `json:"transcripts"`
	Sessions         int    `json:"sessions"`
	Projects         int    `json:"projects"`
	Messages         int    `json:"messages"`
	Embedded         int    `json:"embedded"`
	Malformed        int    `json:"malformed_lines"`
	ExcludedSessions int    `json:"excluded_sessions"`
	UpdatedAt        string `json:"updated_at"`
	EmbedModel       string `json:"embed_model,omitempty"`
}

// Stats counts what the index holds.
func (ix *Index) Stats(ctx context.Context) (*Stats, error) {
	s := &Stats{Path: ix.path}
	if info, err := os.Stat(ix.path); err == nil {
		s.Bytes = info.Size()
	}
	err := ix.db.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT session_id), count(DISTINCT project_dir),
		coalesce(sum(messages), 0), coalesce(sum(malformed), 0) FROM files`).
		Scan(&s.Transcripts, &s.Sessions, &s.Projects, &s.Messages, &s.Malformed)
	if err != nil {
		return nil, err
	}
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE embedded = 1`).Scan(&s.Embedded); err != nil {
		return nil, err
	}
	excluded, err := ix.meta(ctx, "excluded_sessions")
	if err != nil {
		return nil, err
	}
	s.ExcludedSessions, _ = strconv.Atoi(excluded)
	if s.UpdatedAt, err = ix.meta(ctx, "updated_at"); err != nil {
		return nil, err
	}
	s.EmbedModel, err = ix.meta(ctx, "embed_model")
	return s, err
}
