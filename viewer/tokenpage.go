package viewer

import (
	"html/template"
	"net/http"
	"strings"
	"sync"

	"github.com/recall-mcp/recall/internal/httpauth"
)

// A person who opens a viewer served to other machines without its token
// gets a page that asks for it, not an API error: the form sends it as
// ?token=, which requireToken keeps in a cookie and takes out of the address.

// tokenPage is the page; it loads the viewer's style sheet and icon, which
// need no token (publicFile), and runs no script. It is parsed on first use:
// every recall process (each hook) links the viewer.
var tokenPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("token").Parse(tokenPageHTML))
})

const tokenPageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Token needed · Recall</title>
<link rel="stylesheet" href="{{.Base}}static/style.css">
<link rel="icon" href="{{.Base}}static/favicon.svg" type="image/svg+xml">
</head>
<body>
<header><span class="brand">Recall</span></header>
<main>
<form id="token-form" class="token-form" method="get" action="{{.Base}}">
  <h1>This viewer needs its token</h1>
  {{if .Wrong}}<p class="error" id="token-wrong" role="alert">That is not this viewer's token. Try again.</p>{{end}}
  <p>It is served to other machines, so it opens only with the token it was started with: the value of
    <code>RECALL_HTTP_TOKEN</code> on the server. This browser keeps it (as a cookie of this viewer) once accepted.</p>
  <label for="token">Token</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
  <p class="actions"><button type="submit">Open the viewer</button></p>
  <p class="muted">No token yet? Whoever runs the server makes one with <code>openssl rand -hex 32</code>,
    sets <code>RECALL_HTTP_TOKEN</code> to it and restarts <code>recall ui</code> or <code>recall serve</code>.</p>
</form>
</main>
</body>
</html>
`

// wantsPage reports whether a request without the token comes from a person
// opening a page (a browser's navigation), not from the page's API calls or
// a program.
func wantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// publicFile reports whether a request is for a file that holds no memory
// and may be served without the token: the style sheet and icon the token
// page uses (the page's scripts come with the rest of the viewer).
func publicFile(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	switch r.URL.Path {
	case "/static/style.css", "/static/favicon.svg", "/favicon.ico":
		return true
	}
	return false
}

// askToken answers with the token page (401, as the API would).
func askToken(w http.ResponseWriter, r *http.Request, wrong bool) {
	httpauth.Challenge(w.Header(), realm, wrong)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_ = tokenPage().Execute(w, struct {
		Base  string
		Wrong bool
	}{Base: mountPath(r), Wrong: wrong})
}
