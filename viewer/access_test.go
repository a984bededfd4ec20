package viewer

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/team"
)

const testToken = "correct-horse-battery-staple-42"

// withAccess serves the fixture's services with other access rules, as
// recall ui --addr or recall serve --allow-remote wire them.
func (f *fixture) withAccess(a Access) *fixture {
	g := *f
	g.h = New(Deps{Memory: f.mem, Validation: f.val, DB: f.db, Journal: f.journal(), Access: a, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &g
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

func TestRemoteViewerNeedsItsToken(t *testing.T) {
	f := newFixture(t).withAccess(Access{Token: testToken})
	f.store(t, "Deploys go out on Tuesdays", memory.TypeDecision, "global")

	for _, target := range []string{"/", "/static/app.js", "/api/memories"} {
		w := f.do(t, "GET", target, "", nil)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "?token=") || !strings.Contains(w.Body.String(), "Authorization: Bearer") {
			t.Errorf("GET %s without a token: %d %s; want 401 saying how to give the token", target, w.Code, w.Body)
		}
		if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("GET %s: WWW-Authenticate %q", target, w.Header().Get("WWW-Authenticate"))
		}
		if w.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: the 401 has no Content-Security-Policy", target)
		}
	}

	w := f.do(t, "GET", "/api/memories", "", bearer("wrong"))
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_token") {
		t.Errorf("wrong bearer: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	w = f.do(t, "GET", "/?token=not-the-token-xyz", "", nil)
	if w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 || strings.Contains(w.Body.String(), "not-the-token-xyz") {
		t.Errorf("wrong ?token=: %d, cookies %v, body %s; want 401, no cookie, the token not echoed", w.Code, w.Result().Cookies(), w.Body)
	}
	// The raw token is no cookie: only the one the server derived from it.
	w = f.do(t, "GET", "/api/memories", "", map[string]string{"Cookie": tokenCookie + "=" + testToken})
	if w.Code != http.StatusUnauthorized {
		t.Errorf("cookie holding the raw token: %d, want 401", w.Code)
	}

	w = f.do(t, "GET", "/api/memories", "", bearer(testToken))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Tuesdays") {
		t.Errorf("right bearer: %d %s", w.Code, w.Body)
	}
}

func TestTokenInTheURLSetsACookieAndRedirectsToTheCleanURL(t *testing.T) {
	f := newFixture(t).withAccess(Access{Token: testToken})
	f.store(t, "Deploys go out on Tuesdays", memory.TypeDecision, "global")

	w := f.do(t, "GET", "/?view=list&token="+testToken, "", nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/?view=list" {
		t.Fatalf("GET /?token=: %d, Location %q; want 303 to /?view=list", w.Code, w.Header().Get("Location"))
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != tokenCookie || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/" {
		t.Fatalf("cookies %+v; want one HttpOnly SameSite=Strict %s", cookies, tokenCookie)
	}
	if strings.Contains(cookies[0].Value, testToken) {
		t.Errorf("the cookie holds the token itself")
	}
	w = f.do(t, "GET", "/api/memories", "", map[string]string{"Cookie": cookies[0].Name + "=" + cookies[0].Value})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Tuesdays") {
		t.Errorf("with the cookie: %d %s", w.Code, w.Body)
	}

	// A path that would read as another host stays on this one.
	req := httptest.NewRequest("GET", "/?token="+testToken, nil)
	req.RequestURI = "//evil.example/x?token=" + testToken
	req.Host = "127.0.0.1:8765"
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/evil.example/x" {
		t.Errorf("GET //evil.example/x?token=: %d, Location %q; want 303 to /evil.example/x on this host", rec.Code, loc)
	}

	// Under recall serve's /ui/ the redirect keeps the prefix.
	mux := http.NewServeMux()
	mux.Handle("/ui/", http.StripPrefix("/ui", f.h))
	req = httptest.NewRequest("GET", "/ui/?token="+testToken, nil)
	req.Host = "127.0.0.1:8765"
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/ui/" {
		t.Errorf("GET /ui/?token=: %d, Location %q; want 303 to /ui/", rec.Code, rec.Header().Get("Location"))
	}
	if c := rec.Result().Cookies(); len(c) != 1 || c[0].Path != "/ui/" {
		t.Errorf("cookies under /ui/: %+v; want one for /ui/ alone (not MCP's /mcp)", c)
	}
}

func TestRemoteHostCheckStillRefusesOtherNames(t *testing.T) {
	f := newFixture(t).withAccess(Access{Token: testToken, Hosts: []string{"recall.lan"}})
	for host, want := range map[string]int{
		"evil.example:28000":      http.StatusForbidden, // a page that rebound its DNS name
		"recall.lan.evil.example": http.StatusForbidden,
		"":                        http.StatusForbidden,
		"192.168.1.5:28000":       http.StatusOK,
		"[fd00::5]:28000":         http.StatusOK,
		"RECALL.lan:28000":        http.StatusOK,
		"localhost:28000":         http.StatusOK,
	} {
		h := bearer(testToken)
		h["Host"] = host
		if w := f.do(t, "GET", "/api/memories", "", h); w.Code != want {
			t.Errorf("Host %q: %d, want %d; %s", host, w.Code, want, w.Body)
		}
	}
	// Without a token the viewer is this machine's alone: an IP address of
	// another interface is refused.
	g := newFixture(t)
	if w := g.do(t, "GET", "/api/memories", "", map[string]string{"Host": "192.168.1.5:28000"}); w.Code != http.StatusForbidden {
		t.Errorf("loopback viewer, Host 192.168.1.5: %d, want 403", w.Code)
	}
}

