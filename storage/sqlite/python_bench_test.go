package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/internal/pyrecall"
	"github.com/recall-mcp/recall/memory"
)

// BenchmarkOpenPythonRecall10k opens a Python Recall database of 10,000
// memories and 3,333 edges: backup, conversion in place, one transaction.
//
//	go test -tags sqlite_fts5 -run '^$' -bench OpenPythonRecall10k -benchtime 3x ./storage/
func BenchmarkOpenPythonRecall10k(b *testing.B) {
	data := pyrecall.Data{}
	for i := range 10000 {
		id := fmt.Sprintf("mem_%d_%08x", 1735689600000000+i, i)
		data.Memories = append(data.Memories, pyrecall.Memory{ID: id, Content: fmt.Sprintf("Memory %d: team %d SHOULD log request ids and retry idempotent calls.", i, i%97),
			Type: "pattern", Namespace: fmt.Sprintf("project:p%d", i%20), Importance: 0.5, Confidence: 0.3, CreatedAt: 1735689600 + float64(i), AccessedAt: 1735689600 + float64(i)})
		if i%3 == 1 {
			data.Edges = append(data.Edges, pyrecall.Edge{Source: id, Target: data.Memories[i-1].ID, Type: "relates_to", Weight: 1, CreatedAt: 1735689600 + float64(i)})
		}
	}
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "recall.db")
		if err := pyrecall.Create(path, data); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		db, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if n, _ := db.CountMemories(context.Background(), memoryFilterAll()); n != 10000 {
			b.Fatalf("%d memories after the migration, want 10000", n)
		}
		db.Close()
		b.StartTimer()
	}
}

func memoryFilterAll() memory.Filter { return memory.Filter{IncludeSuperseded: true} }
