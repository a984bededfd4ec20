package viewer

import (
	"log/slog"
	"net/http"
)

// contentSecurityPolicy lets the page load only its own files: no inline
// scripts or styles, no other origin, no framing. Memories are written by
// agents, so even a rendering mistake must not be able to run a script.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// secure wraps the viewer in its checks, outermost first: a loopback Host (a
// page on another site that rebinds its DNS name to 127.0.0.1 arrives with its
// own name in Host; see allowedHost for a viewer served to other machines),
// the response headers, the token when there is one, the refusal of changes
// when read-only, then Go's cross-origin protection for every method that
// changes something.
func secure(next http.Handler, acc Access, log *slog.Logger) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Warn("viewer: cross-origin request refused", "method", r.Method, "path", r.URL.Path, "origin", r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, "cross-origin request refused: changes are accepted only from the viewer's own page")
	}))
	inner := cop.Handler(next)
	if acc.ReadOnly {
		inner = refuseWrites(inner)
	}
	if acc.guarded() {
		inner = requireToken(acc, inner)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowedHost(acc, r.Host) {
			log.Warn("viewer: request for a foreign host refused", "host", r.Host, "path", r.URL.Path)
			msg := "Host " + quote(r.Host) + " refused: open the viewer at 127.0.0.1, [::1] or localhost"
			if acc.Token != "" {
				msg = "Host " + quote(r.Host) + " refused: open the viewer at an IP address of this machine, or add the name with --hostname"
			}
			writeError(w, http.StatusForbidden, msg)
			return
		}
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		inner.ServeHTTP(w, r)
	})
}
