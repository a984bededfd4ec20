package viewer

import (
	"context"
	"testing"
	"time"
)

// BenchmarkChangedSince is the live updates' read of the memories changed
// lately over 100k memories, after a commit that changed none of them (an
// access count, a journal entry): the updated_at index answers without
// reading the table.
func BenchmarkChangedSince(b *testing.B) {
	f := benchFixture(b)
	ctx := context.Background()
	w, err := f.db.Watch(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	since := time.Now().Add(-lookBehind)
	for b.Loop() {
		c, err := w.ChangedSince(ctx, since, maxPerEvent)
		if err != nil || c.Total != benchMemories {
			b.Fatalf("changes %+v, %v", c, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/poll")
}
