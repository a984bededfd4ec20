package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Recall defaults and limits (the tool's defaults).
const (
	DefaultNResults    = 5
	MaxNResults        = 100
	DefaultRecallDepth = 1
	MaxGraphDepth      = 5
	DefaultMaxExpanded = 20
	MaxExpandedLimit   = 100
	DefaultDecayFactor = 0.7
	// minCandidates is the least number of candidates fetched from each search
	// before fusion, so a memory ranked low by one search can still win.
	minCandidates = 20
)

// Search modes reported in RecallResult.SearchMode.
const (
	SearchHybrid  = "hybrid"
	SearchKeyword = "keyword"
)

// Recall finds the memories that best match a query: FTS5 keywords and vector
// neighbours fused by reciprocal rank, filtered, and, with IncludeRelated,
// expanded along edges. Without usable vectors it answers from keywords alone
// and says so (Degraded, Reason). Returned memories get their access time and
// count updated.
//
// Expansion follows edges both ways from the direct hits, breadth first, up to
// MaxDepth hops and MaxExpanded memories; a memory reached at hop h scores
// parent score x DecayFactor x edge weight, so h hops from a hit it holds
// hit score x DecayFactor^h x the product of the weights. Expanded memories keep
// the namespace filter and leave out superseded memories (unless asked), but not
// the type and importance filters: a related memory is wanted whatever its kind.
func (s *Service) Recall(ctx context.Context, req RecallRequest) (*RecallResult, error) {
	q, err := parseRecall(ctx, req)
	if err != nil {
		return nil, err
	}
	found, err := s.search(ctx, q.query, q.filter, q.n)
	if err != nil {
		return nil, err
	}
	res := &RecallResult{
		Memories:          found.memories,
		SearchMode:        found.mode,
		Degraded:          found.reason != "",
		Reason:            found.reason,
		VectorWeight:      found.vectorWeight,
		PendingEmbeddings: found.pending,
	}
	if req.IncludeRelated {
		if res.Expanded, err = s.expand(ctx, found.memories, q); err != nil {
			return nil, err
		}
	}
	res.Total = len(res.Memories) + len(res.Expanded)
	if !req.SkipAccessUpdate {
		s.touch(ctx, res.Memories, res.Expanded)
	}
	return res, nil
}

// recallQuery is a validated recall request with its defaults applied.
type recallQuery struct {
	query       string
	n           int
	filter      Filter
	expandNS    Filter // filter for expanded memories: namespace and superseded only
	depth       int
	maxExpanded int
	decay       float64
	include     []Relation
	exclude     map[Relation]bool
}

func parseRecall(ctx context.Context, req RecallRequest) (recallQuery, error) {
	var q recallQuery
	var err error
	if q.query, err = checkText("query", req.Query, MaxQueryBytes); err != nil {
		return q, err
	}
	if q.n, err = nResults(req.NResults); err != nil {
		return q, err
	}
	if q.filter.Namespaces, err = optionalNamespace(ctx, req.Namespace); err != nil {
		return q, err
	}
	if q.filter.Types, err = optionalType(req.Type); err != nil {
		return q, err
	}
	if err = checkUnit("min_importance", req.MinImportance); err != nil {
		return q, err
	}
	q.filter.MinImportance = req.MinImportance
	q.filter.IncludeSuperseded = req.IncludeSuperseded
	q.filter.Bounds = req.Bounds
	q.expandNS = Filter{Namespaces: q.filter.Namespaces, IncludeSuperseded: req.IncludeSuperseded}

	if q.depth, err = intInRange("max_depth", req.MaxDepth, DefaultRecallDepth, 1, MaxGraphDepth); err != nil {
		return q, err
	}
	if q.maxExpanded, err = intInRange("max_expanded", req.MaxExpanded, DefaultMaxExpanded, 1, MaxExpandedLimit); err != nil {
		return q, err
	}
	if q.decay, err = checkDecay(req.DecayFactor, DefaultDecayFactor); err != nil {
		return q, err
	}
	if q.include, err = parseRelations("include_edge_types", req.IncludeEdgeTypes); err != nil {
		return q, err
	}
	excl, err := parseRelations("exclude_edge_types", req.ExcludeEdgeTypes)
	if err != nil {
		return q, err
	}
	q.exclude = make(map[Relation]bool, len(excl))
	for _, r := range excl {
		q.exclude[r] = true
	}
	return q, nil
}

func nResults(n int) (int, error) {
	return intInRange("n_results", n, DefaultNResults, 1, MaxNResults)
}

// searchResult is the outcome of one hybrid (or degraded) search.
type searchResult struct {
	memories     []ScoredMemory
	mode         string
	reason       string  // why vectors were not used; empty in hybrid mode
	vectorWeight float64 // share of the vector ranking in the fusion
	pending      int     // memories still waiting for a vector
}

// search runs the keyword and vector searches, fuses them and loads the best n
// memories. It never fails because of the embedder: it degrades to keywords.
// The mode it reports is what contributed: hybrid only when the vector search
// found something to rank.
//
// The two searches run at once: the vector side (asking the embedder for
// the query's vector, then the nearest neighbours) takes as long as the
// keyword search or longer, and neither needs the other's answer before the
// fusion.
func (s *Service) search(ctx context.Context, query string, f Filter, n int) (searchResult, error) {
	res := searchResult{mode: SearchKeyword, memories: []ScoredMemory{}}
	candidates := max(n*4, minCandidates)
	type vectorSide struct {
		hits   []Hit
		reason string
	}
	vectorCtx, stopVector := context.WithCancel(ctx)
	sides := make(chan vectorSide, 1)
	go func() {
		hits, reason := s.vectorCandidates(vectorCtx, query, f, candidates)
		sides <- vectorSide{hits, reason}
	}()
	keywordCtx := ctx
	if s.embedder != nil {
		keywordCtx = WithVectorBeside(ctx)
	}
	keyword, err := s.store.SearchKeyword(keywordCtx, query, f, candidates)
	if err != nil {
		stopVector()
		<-sides
		return res, fmt.Errorf("keyword search: %w", err)
	}
	side := <-sides
	stopVector()
	vector, reason := side.hits, side.reason
	vectorFirst := false
	if len(vector) > 0 {
		res.mode = SearchHybrid
		res.vectorWeight, vectorFirst = s.vectorShare(ctx, keyword, vector)
	}
	if res.pending, err = s.store.CountPendingEmbeddings(ctx); err != nil {
		s.log().Warn("counting pending embeddings failed", "err", err)
	}
	if reason == "" && len(vector) == 0 {
		reason = "no memory has a vector yet"
		if res.pending > 0 {
			reason = fmt.Sprintf("no memory searched has a vector yet (%d wait for one)", res.pending)
		}
	}
	if res.mode == SearchKeyword {
		res.reason = reason + ": keyword search only"
	}
	fused := fuseWeighted(keyword, vector, res.vectorWeight, vectorFirst)
	res.memories, err = s.loadRanked(ctx, fused, n)
	return res, err
}

// besideVectorKey marks the context of a keyword search that runs beside
// the vector search (KeywordBesideVector).
type besideVectorKey struct{}

// WithVectorBeside marks ctx as that of a keyword search that runs beside
// the vector search.
func WithVectorBeside(ctx context.Context) context.Context {
	return context.WithValue(ctx, besideVectorKey{}, true)
}

// KeywordBesideVector tells a store's SearchKeyword that the vector search
// runs at the same time: a store that could spread the keyword search over
// more connections of its server leaves the server's other cores to it.
func KeywordBesideVector(ctx context.Context) bool {
	beside, _ := ctx.Value(besideVectorKey{}).(bool)
	return beside
}

// vectorCandidates runs the vector search and returns its hits, or says why
// it could not.
func (s *Service) vectorCandidates(ctx context.Context, query string, f Filter, limit int) ([]Hit, string) {
	vec, searchable, err := s.embedQuery(ctx, query)
	switch {
	case err != nil:
		return nil, err.Error()
	case !searchable:
		return nil, ""
	}
	hits, err := s.store.SearchVector(ctx, vec, f, limit)
	if err != nil {
		s.log().Warn("vector search failed", "err", err)
		return nil, "vector search failed (" + err.Error() + ")"
	}
	parts, err := s.store.SearchChunks(ctx, vec, f, limit)
	if err != nil {
		s.log().Warn("searching the parts of long memories failed", "err", err)
	}
	return withBestParts(hits, parts), ""
}

// loadRanked loads the memories of the best n hits, skipping any deleted since
// the search.
func (s *Service) loadRanked(ctx context.Context, hits []Hit, n int) ([]ScoredMemory, error) {
	out := make([]ScoredMemory, 0, min(n, len(hits)))
	for len(hits) > 0 && len(out) < n {
		chunk := hits[:min(n-len(out), len(hits))]
		hits = hits[len(chunk):]
		got, err := LoadHits(ctx, s.store, chunk)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// LoadHits loads the memories of a search's hits, in the hits' order and
// with their scores; a memory deleted since the search is left out.
func LoadHits(ctx context.Context, store interface {
	GetMemories(ctx context.Context, ids []string) (map[string]*Memory, error)
}, hits []Hit) ([]ScoredMemory, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	got, err := store.GetMemories(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("loading memories: %w", err)
	}
	out := make([]ScoredMemory, 0, len(hits))
	for _, h := range hits {
		if m, ok := got[h.ID]; ok {
			out = append(out, ScoredMemory{Memory: m, Score: h.Score})
		}
	}
	return out, nil
}

// expand walks edges from the direct hits breadth first (see Recall).
func (s *Service) expand(ctx context.Context, direct []ScoredMemory, q recallQuery) ([]ScoredMemory, error) {
	out := []ScoredMemory{}
	seen := make(map[string]bool, len(direct))
	frontier := make(map[string]float64, len(direct))
	for _, d := range direct {
		seen[d.ID] = true
		frontier[d.ID] = d.Score
	}
	for hop := 1; hop <= q.depth && len(frontier) > 0 && len(out) < q.maxExpanded; hop++ {
		edges, err := s.store.Edges(ctx, EdgeQuery{MemoryIDs: slices.Sorted(maps.Keys(frontier)), Direction: DirectionBoth, Relations: q.include})
		if err != nil {
			return nil, fmt.Errorf("expanding along edges: %w", err)
		}
		reached := map[string]ScoredMemory{}
		for _, e := range edges {
			if q.exclude[e.Relation] {
				continue
			}
			for _, end := range [][2]string{{e.SourceID, e.TargetID}, {e.TargetID, e.SourceID}} {
				from, to := end[0], end[1]
				parent, ok := frontier[from]
				if !ok || seen[to] {
					continue
				}
				score := parent * q.decay * e.Weight
				if cur, ok := reached[to]; !ok || score > cur.Score {
					reached[to] = ScoredMemory{Score: score, Hop: hop, ViaEdge: e.Relation, ViaID: from, Expansion: true}
				}
			}
		}
		if len(reached) == 0 {
			break
		}
		f := q.expandNS
		f.IDs = slices.Sorted(maps.Keys(reached))
		allowed, err := s.store.ListMemories(ctx, ListQuery{Filter: f, OrderBy: OrderCreatedAt, Limit: len(f.IDs)})
		if err != nil {
			return nil, fmt.Errorf("loading related memories: %w", err)
		}
		next := make([]ScoredMemory, 0, len(allowed))
		for _, m := range allowed {
			r := reached[m.ID]
			r.Memory = m
			next = append(next, r)
		}
		slices.SortFunc(next, func(a, b ScoredMemory) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
		})
		frontier = map[string]float64{}
		for _, r := range next {
			if len(out) >= q.maxExpanded {
				break
			}
			seen[r.ID] = true
			frontier[r.ID] = r.Score
			out = append(out, r)
		}
	}
	return out, nil
}

// touch records that memories were returned, in the results too. A failure is
// logged, not returned: the search itself succeeded.
func (s *Service) touch(ctx context.Context, lists ...[]ScoredMemory) {
	now := s.now()
	var ids []string
	for _, list := range lists {
		for _, m := range list {
			ids = append(ids, m.ID)
			m.AccessedAt = now
			m.AccessCount++
		}
	}
	s.markAccessed(ctx, ids, now)
}

// MarkAccessed records that the memories ids were handed to a caller: their
// access time becomes now and their access count grows by one. It is best
// effort (see Store.TouchMemories): a failure, such as another process holding
// the write lock, is logged and never delays or fails the read.
func (s *Service) MarkAccessed(ctx context.Context, ids []string) {
	s.markAccessed(ctx, ids, s.now())
}

func (s *Service) markAccessed(ctx context.Context, ids []string, now time.Time) {
	if len(ids) == 0 {
		return
	}
	if err := s.store.TouchMemories(ctx, ids, now); err != nil {
		s.log().Warn("access counts not updated", "memories", len(ids), "err", err)
	}
}
