package capture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// BenchmarkToolCallTurn is what post-tool-use spends finding its turn in a
// 50 MB transcript of tool work (results of 16 KB, as Read and Bash answer):
// the transcript's last 256 KB read and decoded (tail, as before) against the
// journal's last capture (journal).
//
//	go test -tags sqlite_fts5 -run XXX -bench ToolCallTurn ./capture/
func BenchmarkToolCallTurn(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	var buf bytes.Buffer
	buf.WriteString(`{"type":"user","uuid":"turn-1","message":{"role":"user","content":"cache the orders"}}` + "\n")
	output := strings.Repeat("orders row 12345 cached in redis ok ", 16<<10/36)
	for i := 0; buf.Len() < 50<<20; i++ {
		fmt.Fprintf(&buf, `{"type":"assistant","uuid":"a-%d","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{}}]}}`+"\n", i, i)
		fmt.Fprintf(&buf, `{"type":"user","uuid":"r-%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]}}`+"\n", i, i, output)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(dir, "recall.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rec := &capture.Recorder{Store: db}
	e, err := rec.ObservationEntry(capture.Anchor{Namespace: "project:shop", SessionID: "s1", TurnID: "turn-1", TranscriptPath: path,
		TranscriptOffset: capture.TranscriptSize(path)}, capture.Tool{Name: "Bash", Input: json.RawMessage(`{}`), Response: json.RawMessage(`"ok"`)})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.AddEntry(ctx, e); err != nil {
		b.Fatal(err)
	}
	b.Run("tail", func(b *testing.B) {
		for b.Loop() {
			capture.LastUserTurn(path)
		}
	})
	b.Run("journal", func(b *testing.B) {
		for b.Loop() {
			if rec.Turn(ctx, "s1", path) != "turn-1" {
				b.Fatal("wrong turn")
			}
		}
	})
}
