package storage

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// maxKNN is sqlite-vec's largest k.
const maxKNN = 4096

// SearchVector ranks memories by cosine distance to vec, best first, with
// Hit.Score = 1 - distance. Before any vector is stored it returns no hits; a
// vector of another dimension than the stored ones wraps ErrEmbeddingMismatch.
//
// Filters never starve the result: namespace, type and importance are vec0
// metadata columns, so the KNN scan itself skips rows that fail them. Superseded
// memories are the only rows removed after the scan, so the scan asks for limit
// plus the number of superseded memories. A filter on ids computes the exact
// distance of just those memories.
func (s *DB) SearchVector(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	if sp.Dimension == 0 {
		return nil, nil
	}
	if len(vec) != sp.Dimension {
		return nil, fmt.Errorf("query vector of dimension %d, the database holds %q vectors of dimension %d: %w",
			len(vec), sp.Model, sp.Dimension, memory.ErrEmbeddingMismatch)
	}
	if err := checkVector(vec); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxKNN)
	if len(f.IDs) > 0 {
		return s.exactVectorSearch(ctx, vec, f, limit)
	}

	k := limit
	if !f.IncludeSuperseded {
		var superseded int
		if err := s.db.QueryRowContext(ctx, `SELECT count(DISTINCT target_id) FROM edges
			WHERE relation = 'supersedes'`).Scan(&superseded); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		k = min(limit+superseded, maxKNN)
	}

	var conds []string
	args := []any{encodeVector(vec), k}
	if len(f.Namespaces) > 0 {
		conds = append(conds, "namespace IN ("+placeholders(len(f.Namespaces))+")")
		args = append(args, anySlice(f.Namespaces)...)
	}
	if len(f.Types) > 0 {
		conds = append(conds, "memory_type IN ("+placeholders(len(f.Types))+")")
		for _, t := range f.Types {
			args = append(args, string(t))
		}
	}
	if f.MinImportance > 0 {
		conds = append(conds, "importance >= ?")
		args = append(args, f.MinImportance)
	}
	knnWhere := "embedding MATCH ? AND k = ?"
	for _, c := range conds {
		knnWhere += " AND " + c
	}
	post := "1"
	if !f.IncludeSuperseded {
		post = notSuperseded
	}
	args = append(args, limit)
	query := `WITH knn AS MATERIALIZED (
			SELECT rowid, distance FROM memory_vectors WHERE ` + knnWhere + `
		)
		SELECT m.id, knn.distance FROM knn JOIN memories m ON m.seq = knn.rowid
		WHERE ` + post + ` ORDER BY knn.distance, m.seq LIMIT ?`
	return queryHits(ctx, s, query, args)
}

// exactVectorSearch scores the few memories named by f.IDs directly.
func (s *DB) exactVectorSearch(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	where, args := whereFilter(f)
	query := `SELECT m.id, vec_distance_cosine(v.embedding, ?) AS distance
		FROM memories m JOIN memory_vectors v ON v.rowid = m.seq
		WHERE ` + where + ` ORDER BY distance, m.seq LIMIT ?`
	return queryHits(ctx, s, query, append(append([]any{encodeVector(vec)}, args...), limit))
}

func queryHits(ctx context.Context, s *DB, query string, args []any) ([]memory.Hit, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer rows.Close()
	var hits []memory.Hit
	for rows.Next() {
		var id string
		var distance float64
		if err := rows.Scan(&id, &distance); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		hits = append(hits, memory.Hit{ID: id, Score: 1 - distance})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	return hits, nil
}
