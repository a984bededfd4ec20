package ollamatest

import (
	"strings"

	"github.com/recall-mcp/recall/internal/randvec"
)

// VectorFunc makes the vector of one text (as sent, instructions included).
type VectorFunc func(text string, dim int) []float32

// WithVectors makes /api/embed answer with fn instead of [Vector].
func WithVectors(fn VectorFunc) Option { return func(s *Server) { s.vectors = fn } }

// withoutInstruction strips a known query instruction, as [Vector] does.
func withoutInstruction(text string) string {
	for _, prefix := range queryInstructions {
		text = strings.TrimPrefix(text, prefix)
	}
	return text
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// NoiseVectors imitate an embedder whose vectors mean nothing, as the lab's
// random-weight models: every text gets a shared direction plus a small
// direction of its own drawn from its hash, so any two texts have a cosine
// near 0.95 and which texts are nearest is arbitrary.
func NoiseVectors(text string, dim int) []float32 {
	shared := randvec.Unit("shared direction", dim, 1)
	own := randvec.Unit(withoutInstruction(text), dim, 2)
	v := make([]float64, dim)
	for i := range v {
		v[i] = shared[i] + 0.23*own[i]
	}
	return toFloat32(randvec.Normalize(v))
}

// RelevanceVectors imitate a strong embedder for a set of judged queries:
// relevant maps a query's text to the texts of the memories relevant to it.
// Every memory gets a random direction of its own; a judged query points at the
// sum of its relevant memories' directions. noise (0 to 1) mixes in a random
// direction per text, so the nearest memories are the relevant ones, mostly.
// Texts that are neither judged queries nor relevant memories get their own
// direction plus noise.
func RelevanceVectors(relevant map[string][]string, noise float64) VectorFunc {
	return func(text string, dim int) []float32 {
		text = withoutInstruction(text)
		v := make([]float64, dim)
		if mems, ok := relevant[text]; ok && len(mems) > 0 {
			for _, m := range mems {
				for i, x := range randvec.Unit(m, dim, 3) {
					v[i] += x
				}
			}
			v = randvec.Normalize(v)
		} else {
			copy(v, randvec.Unit(text, dim, 3))
		}
		jitter := randvec.Unit(text, dim, 4)
		for i := range v {
			v[i] = (1-noise)*v[i] + noise*jitter[i]
		}
		return toFloat32(randvec.Normalize(v))
	}
}
