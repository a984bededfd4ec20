package storage

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// maxKNN bounds the number of hits one search returns.
const maxKNN = 4096

// SearchVector ranks memories by cosine distance to vec, best first, with
// Hit.Score = 1 - distance. Before any vector is stored it returns no hits; a
// vector of another dimension than the stored ones wraps ErrEmbeddingMismatch.
//
// The exact cosine of every stored vector is too slow at 100k memories (sqlite-vec
// scans 400 MB of floats), so the search runs in two steps: the sign bits of the
// vectors (signIndex) pick the nearest candidates by Hamming distance, many more
// than asked for, and SQLite ranks just those by exact cosine. Namespace, type
// and importance are checked in the first step, so filters never starve the
// result; superseded memories are removed in the second, so the first asks for
// as many more candidates as there are superseded memories.
//
// Below exactScanBelow vectors, and while this process's copy of the signs is
// not loaded yet, the search is sqlite-vec's exact scan (see signCandidates).
func (s *DB) SearchVector(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	if sp.Dimension == 0 {
		return nil, nil
	}
	if err := sp.Fits("query vector", vec); err != nil {
		return nil, err
	}
	if err := memory.CheckVector(vec); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = defaultSearchLimit
	}
	limit = min(limit, maxKNN)
	if len(f.IDs) > 0 || f.Bounds.Set() {
		// The sign index knows namespaces, types and importance only: with
		// confidence or date bounds every memory that passes is ranked exactly.
		return s.exactVectorSearch(ctx, vec, f, limit)
	}

	var superseded int
	if !f.IncludeSuperseded {
		if err := s.db.QueryRowContext(ctx, supersededCountQuery).Scan(&superseded); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
	}
	seqs, ok, err := s.signCandidates(ctx, vec, f, candidateCount(limit, filtered(f))+superseded)
	if err != nil {
		return nil, fmt.Errorf("vector search: read vector signs: %w", err)
	}
	if !ok {
		private, err := hiddenCount(ctx, s.db)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		return s.knnVectorSearch(ctx, vec, f, limit, superseded+private)
	}
	if len(seqs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(seqs)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	// The filter is checked again here: the signs may lag a write committed since.
	where, args := whereFilter(ctx, f)
	query := `SELECT m.id, vec_distance_cosine(v.embedding, ?) AS distance
		FROM memories m JOIN memory_vectors v ON v.rowid = m.seq
		WHERE m.seq IN (SELECT value FROM json_each(?)) AND ` + where + `
		ORDER BY distance, m.seq LIMIT ?`
	return queryHits(ctx, s, query, append(append([]any{encodeVector(vec), string(list)}, args...), limit))
}

// supersededCountQuery counts the superseded memories, by the index of edges
// by relation (every search runs it).
const supersededCountQuery = `SELECT count(DISTINCT target_id) FROM edges WHERE relation = 'supersedes'`

// candidateCount is how many memories are ranked exactly to return limit of them.
// Over the whole store the nearest by cosine are almost always among the
// nearest 10 times as many by sign bits (BenchmarkSignCandidates at 100k topic
// vectors: 100 candidates already find every exact top 10 and 99.3% of the top
// 40); at least 200 are ranked. Each costs about 20 µs at 100k (half the time
// of a hybrid search went to ranking 1000), and the tail of a long list is near
// ties, which more candidates order no better for fusion. Within a namespace or type
// the nearest are farther from the query, where sign bits tell distances apart
// less well (at 100k in one namespace: recall@10 .69 with 100 candidates, .93
// with 800), so a filtered search ranks many more.
//
// Past a point more candidates only cost time (each is a vector read and a
// cosine): a long list (the viewer's page of 50 fuses 200 hits) keeps its
// head as good as a short one's and ranks its tail among fewer.
func candidateCount(limit int, filtered bool) int {
	if filtered {
		return min(max(250*limit, 2500), maxCandidatesFiltered)
	}
	return min(max(10*limit, 200), maxCandidates)
}

// The most candidates one search ranks exactly: about 9 µs each at 100k
// memories of dimension 1024.
const (
	maxCandidates         = 1000
	maxCandidatesFiltered = 5000
)

// filtered tells whether f narrows a vector search by namespace, type or
// importance.
func filtered(f memory.Filter) bool {
	return len(f.Namespaces) > 0 || len(f.Types) > 0 || f.MinImportance > 0
}

// exactVectorSearch scores the few memories named by f.IDs directly.
func (s *DB) exactVectorSearch(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	where, args := whereFilter(ctx, f)
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
