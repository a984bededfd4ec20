package capture_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// BenchmarkObservation is the in-process cost of capturing one tool call with a
// 2 KB output: building the entry, scrubbing it and one write to a real
// database file. A hook process pays this plus its start and the database open.
func BenchmarkObservation(b *testing.B) {
	benchmarkObservation(b, strings.Repeat("ok  \tgithub.com/shop/api/orders\t0.412s\n", 50))
}

// BenchmarkObservationHugeOutput is the same with a 5 MB output.
func BenchmarkObservationHugeOutput(b *testing.B) {
	benchmarkObservation(b, strings.Repeat("orders row 12345 cached in redis ok\n", 5<<20/36))
}

func benchmarkObservation(b *testing.B, output string) {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "recall.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rec := &capture.Recorder{Store: db}
	in, _ := json.Marshal(map[string]string{"command": "go test ./orders/..."})
	resp, _ := json.Marshal(map[string]string{"stdout": output})
	a := capture.Anchor{Namespace: "project:shop", SessionID: "s1"}
	for b.Loop() {
		if _, err := rec.Observation(context.Background(), a, capture.Tool{Name: "Bash", Input: in, Response: resp}); err != nil {
			b.Fatal(err)
		}
	}
}
