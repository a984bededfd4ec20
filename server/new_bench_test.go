package server

import "testing"

// BenchmarkNew measures building the server with its 18 tools (schema
// inference and resolution), which every `recall serve` start pays.
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkNew ./server/
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Deps{})
	}
}