func TestReadOnlyViewerRefusesEveryChange(t *testing.T) {
	base := newFixture(t)
	id := base.store(t, "Keep functions short", memory.TypePreference, "global")
	f := base.withAccess(Access{Token: testToken, ReadOnly: true})

	info := decode[accessInfo](t, f.do(t, "GET", "/api/access", "", bearer(testToken)), http.StatusOK)
	if !info.ReadOnly || !info.TokenRequired {
		t.Errorf("GET /api/access: %+v, want read-only with a token", info)
	}
	for _, c := range []struct{ method, target, body string }{
		{"POST", "/api/memories/" + id + "/validate", `{"success": true}`},
		{"PATCH", "/api/memories/" + id, `{"content": "Keep functions long"}`},
		{"DELETE", "/api/memories/" + id, `{}`},
		{"POST", "/api/memories/bulk", `{"action": "delete", "ids": ["` + id + `"]}`},
		{"POST", "/api/trash/" + id + "/restore", ``},
	} {
		w := f.do(t, c.method, c.target, c.body, bearer(testToken))
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "read-only") || !strings.Contains(w.Body.String(), "--writable") {
			t.Errorf("%s %s: %d %s; want 403 saying read-only and --writable", c.method, c.target, w.Code, w.Body)
		}
	}
	m, err := f.mem.Get(t.Context(), id)
	if err != nil || m.Content != "Keep functions short" || m.Confidence != memory.DefaultConfidence {
		t.Fatalf("after refused writes: %+v, %v; want it untouched", m, err)
	}

	// --writable: the same write goes through.
	w := base.withAccess(Access{Token: testToken}).do(t, "POST", "/api/memories/"+id+"/validate", `{"success": true}`, bearer(testToken))
	if w.Code != http.StatusOK {
		t.Errorf("writable: %d %s", w.Code, w.Body)
	}
	if info := decode[accessInfo](t, base.do(t, "GET", "/api/access", "", nil), http.StatusOK); info.ReadOnly || info.TokenRequired {
		t.Errorf("loopback viewer's /api/access: %+v, want writable without a token", info)
	}
}

// TestNoAnswerCarriesTheToken reads every page of the API of a viewer with a
// token: the token (and the cookie derived from it) is never in a body.
func TestNoAnswerCarriesTheToken(t *testing.T) {
	f := newFixture(t).withAccess(Access{Token: testToken, ReadOnly: true})
	id := f.store(t, "Deploys go out on Tuesdays", memory.TypeDecision, "project:recall")
	for _, target := range []string{"/", "/api/access", "/api/health", "/api/memories", "/api/memories/" + id, "/api/memories/" + id + "/graph",
		"/api/golden", "/api/projects", "/api/files", "/api/export?format=json", "/api/review/contradictions", "/api/trash", "/api/nope"} {
		w := f.do(t, "GET", target, "", bearer(testToken))
		if w.Code >= 500 {
			t.Errorf("GET %s: %d %s", target, w.Code, w.Body)
		}
		if strings.Contains(w.Body.String(), testToken) || strings.Contains(w.Body.String(), team.CookieValue(testToken)) {
			t.Errorf("GET %s returned the token: %s", target, w.Body)
		}
	}
}

// A person opening a remote viewer without its token (a browser's navigation,
// Accept: text/html) gets a page with a form asking for it, 401 all the same;
// the API and programs keep their JSON answer. The page's style sheet and icon
// need no token; nothing else does without one.
func TestRemoteViewerAsksAPersonForItsToken(t *testing.T) {
	f := newFixture(t).withAccess(Access{Token: testToken})
	f.store(t, "Deploys go out on Tuesdays", memory.TypeDecision, "global")
	page := map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}

	w := f.do(t, "GET", "/", "", page)
	body := w.Body.String()
	if w.Code != http.StatusUnauthorized || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(body, `<form id="token-form"`) || !strings.Contains(body, `name="token"`) || !strings.Contains(body, "openssl rand -hex 32") {
		t.Errorf("GET / from a browser without the token: %d %s\n%s", w.Code, w.Header().Get("Content-Type"), body)
	}
	if strings.Contains(body, "Tuesdays") || strings.Contains(body, "<script") {
		t.Errorf("the token page shows a memory or runs a script:\n%s", body)
	}
	w = f.do(t, "GET", "/?token=not-the-token-xyz", "", page)
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `id="token-wrong"`) || strings.Contains(w.Body.String(), "not-the-token-xyz") {
		t.Errorf("a wrong token from the form: %d %s; want the page saying so, the token not echoed", w.Code, w.Body)
	}
	if w := f.do(t, "GET", "/api/memories", "", page); w.Code != http.StatusUnauthorized || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Errorf("the API asked with Accept text/html: %d %s, want the JSON 401", w.Code, w.Header().Get("Content-Type"))
	}
	for _, target := range []string{"/static/style.css", "/static/favicon.svg", "/favicon.ico"} {
		if w := f.do(t, "GET", target, "", nil); w.Code != http.StatusOK {
			t.Errorf("GET %s without the token: %d, want the file (the token page uses it)", target, w.Code)
		}
	}
	if w := f.do(t, "GET", "/static/app.js", "", nil); w.Code != http.StatusUnauthorized {
		t.Errorf("GET /static/app.js without the token: %d, want 401", w.Code)
	}
}
