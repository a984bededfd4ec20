// Package loopback says whether a host names this machine's loopback
// interface: the one check behind the HTTP server's and the viewer's defences
// against DNS rebinding and the refusal to listen where other machines reach.
package loopback

import (
	"net"
	"strings"
)

// HostName is the host of a Host header or listen address: without its port
// and without the brackets of an IPv6 address.
func HostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// IsName reports whether a host name without a port is loopback: localhost
// (in any case, as DNS names are) or a loopback IP address.
func IsName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsHost reports whether a Host header or address, with or without a port,
// names the loopback interface.
func IsHost(hostport string) bool { return IsName(HostName(hostport)) }
