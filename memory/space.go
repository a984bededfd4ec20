package memory

import "fmt"

// MaxDimension bounds the embedding dimension a store keeps.
const MaxDimension = 8192

// CheckDimension refuses a dimension no store keeps; what names it in the
// error ("embedding dimension", "vector length").
func CheckDimension(what string, n int) error {
	if n <= 0 || n > MaxDimension {
		return Invalidf(what, n, fmt.Sprintf("1 to %d", MaxDimension))
	}
	return nil
}

// Fits refuses, with ErrEmbeddingMismatch, a vector of another dimension
// than the space's: vectors of different spaces are never compared. what
// names the vector in the error ("vector", "query vector", "part vector").
func (sp EmbeddingSpace) Fits(what string, vec []float32) error {
	if len(vec) != sp.Dimension {
		return fmt.Errorf("%s of dimension %d, the database holds %q vectors of dimension %d: %w",
			what, len(vec), sp.Model, sp.Dimension, ErrEmbeddingMismatch)
	}
	return nil
}

// Takes refuses a vector the space cannot keep or compare: one of another
// dimension (Fits) or one cosine distance is undefined for (CheckVector).
func (sp EmbeddingSpace) Takes(what string, vec []float32) error {
	if err := sp.Fits(what, vec); err != nil {
		return err
	}
	return CheckVector(vec)
}
