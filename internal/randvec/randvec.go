// Package randvec makes the reproducible random unit vectors of Recall's
// fake embedders: the test Ollama's (embedding/ollamatest) and the
// retrieval evaluation's oracle (eval). The same text always gives the same
// vector.
package randvec

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Hash is the FNV-1a hash of s: the seed a text gives.
func Hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// Unit is a unit vector of dim components drawn from a generator seeded by
// text and salt.
func Unit(text string, dim int, salt uint64) []float64 {
	r := rand.New(rand.NewPCG(Hash(text), salt))
	v := make([]float64, dim)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return Normalize(v)
}

// Normalize scales v to length 1, in place, and returns it.
func Normalize(v []float64) []float64 {
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
