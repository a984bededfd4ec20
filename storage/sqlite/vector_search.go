package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// SearchVector ranks memories by cosine distance to vec, best first, with
// Hit.Score = 1 - distance. Before any vector is stored it returns no hits; a
// vector of another dimension than the stored ones wraps ErrEmbeddingMismatch.
//
// The exact cosine of every stored vector is too slow at 100k memories (sqlite-vec
// scans 400 MB of floats), so the search narrows the field in steps, each on
// fewer memories with more of each vector (see searchPlan):
//
//  1. sign bits kept in memory (signIndex): the nearest by Hamming distance,
//     then the best of those by the query's components taken with the stored
//     signs;
//  2. the int8 codes of those candidates, read from vector_codes (one page each);
//  3. the exact cosine of the float vectors of the best few, in SQLite.
//
// Namespace, type and importance are checked in the first step, so filters
// never starve the result; superseded memories are removed in the last, so
// every step keeps as many more candidates as there are superseded memories.
//
// Below exactScanBelow vectors, and while this process's copy of the signs is
// not loaded yet, the search is sqlite-vec's exact scan (see signCandidates).
func (s *DB) SearchVector(ctx context.Context, vec []float32, f memory.Filter, limit int) ([]memory.Hit, error) {
	sp, err := embeddingSpace(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	limit, ok, err := storage.VectorQuery(sp, vec, limit)
	if !ok || err != nil {
		return nil, err
	}
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
	plan := planSearch(limit, filtered(f), superseded)
	seqs, ok, err := s.signCandidates(ctx, vec, f, plan.hamming, plan.projected)
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
	if seqs, err = s.rankByCodes(ctx, vec, seqs, plan.exact); err != nil {
		return nil, fmt.Errorf("vector search: rank by codes: %w", err)
	}
	list, err := json.Marshal(seqs)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	// The filter is checked again here: the signs may lag a write committed since.
	where, args := whereFilter(ctx, f)
	query := `SELECT m.id, vec_distance_cosine(v.embedding, ?) AS distance
		FROM json_each(?) c CROSS JOIN memories m ON m.seq = c.value
		JOIN memory_vectors v ON v.rowid = m.seq
		WHERE ` + where + `
		ORDER BY distance, m.seq LIMIT ?`
	return queryHits(ctx, s, query, append(append([]any{encodeVector(vec), string(list)}, args...), limit))
}

// supersededCountQuery counts the superseded memories, by the index of edges
// by relation (every search runs it).
const supersededCountQuery = `SELECT count(DISTINCT target_id) FROM edges WHERE relation = 'supersedes'`

// searchPlan is how many candidates each step of a vector search keeps (see
// SearchVector): hamming by Hamming distance, projected of those by the
// query's components, exact of those by their codes, to be ranked by the
// float vectors.
type searchPlan struct {
	hamming, projected, exact int
}

// planSearch sizes the steps of a search for limit results, each step with
// room for the superseded memories the last step removes.
//
// Over the whole store the nearest by cosine are almost always among the
// nearest 10 times as many by sign bits (BenchmarkSignCandidates at 100k topic
// vectors: 100 candidates already find every exact top 10). Within a
// namespace or type the nearest are farther from the query, where sign bits
// tell distances apart less well (at 100k in a namespace of 10k: recall@10
// .69 with 100 candidates by Hamming distance, .94 with 800), so a filtered
// search keeps many more in its first two steps (with 2500 by Hamming
// distance a search for 10 found .9875 of the exact ten, with 5000 .995); the
// codes order those nearly as the floats do, so the last step ranks few
// either way.
func planSearch(limit int, filtered bool, superseded int) searchPlan {
	var p searchPlan
	if filtered {
		p = searchPlan{hamming: 5000, projected: min(max(40*limit, 1600), 3000)}
	} else {
		p = searchPlan{hamming: min(max(10*limit, 200), 1000), projected: min(max(4*limit, 100), 500)}
	}
	p.exact = limit + max(limit, 20)
	p.hamming += superseded
	p.projected += superseded
	p.exact += superseded
	return p
}

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
	return queryAll(ctx, s, "vector search", query, args, func(r storage.Row) (memory.Hit, error) {
		var id string
		var distance float64
		err := r.Scan(&id, &distance)
		return memory.Hit{ID: id, Score: 1 - distance}, err
	})
}
