package memory

import (
	"math/rand/v2"
	"testing"
)

// hitsOf makes a best-first hit list from scores.
func hitsOf(scores []float64) []Hit {
	out := make([]Hit, len(scores))
	for i, s := range scores {
		out[i] = Hit{ID: string(rune('a' + i)), Score: s}
	}
	return out
}

// The top of a list of pure noise (what a random-weight embedder gives: every
// similarity near 0.95) barely counts; a list whose best matches stand far
// above the rest counts in full.
func TestVectorWeightFollowsHowFarTheBestStandOut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var noiseWeights float64
	const trials = 200
	for range trials {
		// The 20 best of 1,000 noisy similarities, as a KNN search returns them.
		all := make([]float64, 1000)
		for i := range all {
			all[i] = 0.95 + 0.005*r.NormFloat64()
		}
		noiseWeights += vectorWeight(hitsOf(bestFirst(all)[:20]))
	}
	if mean := noiseWeights / trials; mean > 0.2 {
		t.Errorf("noise gets a mean weight of %.2f, want at most 0.2", mean)
	}

	strong := make([]float64, 20)
	for i := range strong {
		strong[i] = 0.30 + 0.01*r.NormFloat64()
	}
	strong[0], strong[1], strong[2] = 0.82, 0.78, 0.75
	if w := vectorWeight(hitsOf(bestFirst(strong))); w != 1 {
		t.Errorf("three clear matches get weight %.2f, want 1", w)
	}
	if w := vectorWeight(hitsOf([]float64{0.9, 0.5})); w != 1 {
		t.Errorf("a short list gets weight %.2f, want 1 (nothing to compare with)", w)
	}
}

// With a small vector weight, a keyword hit keeps its place above memories
// only the vectors found; with weight 1 fusion is plain reciprocal rank.
func TestFuseWeightedKeepsKeywordHitsAboveWeakVectors(t *testing.T) {
	keyword := hitsOf([]float64{3, 2, 1})
	vector := []Hit{{ID: "c"}, {ID: "x"}, {ID: "y"}}
	got := fuseWeighted(keyword, vector, minVectorWeight)
	if got[0].ID != "a" || got[1].ID != "b" || got[2].ID != "c" || got[3].ID != "x" {
		t.Errorf("weak vectors reordered keyword hits: %v", got)
	}
	got = fuseWeighted(keyword, vector, 1)
	if got[0].ID != "c" { // third by keywords, first by vectors: in both lists
		t.Errorf("full weight: %v, want c (in both lists) first", got)
	}
}

func bestFirst(xs []float64) []float64 {
	out := append([]float64(nil), xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] > out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
