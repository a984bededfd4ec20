package eval

import (
	"context"
	"math"
	"testing"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// The oracle's noise moves a query from its relevant memory (cosine 1 at
// noise 0) to a random direction (cosine about 0 at noise 1), through
// cos(noise·90°); the anisotropic variant lifts unrelated pairs to about 0.5.
func TestOracleNoiseAndAnisotropy(t *testing.T) {
	d := &Dataset{
		Memories: []Memory{{ID: "a", Content: "alpha"}, {ID: "b", Content: "beta"}},
		Queries:  []Query{{ID: "q", Query: "where is alpha", Relevant: []string{"a"}}},
	}
	ctx := context.Background()
	for _, aniso := range []bool{false, true} {
		o := NewOracle(d, 1024, aniso, 1)
		a, b := o.DocumentVector("alpha"), o.DocumentVector("beta")
		unrelated := cosine(a, b)
		if want := map[bool]float64{false: 0, true: 0.5}[aniso]; math.Abs(unrelated-want) > 0.12 {
			t.Errorf("anisotropic %v: unrelated memories score %.3f, want about %.1f", aniso, unrelated, want)
		}
		for _, tc := range []struct{ noise, want float64 }{{0, 1}, {0.5, math.Cos(math.Pi / 4)}, {1, 0}} {
			o.SetNoise(tc.noise)
			q, _ := o.EmbedQuery(ctx, "where is alpha")
			got := cosine(q, a)
			want := tc.want
			if aniso { // the shared direction counts half in both
				want = (tc.want + 1) / 2
			}
			if math.Abs(got-want) > 0.12 {
				t.Errorf("anisotropic %v, noise %.1f: query to its memory %.3f, want about %.3f", aniso, tc.noise, got, want)
			}
		}
	}
}

// The generated corpus is a valid dataset, the same for the same seed, with
// queries keywords can and cannot find.
func TestGeneratedCorpus(t *testing.T) {
	d := Generated(500, 3)
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if len(d.Memories) != 500 || len(d.ByCategory(Exact)) == 0 || len(d.ByCategory(Paraphrase)) == 0 || len(d.ByCategory(Unrelated)) != 50 {
		t.Errorf("memories %d, exact %d, paraphrase %d, unrelated %d", len(d.Memories),
			len(d.ByCategory(Exact)), len(d.ByCategory(Paraphrase)), len(d.ByCategory(Unrelated)))
	}
	if again := Generated(500, 3); again.Queries[7].Query != d.Queries[7].Query || again.Memories[9].Content != d.Memories[9].Content {
		t.Error("the same seed made another corpus")
	}
	base, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	scaled := Scaled(base, 1000, 1)
	if err := scaled.Check(); err != nil || len(scaled.Memories) != 1000 {
		t.Errorf("scaled to %d memories: %v", len(scaled.Memories), err)
	}
}
