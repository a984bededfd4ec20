// Package remote makes this machine a client of a team's Recall server
// (RECALL_SERVER_URL, RECALL_TOKEN): an HTTP client that verifies the
// server's certificate and sends the person's token, an MCP session to it
// that survives the server's restarts, and the hooks' requests with the
// spool of the events that could not be sent.
package remote

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/recall-mcp/recall/project"
)

// Client reaches the team server.
type Client struct {
	// URL is the server's base URL (MCP is served there, the hooks under
	// /hook).
	URL string
	// HTTP sends the token with every request and verifies the server's
	// certificate against the system's authorities and RECALL_SERVER_CA.
	HTTP *http.Client
}

// New returns a client of the server at url (already checked: https, or
// http to loopback) with token; caFile, when set, names a PEM file of
// authorities trusted beside the system's.
func New(url, token, caFile string) (*Client, error) {
	if token == "" {
		return nil, errors.New("RECALL_SERVER_URL is set but RECALL_TOKEN is empty: set it to your token on the team server (recall users token NAME there prints a new one)")
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 16
	if strings.HasPrefix(url, "https://") {
		// Reading the system's authorities costs a hook about 20 ms: only
		// for a server that needs them.
		tlsConfig, err := tlsConfig(caFile)
		if err != nil {
			return nil, err
		}
		base.TLSClientConfig = tlsConfig
	}
	return &Client{
		URL:  strings.TrimRight(url, "/"),
		HTTP: &http.Client{Transport: bearer{token: token, next: base}},
	}, nil
}

// tlsConfig trusts the system's authorities and those in caFile.
func tlsConfig(caFile string) (*tls.Config, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("RECALL_SERVER_CA: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("RECALL_SERVER_CA=%s holds no PEM certificate", caFile)
		}
	}
	return &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, nil
}

// bearer adds the token to every request, and this machine's project when
// the request's context carries it (project.WithClient), so the server
// scopes the request to the project this machine is in.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if c, ok := project.ClientFrom(r.Context()); ok && r.Header.Get(project.Header) == "" {
		r.Header.Set(project.Header, c.Encode())
	}
	return b.next.RoundTrip(r)
}
