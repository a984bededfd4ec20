package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressBarDrawsOneLine(t *testing.T) {
	var buf bytes.Buffer
	bar := progressBar(&buf)
	bar(50<<20, 100<<20)
	bar(100<<20, 100<<20)
	out := buf.String()
	if !strings.Contains(out, "\r[##########          ]  50% 52.4 of 104.9 MB") || !strings.HasSuffix(out, "100% 104.9 of 104.9 MB\n") {
		t.Errorf("progress %q", out)
	}
	if isTerminal(&buf) {
		t.Error("a buffer is not a terminal")
	}
}
