package ollamatest

import (
	"math"
	"math/rand/v2"
	"strings"
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

// randomUnit is a unit vector drawn from a generator seeded by text.
func randomUnit(text string, dim int, salt uint64) []float64 {
	r := rand.New(rand.NewPCG(hashOf(text), salt))
	v := make([]float64, dim)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return normalize(v)
}

func normalize(v []float64) []float64 {
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	n := math.Sqrt(sum)
	for i := range v {
		v[i] /= n
	}
	return v
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
	shared := randomUnit("shared direction", dim, 1)
	own := randomUnit(withoutInstruction(text), dim, 2)
	v := make([]float64, dim)
	for i := range v {
		v[i] = shared[i] + 0.23*own[i]
	}
	return toFloat32(normalize(v))
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
				for i, x := range randomUnit(m, dim, 3) {
					v[i] += x
				}
			}
			v = normalize(v)
		} else {
			copy(v, randomUnit(text, dim, 3))
		}
		jitter := randomUnit(text, dim, 4)
		for i := range v {
			v[i] = (1-noise)*v[i] + noise*jitter[i]
		}
		return toFloat32(normalize(v))
	}
}
