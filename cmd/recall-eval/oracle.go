package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/recall-mcp/recall/eval"
)

// oracleOptions are the flags of an oracle run (see eval.Curve).
type oracleOptions struct {
	sizes, noises, corpora string
	dim                    int
	asJSON                 bool
}

// defaultNoises sweep the oracle from perfect to meaningless, denser where
// vector-only search goes from good to useless (with 1024 dimensions).
const defaultNoises = "0,0.5,0.8,0.85,0.88,0.9,0.92,0.94,0.96,1"

// runOracle prints the fusion curve: keyword-only, vector-only and hybrid
// figures at each noise level of the oracle embedder, for each corpus and
// size, isotropic and anisotropic.
func runOracle(ctx context.Context, stdout io.Writer, logger *slog.Logger, o oracleOptions) error {
	sizes, err := parseList(o.sizes, strconv.Atoi)
	if err != nil {
		return fmt.Errorf("-sizes: %w", err)
	}
	noises, err := parseList(o.noises, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil {
		return fmt.Errorf("-noise: %w", err)
	}
	for _, n := range noises {
		if n < 0 || n > 1 {
			return fmt.Errorf("-noise: %v is out of range: noise levels go from 0 to 1", n)
		}
	}
	var all []eval.CurvePoint
	for _, corpus := range strings.Split(o.corpora, ",") {
		for _, size := range sizes {
			d, err := oracleCorpus(corpus, size)
			if err != nil {
				return err
			}
			for _, aniso := range []bool{false, true} {
				pts, err := eval.Curve(ctx, d, eval.CurveOptions{Noises: noises, Anisotropic: aniso, Dim: o.dim, Seed: 1, Logger: logger})
				if err != nil {
					return err
				}
				all = append(all, pts...)
				if !o.asJSON {
					title := fmt.Sprintf("\n%s corpus, %d memories, %d queries, anisotropic %v", corpus, len(d.Memories), len(d.Queries), aniso)
					if err := eval.WriteCurve(stdout, title, pts); err != nil {
						return err
					}
				}
			}
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	return nil
}

// oracleCorpus is the project's dataset with distractors up to size, or a
// generated corpus of that size.
func oracleCorpus(name string, size int) (*eval.Dataset, error) {
	switch name {
	case "project":
		d, err := eval.Load()
		if err != nil {
			return nil, err
		}
		return eval.Scaled(d, size, 1), nil
	case "generated":
		return eval.Generated(size, 7), nil
	}
	return nil, fmt.Errorf("-corpus %q unknown, accepted: project, generated", name)
}

func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
