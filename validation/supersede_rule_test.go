package validation

import "testing"

// TestClearlyBetterThresholds pins each threshold of the supersede rule at its
// edge, on both sides, so that moving any of them fails a case.
func TestClearlyBetterThresholds(t *testing.T) {
	unvalidated := record{confidence: 0.3}
	cases := []struct {
		name   string
		a, b   record
		golden bool
		want   bool
	}{
		{"margin 0.2 and net +2", record{confidence: 0.5, succeeded: 2}, unvalidated, false, true},
		{"margin 0.19 is not enough", record{confidence: 0.49, succeeded: 2}, unvalidated, false, false},
		{"margin far above but net +1", record{confidence: 0.9, succeeded: 2, failed: 1}, unvalidated, false, false},
		{"net +2 counts failures", record{confidence: 0.9, succeeded: 3, failed: 1}, unvalidated, false, true},
		{"older fails 1 of 2", record{confidence: 0.6}, record{confidence: 0.4, succeeded: 0, failed: 2}, false, true},
		{"older fails 2 of 3 (rate 1/3)", record{confidence: 0.6}, record{confidence: 0.4, succeeded: 1, failed: 2}, false, true},
		{"older at rate 0.5 exactly", record{confidence: 0.6}, record{confidence: 0.4, succeeded: 1, failed: 1}, false, false},
		{"older has one outcome only", record{confidence: 0.6}, record{confidence: 0.3, failed: 1}, false, false},
		{"older is a golden rule", record{confidence: 1, succeeded: 9}, unvalidated, true, false},
	}
	for _, c := range cases {
		if got := clearlyBetter(c.a, c.b, c.golden); got != c.want {
			t.Errorf("%s: clearlyBetter(%v, %v, golden %v) = %v, want %v", c.name, c.a, c.b, c.golden, got, c.want)
		}
	}
}
