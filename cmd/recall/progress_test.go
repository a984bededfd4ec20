package main

import (
	"bytes"
	"testing"
)

func TestProgressWritesLinesOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false)
	p.show("indexing "+barLine(50<<20, 100<<20), false)
	p.show("indexing "+barLine(60<<20, 100<<20), false) // moments later: left out
	p.show("indexing "+barLine(100<<20, 100<<20), true)
	p.end(true)
	want := "indexing [##########          ]  50% 52.4 of 104.9 MB\nindexing [####################] 100% 104.9 of 104.9 MB\n"
	if buf.String() != want {
		t.Errorf("progress = %q, want %q", buf.String(), want)
	}
	if isTerminal(&buf) {
		t.Error("a buffer is not a terminal")
	}
	var quiet bytes.Buffer
	q := newProgress(&quiet, true)
	q.show("importing 50%", false)
	q.end(false)
	if quiet.Len() != 0 {
		t.Errorf("quiet progress off a terminal wrote %q", quiet.String())
	}
}
