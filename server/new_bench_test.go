package server

import (
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// BenchmarkNew measures building the server with its tools (schema inference
// and resolution), which every `recall serve` start pays before it answers
// initialize.
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkNew ./server/
func BenchmarkNew(b *testing.B) {
	mem := memory.NewService(nil, nil, memory.Options{})
	for b.Loop() {
		New(Deps{Memory: mem})
	}
}
