// Package httpauth reads the bearer token a request carries and words the
// challenge of a refusal (RFC 6750), alike for the MCP transport over HTTP
// and the viewer.
package httpauth

import (
	"net/http"
	"strings"
)

// BearerToken is the token of an "Authorization: Bearer <token>" header (the
// scheme in any case, as HTTP's are), or "" when the request carries no
// bearer token: no header, another scheme, or no token after the scheme.
func BearerToken(r *http.Request) string {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// Challenge sets the WWW-Authenticate header of a 401 answer for realm.
// invalid says a token was sent and refused (error="invalid_token"); a
// request without one gets no error code (RFC 6750, 3.1). The challenge
// carries no OAuth metadata, so clients ask their user for the token rather
// than start an OAuth flow.
func Challenge(h http.Header, realm string, invalid bool) {
	challenge := `Bearer realm="` + realm + `"`
	if invalid {
		challenge += `, error="invalid_token"`
	}
	h.Set("WWW-Authenticate", challenge)
}
