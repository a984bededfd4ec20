package memory

import (
	"cmp"
	"math"
	"slices"
)

// How much the vector side of a hybrid search counts. A weak embedder (the
// lab's random weights, or a model that knows nothing of the domain) gives
// every memory almost the same similarity to every query; fused at full weight,
// its arbitrary order pushes exact keyword hits out of the top results. So the
// vector list is weighed by how far its best scores stand out from the rest of
// its candidates: a model that tells memories apart gets full weight, one whose
// best match looks like any other gets almost none.
const (
	// standoutNone and standoutFull bound the standout (see vectorStandout)
	// between which the weight grows from minVectorWeight to 1. The best of
	// pure noise stands out about 1 (see TestVectorWeightFollowsHowFarTheBestStandOut).
	standoutNone = 3.0
	standoutFull = 5.0
	// minVectorWeight keeps the vector order among memories that keywords do
	// not find at all, below the keyword hits.
	minVectorWeight = 0
	// minStandoutCandidates is the least list that can show a standout; a
	// shorter one counts in full (nothing to compare with).
	minStandoutCandidates = 8
)

// vectorWeight is the share of the vector ranking in fusion, from
// minVectorWeight to 1, by vectorStandout of its hits (best first).
func vectorWeight(hits []Hit) float64 {
	if len(hits) < minStandoutCandidates {
		return 1
	}
	z := vectorStandout(hits)
	t := (z - standoutNone) / (standoutFull - standoutNone)
	return minVectorWeight + (1-minVectorWeight)*math.Max(0, math.Min(1, t))
}

// vectorStandout measures how far the best score stands above the rest: the
// drop from the best to the score at a quarter of the list, over the drop from
// there to the last. A nearest-neighbour list of noise falls off evenly (the
// extremes of a bell curve: about 1); a model that found what it was asked for
// puts the few relevant memories far above a flat rest. Scale-free, so it
// reads a model whose similarities all lie in 0.94-0.96 the same way as one
// spread over 0-1.
func vectorStandout(hits []Hit) float64 {
	quarter := hits[(len(hits)-1)/4].Score
	head := hits[0].Score - quarter
	tail := quarter - hits[len(hits)-1].Score
	if tail <= 0 {
		if head > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return head / tail
}

// fuseWeighted merges a keyword and a vector ranking by reciprocal rank fusion:
// a memory ranked r in a list scores 1/(RRFK+r) from it, the vector list's
// share multiplied by vectorWeight. Best first; ties keep the order in which
// memories were first seen (keywords before vectors).
func fuseWeighted(keyword, vector []Hit, vectorShare float64) []Hit {
	score := map[string]float64{}
	var order []string
	add := func(list []Hit, weight float64) {
		for i, h := range list {
			if _, ok := score[h.ID]; !ok {
				order = append(order, h.ID)
			}
			score[h.ID] += weight / float64(RRFK+i+1)
		}
	}
	add(keyword, 1)
	add(vector, vectorShare)
	out := make([]Hit, len(order))
	for i, id := range order {
		out[i] = Hit{ID: id, Score: score[id]}
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out
}
