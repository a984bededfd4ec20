package viewer

import (
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"
)

func TestPageFilesAreRevalidatedByETag(t *testing.T) {
	f := newFixture(t)
	for _, target := range []string{"/", "/static/app.js", "/static/style.css"} {
		w := f.do(t, "GET", target, "", nil)
		tag := w.Header().Get("ETag")
		if w.Code != http.StatusOK || tag == "" || w.Header().Get("Cache-Control") != "no-cache" {
			t.Fatalf("GET %s: %d, ETag %q, Cache-Control %q; want 200 with an ETag and no-cache", target, w.Code, tag, w.Header().Get("Cache-Control"))
		}
		again := f.do(t, "GET", target, "", map[string]string{"If-None-Match": tag})
		if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag: %d, %d bytes; want 304 without a body", target, again.Code, again.Body.Len())
		}
		if w.Header().Get("Content-Security-Policy") == "" || again.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: the security headers are missing", target)
		}
	}
	if a, b := f.do(t, "GET", "/static/app.js", "", nil).Header().Get("ETag"), f.do(t, "GET", "/static/api.js", "", nil).Header().Get("ETag"); a == b {
		t.Errorf("app.js and api.js share the ETag %s", a)
	}
}

// TestEveryModuleIsPreloaded: index.html names every module of the page in a
// modulepreload link, so the browser fetches them all at once instead of
// learning of each only when the module importing it has arrived.
func TestEveryModuleIsPreloaded(t *testing.T) {
	f := newFixture(t)
	page := f.do(t, "GET", "/", "", nil).Body.String()
	preloaded := map[string]bool{}
	for _, m := range regexp.MustCompile(`<link rel="modulepreload" href="static/([^"]+)">`).FindAllStringSubmatch(page, -1) {
		preloaded[m[1]] = true
	}
	static, _ := fs.Sub(staticFiles, "static")
	modules, _ := fs.Glob(static, "*.js")
	// The libraries the page's own modules import up front; cytoscape is
	// imported by the graph page alone, when it opens.
	modules = append(modules, "vendor/marked/marked.esm.js", "vendor/dompurify/purify.es.mjs")
	for _, m := range modules {
		if m != "app.js" && !preloaded[m] {
			t.Errorf("index.html has no modulepreload link for %s", m)
		}
		delete(preloaded, m)
	}
	for m := range preloaded {
		t.Errorf("index.html preloads %s, which is not a module of the page", path.Join("static", m))
	}
	if strings.Count(page, `rel="modulepreload"`) != len(modules)-1 {
		t.Errorf("%d modulepreload links for %d modules besides app.js", strings.Count(page, `rel="modulepreload"`), len(modules)-1)
	}
}
