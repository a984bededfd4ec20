package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/recall-mcp/recall/internal/randvec"
)

// Oracle is an embedder whose quality is set by hand, to measure how search
// behaves from a perfect model to a meaningless one: every memory text gets a
// random unit direction of its own, and a judged query the normalised sum of
// the directions of its relevant memories, mixed with a random direction by
// Noise. At noise 0 a query's nearest memories are exactly its relevant ones;
// at noise 1 its vector is a random direction, which means nothing. Texts it
// was not told about (distractors, unrelated prompts) get a random direction.
//
// With Anisotropic, every vector also carries a shared direction (with a
// little variation per text), so that unrelated texts score about 0.5 instead
// of 0, as real embedders do (unrelated texts score 0.3 to 0.6 with
// mxbai-embed-large).
//
// It implements memory.Embedder; SetNoise may change the queries' noise
// between runs (the memories' vectors do not depend on it).
type Oracle struct {
	Dim         int
	Anisotropic bool
	Seed        uint64

	mu       sync.Mutex
	noise    float64
	relevant map[string][]string // query text -> texts of its relevant memories
}

// NewOracle makes the oracle of d's judged queries at noise 0.
func NewOracle(d *Dataset, dim int, anisotropic bool, seed uint64) *Oracle {
	o := &Oracle{Dim: dim, Anisotropic: anisotropic, Seed: seed, relevant: map[string][]string{}}
	content := make(map[string]string, len(d.Memories))
	for _, m := range d.Memories {
		content[m.ID] = m.Content
	}
	for _, q := range d.Queries {
		for _, id := range q.Relevant {
			o.relevant[q.Query] = append(o.relevant[q.Query], content[id])
		}
	}
	return o
}

// SetNoise sets the share of noise in query vectors, from 0 (perfect) to 1
// (pure noise): a query's vector is cos(θ)·relevant + sin(θ)·random with
// θ = noise·90°.
func (o *Oracle) SetNoise(noise float64) {
	o.mu.Lock()
	o.noise = noise
	o.mu.Unlock()
}

// Model names the oracle.
func (o *Oracle) Model() string { return "oracle" }

// EmbedDocuments gives each text its own direction.
func (o *Oracle) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = o.DocumentVector(t)
	}
	return out, nil
}

// DocumentVector is the vector of a stored text.
func (o *Oracle) DocumentVector(text string) []float32 {
	return o.finish(o.direction(text, 1), text)
}

// EmbedQuery points a judged query at its relevant memories, blurred by the
// noise.
func (o *Oracle) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	o.mu.Lock()
	noise := o.noise
	o.mu.Unlock()
	mems := o.relevant[text]
	if len(mems) == 0 {
		return o.finish(o.direction(text, 2), text), nil
	}
	target := make([]float64, o.Dim)
	for _, m := range mems {
		for i, x := range o.direction(m, 1) {
			target[i] += x
		}
	}
	target = randvec.Normalize(target)
	jitter := o.direction(text, 3)
	// The random direction is made orthogonal to the target, so that the
	// cosine to the target is exactly cos(θ) whatever the draw.
	dot := 0.0
	for i := range target {
		dot += target[i] * jitter[i]
	}
	for i := range jitter {
		jitter[i] -= dot * target[i]
	}
	jitter = randvec.Normalize(jitter)
	theta := noise * math.Pi / 2
	v := make([]float64, o.Dim)
	for i := range v {
		v[i] = math.Cos(theta)*target[i] + math.Sin(theta)*jitter[i]
	}
	return o.finish(v, text), nil
}

// finish adds the shared direction of the anisotropic variant and converts.
func (o *Oracle) finish(v []float64, text string) []float32 {
	if o.Anisotropic {
		shared := o.direction("shared direction", 4)
		// A weight about 1 puts unrelated texts at a cosine of about 0.5; it
		// varies a little per text, as real models' does.
		w := 1 + 0.05*rand.New(rand.NewPCG(randvec.Hash(text), o.Seed^5)).NormFloat64()
		for i := range v {
			v[i] += w * shared[i]
		}
		v = randvec.Normalize(v)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// direction is a random unit vector drawn from text, the seed and salt.
func (o *Oracle) direction(text string, salt uint64) []float64 {
	return randvec.Unit(text, o.Dim, o.Seed^salt)
}
