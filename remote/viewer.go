package remote

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/recall-mcp/recall/internal/loopback"
)

// ViewerProxy serves the team server's viewer (/ui/) on this machine: the
// page and its API go to the server with the person's token, so the browser
// never holds it. Like the local viewer it answers loopback Hosts only and
// refuses changes from other sites' pages.
func (c *Client) ViewerProxy() (http.Handler, error) {
	target, err := url.Parse(c.URL)
	if err != nil {
		return nil, err
	}
	proxy := &httputil.ReverseProxy{
		Transport: c.HTTP.Transport,
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.URL.Path = strings.TrimSuffix(target.Path, "/") + "/ui" + r.In.URL.Path
			r.Out.URL.RawPath = ""
			r.Out.Host = target.Host
			// The browser's page is this proxy's: the origin checks were
			// made here, and the server sees a request from this program.
			r.Out.Header.Del("Origin")
			r.Out.Header.Del("Referer")
			r.Out.Header.Del("Cookie")
			r.Out.Header.Set("Sec-Fetch-Site", "same-origin")
		},
		// Live updates (SSE) are passed on as they come.
		FlushInterval: -1,
	}
	cop := http.NewCrossOriginProtection()
	guarded := cop.Handler(proxy)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopback.IsHost(r.Host) {
			http.Error(w, "Host "+r.Host+" refused: open the viewer at 127.0.0.1, [::1] or localhost", http.StatusForbidden)
			return
		}
		guarded.ServeHTTP(w, r)
	}), nil
}
