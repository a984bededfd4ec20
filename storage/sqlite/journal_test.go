package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
)

// The journal's store: a sqlite.DB keeps the session journal capture writes.
var _ capture.Store = (*DB)(nil)

func addEntry(t *testing.T, db *DB, session, title string, at time.Time) int64 {
	t.Helper()
	id, err := db.AddEntry(context.Background(), &capture.Entry{Kind: capture.KindObservation, Namespace: "project:shop",
		SessionID: session, Title: title, Body: title + " (full record)", Files: []string{"/src/a.go"}, CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestJournalSearchAroundAndForget(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var ids []int64
	for i, title := range []string{"Read orders.go", "Edit orders.go: cache orders in Redis", "Bash: go test ./orders", "Edit billing.go"} {
		ids = append(ids, addEntry(t, db, "s1", title, t0.Add(time.Duration(i)*time.Minute)))
	}
	other := addEntry(t, db, "s2", "Edit cache.go: Redis client", t0.Add(48*time.Hour))

	hits, err := db.SearchEntries(ctx, `redis" OR *`, []string{"project:shop"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("search redis: %d hits, want 2", len(hits))
	}
	if hits, _ := db.SearchEntries(ctx, "redis", []string{"project:other"}, 10); len(hits) != 0 {
		t.Fatalf("search leaked across namespaces: %v", hits)
	}

	around, err := db.Around(ctx, ids[1], 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(around) != 3 || around[0].ID != ids[0] || around[1].ID != ids[1] || around[2].ID != ids[2] {
		t.Fatalf("around %d: %+v", ids[1], around)
	}
	if got, _ := db.Entries(ctx, []int64{other, ids[0], 9999}); len(got) != 2 || got[0].ID != other || got[1].Files[0] != "/src/a.go" {
		t.Fatalf("entries: %+v", got)
	}

	if err := db.QueueSummary(ctx, "s1", "stop", "turn-1"); err != nil {
		t.Fatal(err)
	}
	n, _, err := db.ForgetEntries(ctx, "s1", time.Time{})
	if err != nil || n != 4 {
		t.Fatalf("forget session s1: %d, %v", n, err)
	}
	if hits, _ := db.SearchEntries(ctx, "orders", nil, 10); len(hits) != 0 {
		t.Fatalf("forgotten entries still found: %d", len(hits))
	}
	if jobs, _ := db.ClaimJobs(ctx, []string{capture.SummaryJobKind}, 10, time.Minute); len(jobs) != 0 {
		t.Fatalf("forgotten session's summary job still queued: %+v", jobs)
	}
	if n, _, _ := db.ForgetEntries(ctx, "", t0.Add(72*time.Hour)); n != 1 {
		t.Fatalf("forget before: %d, want 1", n)
	}
}

func TestSummaryJobsOnePerSessionInTheJobQueue(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	summary := []string{capture.SummaryJobKind}
	for _, turn := range []string{"t1", "t2"} {
		if err := db.QueueSummary(ctx, "s1", "stop", turn); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ClaimJobs(ctx, summary, 10, time.Minute)
	if err != nil || len(got) != 1 || got[0].Subject != "s1" || got[0].Attempts != 1 {
		t.Fatalf("claim: %+v, %v", got, err)
	}
	if again, _ := db.ClaimJobs(ctx, summary, 10, time.Minute); len(again) != 0 {
		t.Fatalf("a leased job was claimed twice: %+v", again)
	}
	if err := db.SetDraftSummary(ctx, "s1", "mem_1_aaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	if p, _ := db.SummaryProgress(ctx, "s1"); p.DraftMemoryID != "mem_1_aaaaaaaa" || p.Through != 0 {
		t.Fatalf("progress with a draft: %+v", p)
	}
	id, err := db.RecordSummary(ctx, &capture.Entry{Kind: capture.KindSummary, Namespace: "global", SessionID: "s1", Title: "did things"}, 7, true)
	if err != nil || id == 0 {
		t.Fatal(err)
	}
	if p, _ := db.SummaryProgress(ctx, "s1"); p.Through != 7 || p.ModelCalls != 1 || p.DraftMemoryID != "" {
		t.Fatalf("progress %+v, want through 7, one call, the draft done with", p)
	}
}

// A search ranks the best matches by BM25 before the namespace filter; when the
// filter leaves too few of them it still finds the weaker matches it keeps.
func TestJournalSearchFindsTheFewMatchesAFilterKeeps(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	add := func(ns, title string) int64 {
		t.Helper()
		id, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindObservation, Namespace: ns, SessionID: "s-" + ns, Title: title})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for range 150 { // more strong matches than the first step joins
		add("project:shop", "cache cache cache")
	}
	var billing []int64
	for _, title := range []string{"the invoice cache of the billing service", "billing reads the tax table, then its cache", "cache"} {
		billing = append(billing, add("project:billing", title))
	}
	hits, err := db.SearchEntries(ctx, "cache", []string{"project:billing"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 {
		t.Fatalf("billing's search found %d entries; want its 3, ranked below 150 of another project", len(hits))
	}
	if hits[0].Entry.ID != billing[2] {
		t.Errorf("best hit %d, want the shortest match %d", hits[0].Entry.ID, billing[2])
	}
	hits, err = db.SearchEntries(ctx, "cache", nil, 5)
	if err != nil || len(hits) != 5 {
		t.Fatalf("search of every namespace: %d hits, %v; want 5", len(hits), err)
	}
	for _, h := range hits {
		if h.Entry.Namespace != "project:shop" || h.Score < hits[len(hits)-1].Score {
			t.Errorf("hit %d of %s (score %v); want the strongest matches, shop's, best first", h.Entry.ID, h.Entry.Namespace, h.Score)
		}
	}
}
