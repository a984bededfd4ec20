package memory

// RRFK is the rank offset of reciprocal rank fusion, the one constant every
// fused search of Recall uses (memories, the journal, conversation history):
// lists scored on different scales are merged by their ranks alone.
const RRFK = 60

// RRF is what a hit at 0-based rank in one list scores in reciprocal rank
// fusion: 1/(RRFK+rank+1).
func RRF(rank int) float64 { return 1 / float64(RRFK+rank+1) }
