package eval_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/recall-mcp/recall/eval"
)

// The fusion curve, with fixed seeds: along the oracle's noise, hybrid search
// beats both of its sides by 3 points of R@10 while the embedder is strong,
// stays within half a point of keyword-only when it is meaningless, and never
// falls far below keyword-only in between; on the project's dataset and on a
// generated corpus no constant was tuned on, isotropic and anisotropic.
func TestFusionCurve(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 1,000 memories four times")
	}
	project, err := eval.Load()
	if err != nil {
		t.Fatal(err)
	}
	corpora := map[string]*eval.Dataset{
		"project":   eval.Scaled(project, 1000, 1),
		"generated": eval.Generated(1000, 7),
	}
	for name, d := range corpora {
		for _, aniso := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/anisotropic=%v", name, aniso), func(t *testing.T) {
				t.Parallel()
				checkCurve(t, name, d, aniso)
			})
		}
	}
}

func checkCurve(t *testing.T, name string, d *eval.Dataset, aniso bool) {
	const strong, between, meaningless = 0.92, 0.96, 1.0
	pts, err := eval.Curve(context.Background(), d, eval.CurveOptions{
		Noises: []float64{strong, between, meaningless}, Anisotropic: aniso, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		kw, vec, hyb := p.Keyword.RecallAt10, p.Vector.RecallAt10, p.Hybrid.RecallAt10
		t.Logf("%s, anisotropic %v, noise %.2f: R@10 keyword %.3f vector %.3f hybrid %.3f (weight %.2f)", name, aniso, p.Noise, kw, vec, hyb, p.VectorWeight)
		switch p.Noise {
		case strong:
			if hyb < max(kw, vec)+0.03 {
				t.Errorf("%s, anisotropic %v: a strong embedder (vector R@10 %.3f) gives hybrid %.3f, want 3 points above both sides (keyword %.3f)", name, aniso, vec, hyb, kw)
			}
		case between:
			if hyb < kw-0.01 {
				t.Errorf("%s, anisotropic %v: a weak embedder (vector R@10 %.3f) pulls hybrid to %.3f, below keyword-only %.3f", name, aniso, vec, hyb, kw)
			}
		case meaningless:
			if hyb < kw-0.005 || hyb > kw+0.005 {
				t.Errorf("%s, anisotropic %v: meaningless vectors give hybrid %.3f, want keyword-only's %.3f within half a point", name, aniso, hyb, kw)
			}
		}
	}
}
