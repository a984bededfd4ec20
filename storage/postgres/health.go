package postgres

import (
	"context"
	"fmt"
	"strconv"
)

// Health is what doctor reports of the server: its version, pgvector's, and
// the indexes Recall's queries need that are missing or broken, each with
// the statement that repairs it.
type Health struct {
	ServerVersion string
	VectorVersion string
	SchemaVersion int
	Problems      []IndexProblem
}

// IndexProblem is an index that is missing or invalid (a CREATE INDEX
// CONCURRENTLY that failed leaves one), and what to run.
type IndexProblem struct {
	Index, Problem, Fix string
}

// indexes are the indexes the hot queries use, with the statement that
// makes each (memories_embedding only once the vector dimension is known).
var indexes = map[string]string{
	"memories_search_words":   `CREATE INDEX CONCURRENTLY memories_search_words ON memories USING gin (search_words)`,
	"journal_search_words":    `CREATE INDEX CONCURRENTLY journal_search_words ON journal USING gin (search_words)`,
	"memories_namespace_hash": `ALTER TABLE memories ADD CONSTRAINT memories_namespace_hash UNIQUE (namespace, content_hash)`,
	"jobs_pending":            `CREATE UNIQUE INDEX CONCURRENTLY jobs_pending ON jobs (kind, subject) WHERE failed_at IS NULL`,
	"edges_relation_target":   `CREATE INDEX CONCURRENTLY edges_relation_target ON edges (relation, target_id)`,
	"memories_embedding":      `CREATE INDEX CONCURRENTLY memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)`,
	"memories_staged":         `CREATE INDEX CONCURRENTLY memories_staged ON memories (seq) WHERE embedding_staged IS NOT NULL`,
}

// Health checks the server and the indexes.
func (s *DB) Health(ctx context.Context) (Health, error) {
	var h Health
	var schema string
	err := s.pool.QueryRow(ctx, `SELECT current_setting('server_version'),
		coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
		coalesce((SELECT value FROM meta WHERE key = 'schema_version'), '0')`).Scan(&h.ServerVersion, &h.VectorVersion, &schema)
	if err != nil {
		return h, fmt.Errorf("read server versions: %w", err)
	}
	h.SchemaVersion, _ = strconv.Atoi(schema)
	sp, err := embeddingSpace(ctx, s.pool)
	if err != nil {
		return h, err
	}
	rows, err := s.pool.Query(ctx, `SELECT c.relname, i.indisvalid FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`)
	if err != nil {
		return h, fmt.Errorf("read indexes: %w", err)
	}
	valid := map[string]bool{}
	for rows.Next() {
		var name string
		var ok bool
		if err := rows.Scan(&name, &ok); err != nil {
			rows.Close()
			return h, err
		}
		valid[name] = ok
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return h, err
	}
	for _, name := range []string{"memories_search_words", "journal_search_words", "memories_namespace_hash", "jobs_pending", "edges_relation_target", "memories_staged", "memories_embedding"} {
		if name == "memories_embedding" && (sp.Dimension == 0 || sp.Dimension > maxIndexedDimension) {
			continue // no vectors yet, or too long for HNSW: searched exactly
		}
		ok, there := valid[name]
		switch {
		case !there:
			h.Problems = append(h.Problems, IndexProblem{name, "missing", indexes[name]})
		case !ok:
			h.Problems = append(h.Problems, IndexProblem{name, "invalid (an interrupted build)", "REINDEX INDEX CONCURRENTLY " + name})
		}
	}
	return h, nil
}
