package eval

// Metrics of one ranked answer against the judged relevant memories. Ranked
// lists hold dataset ids, best first.

// RecallAt is the share of the relevant memories found in the first k
// results: |relevant in top k| / |relevant|. It is 0 when nothing is
// relevant. With more than k relevant memories even a perfect ranking scores
// below 1 (k / |relevant|); few queries judge more than five.
func RecallAt(ranked, relevant []string, k int) float64 {
	if len(relevant) == 0 || k <= 0 {
		return 0
	}
	return float64(CountRelevant(ranked[:min(k, len(ranked))], relevant)) / float64(len(relevant))
}

// ReciprocalRank is 1/rank of the first relevant memory in ranked (rank from
// 1), or 0 when none is there.
func ReciprocalRank(ranked, relevant []string) float64 {
	want := setOf(relevant)
	for i, id := range ranked {
		if want[id] {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// CountRelevant is how many of ids are relevant.
func CountRelevant(ids, relevant []string) int {
	want := setOf(relevant)
	n := 0
	for _, id := range ids {
		if want[id] {
			n++
		}
	}
	return n
}

func setOf(ids []string) map[string]bool {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// mean is the arithmetic mean of xs, 0 for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
