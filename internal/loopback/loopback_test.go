package loopback

import "testing"

func TestIsHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost:8080": true, "127.0.0.1": true, "127.0.0.2:1": true,
		"[::1]:8765": true, "::1": true, "[::1]": true,
		"example.com": false, "localhost.evil.com": false, "10.0.0.1:80": false, "": false,
		"0.0.0.0:8765": false,
	} {
		if got := IsHost(host); got != want {
			t.Errorf("IsHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestHostName(t *testing.T) {
	for in, want := range map[string]string{"[::1]:80": "::1", "a.b:1": "a.b", "a.b": "a.b", "[fe80::1]": "fe80::1"} {
		if got := HostName(in); got != want {
			t.Errorf("HostName(%q) = %q, want %q", in, got, want)
		}
	}
}
