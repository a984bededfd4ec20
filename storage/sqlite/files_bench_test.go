package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/recall-mcp/recall/internal/benchreport"
)

// seedFileActivity writes rows touches of files files, spread over the last
// days days, straight into the database (one transaction).
func seedFileActivity(tb testing.TB, db *DB, rows, files, days int, now time.Time) {
	tb.Helper()
	tx, err := db.SQL().Begin()
	if err != nil {
		tb.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO file_activity (file_path, action, session_id, project_root, file_type, created_at)
		VALUES (?, ?, 's', ?, 'go', ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	span := time.Duration(days) * 24 * time.Hour
	for i := range rows {
		f := r.IntN(files)
		at := now.Add(-span + time.Duration(i)*span/time.Duration(rows))
		root := []string{"/src/shop", "/src/billing"}[f%2]
		if _, err := stmt.Exec(fmt.Sprintf("%s/pkg%d/file%d.go", root, f%50, f), []string{"read", "edit", "write"}[r.IntN(3)], root, formatTime(at)); err != nil {
			tb.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRecentFiles is file_activity_recent's query over 100k touches of 5k
// files in the last 14 days, with the tool's defaults (20 files, 14 days).
func BenchmarkRecentFiles(b *testing.B) {
	ctx := context.Background()
	db := openTest(b)
	now := time.Now()
	seedFileActivity(b, db, 100_000, 5_000, 14, now)
	for _, root := range []string{"", "/src/shop"} {
		b.Run("project="+root, func(b *testing.B) {
			var lat benchreport.Latencies
			for b.Loop() {
				lat.Time(func() {
					files, err := db.RecentFiles(ctx, root, now.Add(-14*24*time.Hour), 20)
					if err != nil || len(files) != 20 {
						b.Fatalf("%d files, %v", len(files), err)
					}
				})
			}
			lat.Report(b, 90)
		})
	}
}
