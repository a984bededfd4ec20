package viewer

import (
	"net/http"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestForeignHostRefused(t *testing.T) {
	f := newFixture(t)
	for _, host := range []string{"evil.example", "evil.example:28000", "192.168.1.5:28000", "localhost.evil.example", ""} {
		w := f.do(t, "GET", "/api/memories", "", map[string]string{"Host": host})
		if w.Code != http.StatusForbidden {
			t.Errorf("Host %q: status %d, want 403", host, w.Code)
		}
		if strings.Contains(w.Body.String(), "memories\"") {
			t.Errorf("Host %q: memories returned: %s", host, w.Body)
		}
	}
	for _, host := range []string{"127.0.0.1:28000", "localhost:28000", "[::1]:28000", "LOCALHOST", "127.0.0.1"} {
		if w := f.do(t, "GET", "/api/memories", "", map[string]string{"Host": host}); w.Code != http.StatusOK {
			t.Errorf("Host %q: status %d, want 200", host, w.Code)
		}
	}
}

func TestForeignOriginRefusedOnWrites(t *testing.T) {
	f := newFixture(t)
	id := f.store(t, "Keep functions short", memory.TypePreference, "global")
	target := "/api/memories/" + id + "/validate"
	for _, h := range []map[string]string{
		{"Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "cross-site"},
	} {
		if w := f.do(t, "POST", target, `{"success": true}`, h); w.Code != http.StatusForbidden {
			t.Errorf("POST with %v: status %d, want 403; body %s", h, w.Code, w.Body)
		}
	}
	m, err := f.mem.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Confidence != memory.DefaultConfidence {
		t.Errorf("confidence %v after refused writes, want it untouched (%v)", m.Confidence, memory.DefaultConfidence)
	}
	// Reads from another origin are not writes: no CORS headers, so a foreign
	// page cannot read the answer anyway.
	w := f.do(t, "GET", "/api/memories", "", map[string]string{"Origin": "https://evil.example"})
	if got := w.Header().Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("Access-Control-Allow-Origin %q, want none", got)
	}
}

func TestSecurityHeadersOnEveryAnswer(t *testing.T) {
	f := newFixture(t)
	for _, target := range []string{"/", "/static/app.js", "/static/style.css", "/api/memories", "/api/memories/not-an-id"} {
		w := f.do(t, "GET", target, "", nil)
		csp := w.Header().Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", target, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: Content-Security-Policy %q allows inline code", target, csp)
		}
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", target, got)
		}
	}
}

func TestPageIsEmbeddedWithoutInlineScript(t *testing.T) {
	f := newFixture(t)
	w := f.do(t, "GET", "/", "", nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `src="static/app.js"`) {
		t.Fatalf("GET /: %d %s", w.Code, w.Body)
	}
	if strings.Contains(w.Body.String(), "<script>") || strings.Contains(w.Body.String(), "style=") {
		t.Errorf("index.html has inline script or style, which the CSP blocks")
	}
	if w := f.do(t, "GET", "/static/app.js", "", nil); w.Code != http.StatusOK || !strings.Contains(w.Header().Get("Content-Type"), "javascript") {
		t.Errorf("GET /static/app.js: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
}
