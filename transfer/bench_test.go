package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// bulkExport is a Recall export of n memories of ~200 bytes each, a third of
// them linked to the one before.
func bulkExport(n int) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.Encode(header{Record: KindHeader, Format: Format, Version: Version, ExportedAt: time.Now()})
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]string, n)
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		ids[i] = memory.NewID(at)
		content := fmt.Sprintf("Memory %d: services in team %d SHOULD log request ids, retry idempotent calls at most %d times and keep handlers small.", i, i%97, i%5+1)
		enc.Encode(memoryRecord{Record: KindMemory, Memory: memory.Memory{ID: ids[i], Content: content, Type: memory.Types[i%5],
			Namespace: fmt.Sprintf("project:p%d", i%20), Importance: 0.5, Confidence: 0.3, CreatedAt: at, UpdatedAt: at, AccessedAt: at}})
		if i%3 == 1 {
			enc.Encode(edgeRecord{Record: KindEdge, SourceID: ids[i], TargetID: ids[i-1], Relation: memory.RelationRelatesTo, Weight: 1, CreatedAt: at})
		}
	}
	return buf.Bytes()
}

// BenchmarkImport10k imports 10,000 memories (and 3,333 edges) into an empty
// database without Ollama: vectors are left for later.
//
//	go test -tags sqlite_fts5 -run '^$' -bench Import10k -benchtime 3x ./transfer/
func BenchmarkImport10k(b *testing.B) {
	data := bulkExport(10000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		b.StopTimer()
		db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bulk.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := Import(context.Background(), db, bytes.NewReader(data), ImportOptions{})
		if err != nil || rep.Result.Memories != 10000 || len(rep.BadLines) != 0 {
			b.Fatalf("import: %v %+v", err, rep)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
}
