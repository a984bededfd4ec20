package httpauth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestBearerToken(t *testing.T) {
	for header, want := range map[string]string{
		"":                      "",
		"Bearer abc":            "abc",
		"bearer abc":            "abc",
		"BEARER  abc ":          "abc",
		"Bearer":                "",
		"Bearer ":               "",
		"Basic abc":             "",
		"Bearerabc":             "",
		"Token abc":             "",
		"Bearer abc def":        "abc def",
		"Bearer e2e-token-of-x": "e2e-token-of-x",
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if header != "" {
			r.Header.Set("Authorization", header)
		}
		if got := BearerToken(r); got != want {
			t.Errorf("Authorization %q: token %q, want %q", header, got, want)
		}
	}
}

func TestChallenge(t *testing.T) {
	for _, c := range []struct {
		realm   string
		invalid bool
		want    string
	}{
		{"recall", false, `Bearer realm="recall"`},
		{"recall viewer", true, `Bearer realm="recall viewer", error="invalid_token"`},
	} {
		h := http.Header{}
		Challenge(h, c.realm, c.invalid)
		if got := h.Get("WWW-Authenticate"); got != c.want {
			t.Errorf("Challenge(%q, %v) = %q, want %q", c.realm, c.invalid, got, c.want)
		}
	}
}
