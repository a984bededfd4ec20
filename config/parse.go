package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/recall-mcp/recall/internal/loopback"
	"github.com/recall-mcp/recall/memory"
)

// parser turns raw values into typed ones, collecting an *Error for each bad
// value so Load reports them all.
type parser struct {
	errs []error
}

// value returns the trimmed value, or the variable's default when empty.
func (p *parser) value(name, raw string) string {
	if v := strings.TrimSpace(raw); v != "" {
		return v
	}
	return setting(name).Default
}

func (p *parser) bad(name, raw string) {
	p.errs = append(p.errs, &Error{Name: name, Value: raw, Accepts: setting(name).Accepts})
}

func (p *parser) text(name, raw string) string { return p.value(name, raw) }

// databaseURL accepts "" (the SQLite file) or a postgres:// URL.
func (p *parser) databaseURL(name, raw string) string {
	v := p.value(name, raw)
	if v != "" && !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
		p.bad(name, raw)
		return ""
	}
	return v
}

func (p *parser) path(name, raw string) string {
	v, err := ExpandHome(p.value(name, raw))
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("%s=%s: %w", name, raw, err))
	}
	return v
}

// list splits a comma-separated value, each item trimmed and ~ expanded.
func (p *parser) list(name, raw string) []string {
	var out []string
	for _, item := range strings.Split(p.value(name, raw), ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, p.path(name, item))
		}
	}
	return out
}

func (p *parser) fraction(name, raw string) float64 {
	f, err := strconv.ParseFloat(p.value(name, raw), 64)
	if err != nil || !(f >= 0 && f <= 1) { // also rejects NaN
		p.bad(name, raw)
		return 0
	}
	return f
}

// integer parses a whole number in [lo, hi]; hi 0 means no upper bound.
func (p *parser) integer(name, raw string, lo, hi int) int {
	n, err := strconv.Atoi(p.value(name, raw))
	if err != nil || n < lo || (hi != 0 && n > hi) {
		p.bad(name, raw)
		return 0
	}
	return n
}

// duration accepts a number of seconds ("30", "1.5") or a Go duration ("2s").
func (p *parser) duration(name, raw string) time.Duration {
	v := p.value(name, raw)
	d, err := time.ParseDuration(v)
	if secs, numErr := strconv.ParseFloat(v, 64); numErr == nil {
		// a bare number is seconds; NaN, infinities and centuries are refused
		if !(secs > 0 && secs < 1e9) {
			p.bad(name, raw)
			return 0
		}
		d, err = time.Duration(secs*float64(time.Second)), nil
	}
	if err != nil || d <= 0 {
		p.bad(name, raw)
		return 0
	}
	return d
}

func (p *parser) logLevel(name, raw string) string {
	switch v := strings.ToUpper(p.value(name, raw)); v {
	case "DEBUG", "INFO", "ERROR":
		return v
	case "WARNING", "WARN":
		return "WARNING"
	}
	p.bad(name, raw)
	return ""
}

func (p *parser) onOff(name, raw string) bool {
	switch strings.ToLower(p.value(name, raw)) {
	case "on", "true", "yes", "1":
		return true
	case "off", "false", "no", "0":
		return false
	}
	p.bad(name, raw)
	return false
}

// choice accepts one of the given words, in any case.
func (p *parser) choice(name, raw string, words ...string) string {
	v := strings.ToLower(p.value(name, raw))
	for _, w := range words {
		if v == w {
			return v
		}
	}
	p.bad(name, raw)
	return ""
}

func (p *parser) namespace(name, raw string) string {
	v := p.value(name, raw)
	if memory.ValidateNamespace(v) != nil {
		p.bad(name, raw)
	}
	return v
}

// project reads a pinned project: empty, a name or "project:<name>", returned
// as its namespace.
func (p *parser) project(name, raw string) string {
	v := strings.TrimSpace(raw)
	if v == "" {
		return ""
	}
	ns := memory.ProjectNamespace(strings.TrimPrefix(v, memory.ProjectNamespacePref))
	if memory.ValidateNamespace(ns) != nil {
		p.bad(name, raw)
		return ""
	}
	return ns
}

// host reads an Ollama address the way Ollama reads OLLAMA_HOST: the scheme is
// optional (http), and so is the port (11434 without a scheme, else the scheme's
// own); a path is kept, for Ollama behind a proxy.
func (p *parser) host(name, raw string) string {
	v := p.value(name, raw)
	scheme, hostport, hasScheme := strings.Cut(v, "://")
	defaultPort := "11434"
	switch {
	case !hasScheme:
		scheme, hostport = "http", v
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		p.bad(name, raw)
		return ""
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" || strings.ContainsAny(host, " /?#@") {
		p.bad(name, raw)
		return ""
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u.String()
}

// optionalPort is a TCP port, or 0 when unset (the caller picks one).
func (p *parser) optionalPort(name, raw string) int {
	if strings.TrimSpace(raw) == "" {
		return 0
	}
	return p.integer(name, raw, 1, 65535)
}

// serverURL accepts a team server's URL: https, or http to a loopback
// address only (a token sent in the clear to another machine is a token
// given away).
func (p *parser) serverURL(name, raw string) string {
	v := strings.TrimRight(strings.TrimSpace(raw), "/")
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	ok := err == nil && u.Host != "" && (u.Scheme == "https" || (u.Scheme == "http" && loopback.IsHost(u.Host)))
	if !ok {
		p.errs = append(p.errs, &Error{Name: name, Value: raw, Accepts: "an https:// URL (http:// only to 127.0.0.1, [::1] or localhost)"})
		return ""
	}
	return v
}
