package storage

import "github.com/recall-mcp/recall/memory"

// MaxKNN bounds the number of hits one vector search returns.
const MaxKNN = 4096

// VectorQuery checks the query vector of a search against the stored space
// sp and bounds the search's limit. ok is false before any vector is stored:
// the search has no hits. A vector of another dimension wraps
// ErrEmbeddingMismatch.
func VectorQuery(sp memory.EmbeddingSpace, vec []float32, limit int) (bounded int, ok bool, err error) {
	if sp.Dimension == 0 {
		return 0, false, nil
	}
	if err := sp.Takes("query vector", vec); err != nil {
		return 0, false, err
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	return min(limit, MaxKNN), true, nil
}
