package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParseFlagsInAnyOrder(t *testing.T) {
	for _, tc := range []struct {
		args []string
		n    int
		rest []string
	}{
		{[]string{"-n", "3", "redis", "cache"}, 3, []string{"redis", "cache"}},
		{[]string{"redis", "-n", "3", "cache"}, 3, []string{"redis", "cache"}},
		{[]string{"redis", "--", "-n", "3"}, 5, []string{"redis", "-n", "3"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 5, "")
		rest, err := parseFlags(fs, tc.args)
		if err != nil || *n != tc.n || !slices.Equal(rest, tc.rest) {
			t.Errorf("parseFlags(%q) = %q, n=%d, %v; want %q, n=%d", tc.args, rest, *n, err, tc.rest, tc.n)
		}
	}
}

func TestParseFlagsRefusesUnknownFlag(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, err := parseFlags(fs, []string{"--colour", "red"})
	if _, ok := err.(usageError); !ok {
		t.Fatalf("unknown flag gave %v, want a usage error", err)
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8765": true, "localhost:8765": true, "[::1]:8765": true,
		"0.0.0.0:8765": false, ":8765": false, "192.168.1.4:8765": false, "nonsense": false,
	} {
		if err := checkLoopback(addr); (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v, want allowed %v", addr, err, ok)
		}
	}
}
