package viewer

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/recall-mcp/recall/internal/httpauth"
	"github.com/recall-mcp/recall/internal/loopback"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/team"
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
	// Auth, when set, tells who a token or cookie belongs to (the
	// administrator or a person of the team) in place of Token alone; each
	// request then acts as that person.
	Auth Authenticator
}

// Authenticator tells who a token or a cookie derived from it belongs to
// (team.Authenticator), and whether requests must carry one.
type Authenticator interface {
	Token(ctx context.Context, token string) (memory.Principal, error)
	Cookie(ctx context.Context, cookie string) (memory.Principal, error)
	Required(ctx context.Context) (bool, error)
}

// authenticator is a.Auth, or the administrator's token alone.
func (a Access) authenticator() Authenticator {
	if a.Auth != nil {
		return a.Auth
	}
	return team.Authenticator{AdminToken: a.Token}
}

// guarded reports whether requests are checked for a token.
func (a Access) guarded() bool { return a.Token != "" || a.Auth != nil }

// accessInfo is GET /api/access: what the page needs to know to show the
// right controls. It says whether a token is required, never the token.
type accessInfo struct {
	ReadOnly      bool   `json:"read_only"`
	TokenRequired bool   `json:"token_required"`
	Person        string `json:"person,omitempty"` // whose token opened the viewer
}

func (h *handler) access(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, accessInfo{ReadOnly: h.acc.ReadOnly, TokenRequired: h.acc.guarded(),
		Person: memory.PrincipalFrom(r.Context()).Person})
}

// tokenCookie holds a value derived from the token rather than the token
// itself (team.CookieValue): a leaked cookie opens the viewer, not the MCP
// transport the same token guards.
const tokenCookie = "recall_viewer"

// requireToken lets through requests that carry a token of the
// administrator or a person: a cookie set earlier, a bearer header, or
// ?token= on a GET, which sets the cookie and redirects to the same URL
// without the token, so it stays out of the address bar, the history and
// later Referers. Each request goes on as its person (memory.Principal),
// whom the store's visibility rule reads. Without a token a request passes
// only while none is required (a loopback server with no people).
func requireToken(a Access, next http.Handler) http.Handler {
	auth := a.authenticator()
	as := func(w http.ResponseWriter, r *http.Request, p memory.Principal) {
		next.ServeHTTP(w, r.WithContext(memory.WithPrincipal(r.Context(), p)))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if publicFile(r) {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		if q := r.URL.Query(); q.Has("token") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			tok := q.Get("token")
			if _, err := auth.Token(ctx, tok); err != nil {
				if wantsPage(r) {
					askToken(w, r, true)
					return
				}
				unauthorized(w, true, "wrong token in ?token=: open the viewer with your token (or RECALL_HTTP_TOKEN), as ?token=<token>")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: team.CookieValue(tok), Path: mountPath(r),
				HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			w.Header().Set("Cache-Control", "no-store")
			http.Redirect(w, r, withoutToken(r), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(tokenCookie); err == nil {
			if p, err := auth.Cookie(ctx, c.Value); err == nil {
				as(w, r, p)
				return
			}
		}
		if got := httpauth.BearerToken(r); got != "" {
			p, err := auth.Token(ctx, got)
			if err != nil {
				unauthorized(w, true, "wrong bearer token: it is not RECALL_HTTP_TOKEN nor a person's current token (replaced, or the person was removed?)")
				return
			}
			as(w, r, p)
			return
		}
		if required, err := auth.Required(ctx); err == nil && !required {
			next.ServeHTTP(w, r)
			return
		}
		if wantsPage(r) {
			askToken(w, r, false)
			return
		}
		unauthorized(w, false, "this viewer needs a token (yours, from recall users token NAME, or RECALL_HTTP_TOKEN): open it once as /?token=<token>, "+
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

// realm names the viewer in its token challenges.
const realm = "recall viewer"

func unauthorized(w http.ResponseWriter, wrong bool, msg string) {
	httpauth.Challenge(w.Header(), realm, wrong)
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
