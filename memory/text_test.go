package memory

import "testing"

func TestCutNeverSplitsACharacter(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"café", 4, "caf"}, // é is two bytes: 4 would split it
		{"café", 5, "café"},
		{"日本", 2, ""},
		{"日本", 3, "日"},
	} {
		if got := Cut(c.in, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
