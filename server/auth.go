package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/internal/httpauth"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/team"
)

// Authenticator tells who a token belongs to (team.Authenticator).
type Authenticator interface {
	Token(ctx context.Context, token string) (memory.Principal, error)
	Required(ctx context.Context) (bool, error)
}

// principalKey is the key of TokenInfo.Extra that carries the principal from
// the HTTP request to the tool call.
const principalKey = "recall_principal"

// authenticate lets through requests whose bearer token names the
// administrator or a person, and requests without one only while no token is
// required (no RECALL_HTTP_TOKEN and no people). A wrong, replaced or removed
// token gets 401 with "WWW-Authenticate: Bearer" (without OAuth metadata, so
// clients ask for the token rather than start an OAuth flow). Who asks goes on
// as the SDK's TokenInfo, which also ties each MCP session to its person.
func authenticate(a Authenticator, next http.Handler) http.Handler {
	withToken := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		p, _ := ctx.Value(principalCtxKey{}).(memory.Principal)
		return &auth.TokenInfo{UserID: userID(p), Extra: map[string]any{principalKey: p}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := httpauth.BearerToken(r)
		if got == "" {
			required, err := a.Required(r.Context())
			if err != nil {
				writeRPCError(w, http.StatusServiceUnavailable, nil, -32603, "could not check who may connect: "+err.Error())
				return
			}
			if required {
				unauthorized(w, false, "missing bearer token: send \"Authorization: Bearer <token>\" with your token (recall users token NAME makes one) or RECALL_HTTP_TOKEN")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		p, err := a.Token(r.Context(), got)
		if team.IsUnknown(err) {
			unauthorized(w, true, "wrong bearer token: it is not RECALL_HTTP_TOKEN nor a person's current token (replaced, or the person was removed?)")
			return
		}
		if err != nil {
			writeRPCError(w, http.StatusServiceUnavailable, nil, -32603, "could not check the token: "+err.Error())
			return
		}
		withToken.ServeHTTP(w, r.WithContext(memory.WithPrincipal(context.WithValue(r.Context(), principalCtxKey{}, p), p)))
	})
}

type principalCtxKey struct{}

// userID names a principal for the SDK's session check.
func userID(p memory.Principal) string {
	if p.Person != "" {
		return "person:" + p.Person
	}
	return "admin"
}

func unauthorized(w http.ResponseWriter, wrong bool, msg string) {
	httpauth.Challenge(w.Header(), "recall", wrong)
	writeRPCError(w, http.StatusUnauthorized, nil, -32600, msg)
}

// asPrincipal gives every request of an HTTP session the context of who
// asks, read from the token its HTTP request carried; the store's visibility
// rule reads it there. Requests over stdio carry none: this machine's own
// process sees everything.
//
// A client machine's project (project.Header) goes on the same way: the
// resolver answers with it rather than with paths of that machine.
func asPrincipal(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if extra != nil && extra.TokenInfo != nil {
			if p, ok := extra.TokenInfo.Extra[principalKey].(memory.Principal); ok {
				ctx = memory.WithPrincipal(ctx, p)
			} else {
				return nil, fmt.Errorf("%s: the request carries a token of unknown form", method)
			}
		}
		if extra != nil {
			var err error
			if ctx, err = withClientProject(ctx, extra.Header); err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
		}
		return next(ctx, method, req)
	}
}

// withClientProject returns ctx carrying the project a client machine sent
// in header, if it sent one.
func withClientProject(ctx context.Context, header http.Header) (context.Context, error) {
	v := header.Get(project.Header)
	if v == "" {
		return ctx, nil
	}
	c, err := project.ParseClient(v)
	if err != nil {
		return ctx, memory.Invalidf("header", project.Header, err.Error())
	}
	return project.WithClient(ctx, c), nil
}
