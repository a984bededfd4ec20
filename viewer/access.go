package viewer

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/recall-mcp/recall/internal/loopback"
)

// Access says who may use the viewer. The zero value is the viewer of this
// machine alone: loopback Hosts, no token, changes allowed.
type Access struct {
	// Token, when set, is required from every request: the viewer is served
	// on an address other machines reach. A browser presents it once as
	// ?token=…, and keeps a cookie derived from it; programs send
	// "Authorization: Bearer <token>".
	Token string
	// Hosts are the names (besides loopback ones and IP addresses) a
	// request's Host may carry when Token is set: the names people type.
	Hosts []string
	// ReadOnly refuses every change with 403.
	ReadOnly bool
}

// accessInfo is GET /api/access: what the page needs to know to show the
// right controls. It says whether a token is required, never the token.
type accessInfo struct {
	ReadOnly      bool `json:"read_only"`
	TokenRequired bool `json:"token_required"`
}

func (h *handler) access(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, accessInfo{ReadOnly: h.acc.ReadOnly, TokenRequired: h.acc.Token != ""})
}

// tokenCookie holds a value derived from the token rather than the token
// itself: a leaked cookie opens the viewer, not the MCP transport the same
// token guards.
const tokenCookie = "recall_viewer"

func cookieValue(token string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("recall viewer cookie v1"))
	return hex.EncodeToString(mac.Sum(nil))
}

func sameSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// requireToken lets through requests that carry the token: a cookie set
// earlier, a bearer header, or ?token= on a GET, which sets the cookie and
// redirects to the same URL without the token, so it stays out of the
// address bar, the history and later Referers.
func requireToken(a Access, next http.Handler) http.Handler {
	cookie := cookieValue(a.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if publicFile(r) {
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has("token") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			if !sameSecret(q.Get("token"), a.Token) {
				if wantsPage(r) {
					askToken(w, r, true)
					return
				}
				unauthorized(w, true, "wrong token in ?token=: open the viewer with the value of RECALL_HTTP_TOKEN, as ?token=<token>")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: cookie, Path: mountPath(r),
				HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			w.Header().Set("Cache-Control", "no-store")
			http.Redirect(w, r, withoutToken(r), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(tokenCookie); err == nil && sameSecret(c.Value, cookie) {
			next.ServeHTTP(w, r)
			return
		}
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if strings.EqualFold(scheme, "Bearer") && sameSecret(strings.TrimSpace(got), a.Token) {
			next.ServeHTTP(w, r)
			return
		}
		if wantsPage(r) {
			askToken(w, r, false)
			return
		}
		unauthorized(w, got != "", "this viewer needs its token (the value of RECALL_HTTP_TOKEN): open it once as /?token=<token>, "+
			"which keeps it in a cookie, or send \"Authorization: Bearer <token>\"")
	})
}

// mountPath is where the viewer is served ("/", or "/ui/" under recall
// serve): the cookie goes to the viewer alone, not to MCP or another viewer
// of the same host.
func mountPath(r *http.Request) string {
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil || !strings.HasSuffix(u.Path, r.URL.Path) {
		return "/"
	}
	return strings.TrimSuffix(u.Path[:len(u.Path)-len(r.URL.Path)], "/") + "/"
}

func unauthorized(w http.ResponseWriter, wrong bool, msg string) {
	challenge := `Bearer realm="recall viewer"`
	if wrong {
		challenge += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	writeError(w, http.StatusUnauthorized, msg)
}

// withoutToken is the URL the request asked for (before any prefix was
// stripped) without its token parameter.
func withoutToken(r *http.Request) string {
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil || r.RequestURI == "" {
		u = &url.URL{Path: r.URL.Path, RawQuery: r.URL.RawQuery}
	}
	q := u.Query()
	q.Del("token")
	// A path starting "//" would read as another host in Location: keep it on this one.
	path := "/" + strings.TrimLeft(u.Path, "/")
	return (&url.URL{Path: path, RawQuery: q.Encode()}).RequestURI()
}

// refuseWrites answers every method that changes something with 403.
func refuseWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
		default:
			writeError(w, http.StatusForbidden, "the viewer is read-only: it is served to other machines, which may look but not change; "+
				"restart it with --writable (recall ui --writable, or recall serve --writable) to allow changes")
		}
	})
}

// allowedHost reports whether a request's Host header names this viewer.
// Loopback names always do. With a token (served to other machines) so does
// any IP address, which no DNS rebinding can produce, and the names in
// a.Hosts; any other name may be a page that rebound its DNS to this server.
func allowedHost(a Access, host string) bool {
	if loopback.IsHost(host) {
		return true
	}
	if a.Token == "" {
		return false
	}
	host = loopback.HostName(host)
	if net.ParseIP(host) != nil {
		return true
	}
	return host != "" && slices.ContainsFunc(a.Hosts, func(n string) bool { return strings.EqualFold(n, host) })
}
