package randvec

import (
	"math"
	"testing"
)

func TestUnitIsReproducibleAndOfLengthOne(t *testing.T) {
	a, b := Unit("go vet before commit", 64, 3), Unit("go vet before commit", 64, 3)
	var sum float64
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("component %d: %v then %v for the same text and salt", i, a[i], b[i])
		}
		sum += a[i] * a[i]
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("squared length %v, want 1", sum)
	}
	if c := Unit("go vet before commit", 64, 4); c[0] == a[0] && c[1] == a[1] {
		t.Errorf("another salt gave the same vector")
	}
}
