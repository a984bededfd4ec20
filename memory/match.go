package memory

import (
	"context"
	"fmt"
)

// Default relevance floors (RECALL_MATCH_MIN_SIMILARITY, RECALL_PROMPT_MIN_COVERAGE).
const (
	// DefaultMatchMinSimilarity is the least cosine similarity of query and memory
	// vectors for a match. mxbai-embed-large puts a query and a passage on its
	// topic well above it and most unrelated pairs near or below it; it is a
	// second gate behind the keywords, so it errs on the low side.
	DefaultMatchMinSimilarity = 0.3
	// DefaultPromptMinCoverage is the least share of a prompt's content words a
	// memory must contain to be injected by the prompt hook.
	DefaultPromptMinCoverage = 0.6
)

// Floor is what a memory must clear to match a query. It is the one notion of
// "match" behind forget by query and the prompt hook's injection.
type Floor struct {
	// MinCoverage is the least fraction of the query's content words (keywords.Terms:
	// stop words left out, stemmed, any spelling of a code word) that the memory
	// contains; 1 means every one. A query without content words matches nothing.
	MinCoverage float64
	// MinSimilarity is the least cosine similarity between the query's vector and
	// the memory's. It applies when both exist; with Ollama down, or for a memory
	// still waiting for its vector, the keywords decide alone.
	MinSimilarity float64
}

// Match is a memory that cleared a floor, with the measures that cleared it.
type Match struct {
	ScoredMemory
	Coverage   float64  `json:"keyword_coverage"`
	Similarity *float64 `json:"similarity,omitempty"`
}

// MatchResult is what Matching found and how it searched.
type MatchResult struct {
	Matches    []Match
	SearchMode string // SearchHybrid or SearchKeyword
	Reason     string // why vectors were not used; empty in hybrid mode
}

// matchPool is how many candidates are judged against the floor for each
// match asked for.
const matchPool = 4

// Matching returns, best first, at most n memories of f that clear floor for
// query. A match needs keyword coverage, so the candidates are keyword hits:
// with MinCoverage 1 every memory containing all the query's content words;
// else, from a store that can find them (CoveringSearcher), the memories
// holding MinCoverage of them; else the best of a keyword search. Vectors only judge them (MinSimilarity),
// so no nearest-neighbour search runs: the prompt hook, a fresh process per
// prompt, never pays for a cold vector scan. It does not touch access counts:
// the caller knows which matches it hands out.
func (s *Service) Matching(ctx context.Context, query string, f Filter, n int, floor Floor) (*MatchResult, error) {
	pool := max(n*matchPool, minCandidates)
	res := &MatchResult{Matches: []Match{}, SearchMode: SearchHybrid}
	search := s.store.SearchKeyword
	if c, ok := s.store.(CoveringSearcher); ok && floor.MinCoverage > 0 && floor.MinCoverage < 1 {
		// Only the memories that can clear the floor: at 100k memories the
		// words of a prompt are in thousands of them, and ranking those
		// was most of the prompt hook's time.
		search = func(ctx context.Context, text string, f Filter, limit int) ([]Hit, error) {
			return c.SearchCovering(ctx, text, floor.MinCoverage, f, limit)
		}
	}
	if floor.MinCoverage >= 1 {
		search = s.store.MatchAllKeywords
	}
	// The query's vector is asked for beside the keyword search, not after
	// it: the embedder's own deadline (the prompt hook's vector budget) then
	// runs while the keywords are searched, and a late vector costs nothing
	// beyond it.
	embedCtx, stopEmbedding := context.WithCancel(ctx)
	defer stopEmbedding()
	embedded := make(chan queryVector, 1)
	go func() {
		vec, err := s.embedQueryVector(embedCtx, query)
		embedded <- queryVector{vec, err}
	}()
	hits, err := search(ctx, query, f, pool)
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	if len(hits) == 0 {
		return res, nil
	}
	qv := <-embedded
	vec, searchable, err := s.checkQueryVector(ctx, qv.vec, qv.err)
	switch {
	case err != nil:
		res.SearchMode, res.Reason = SearchKeyword, err.Error()+": keywords only"
		vec = nil
	case !searchable:
		vec = nil
	}
	judged, err := s.judge(ctx, query, hits, vec)
	if err != nil {
		return nil, err
	}
	for _, m := range judged {
		if len(res.Matches) == n {
			break
		}
		if m.Coverage >= floor.MinCoverage && m.Coverage > 0 &&
			(m.Similarity == nil || *m.Similarity >= floor.MinSimilarity) {
			res.Matches = append(res.Matches, m)
		}
	}
	return res, nil
}

// judge loads the memories of hits, in order, with their keyword coverage and,
// when vec is given, their similarity to it.
func (s *Service) judge(ctx context.Context, query string, hits []Hit, vec []float32) ([]Match, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	coverage, err := s.store.KeywordCoverage(ctx, query, ids)
	if err != nil {
		return nil, err
	}
	similarity := map[string]float64{}
	if vec != nil {
		scored, err := s.store.SearchVector(ctx, vec, Filter{IDs: ids, IncludeSuperseded: true}, len(ids))
		if err != nil {
			s.log().Warn("similarity of matches failed; keywords decide alone", "err", err)
		}
		for _, h := range scored {
			similarity[h.ID] = h.Score
		}
	}
	loaded, err := s.store.GetMemories(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("loading memories: %w", err)
	}
	out := make([]Match, 0, len(hits))
	for _, h := range hits {
		m, ok := loaded[h.ID]
		if !ok {
			continue // deleted since the search
		}
		match := Match{ScoredMemory: ScoredMemory{Memory: m, Score: h.Score}, Coverage: coverage[h.ID]}
		if sim, ok := similarity[h.ID]; ok {
			match.Similarity = &sim
		}
		out = append(out, match)
	}
	return out, nil
}

// queryVector is the outcome of embedding a query.
type queryVector struct {
	vec []float32
	err error
}
