package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture"
)

// The journal's store: a sqlite.DB keeps the session journal capture writes.
var (
	_ capture.Store            = (*DB)(nil)
	_ capture.PastEntryChecker = (*DB)(nil)
)

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

func TestHasPastEntriesSeeksTheSessionsOfAProject(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, e := range []struct{ namespace, session string }{
		{"project:a", "s1"}, {"project:a", "s2"}, {"project:a", "s2"}, {"project:b", "s3"}, {"project:d", ""},
	} {
		if _, err := db.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: e.namespace, SessionID: e.session, Title: "a prompt", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		namespaces []string
		current    string
		want       bool
	}{
		{[]string{"project:a"}, "s1", true}, // s2 before it
		{[]string{"project:a"}, "s2", true}, // s1 after it
		{[]string{"project:b"}, "s3", false},
		{[]string{"project:b"}, "s9", true},
		{[]string{"project:b"}, "", true},
		{[]string{"project:c"}, "", false},
		{[]string{"project:d"}, "s1", true}, // an entry without a session is another's
		{[]string{"project:b", "project:c"}, "s3", false},
		{[]string{"project:b", "project:a"}, "s3", true},
		{nil, "s3", true},
	} {
		if got, err := db.HasPastEntries(ctx, c.namespaces, c.current); err != nil || got != c.want {
			t.Errorf("HasPastEntries(%q, %q) = %v, %v; want %v", c.namespaces, c.current, got, err, c.want)
		}
	}

	// Seeks, not a read of the project's entries: a first session asks on
	// every prompt, with more entries each time.
	query, args := pastEntriesQuery([]string{"project:a"}, "s1")
	plan := queryPlan(t, db, query, args...)
	for _, op := range []string{"<", ">"} {
		if want := "journal_namespace_session (namespace=? AND session_id" + op + "?)"; !strings.Contains(plan, want) {
			t.Errorf("HasPastEntries' query plan is\n%s\nwant a search of %s", plan, want)
		}
	}
}

// searchCounted is a journal store that counts its searches.
type searchCounted struct {
	*DB
	searches int
}

func (s *searchCounted) SearchEntries(ctx context.Context, text string, namespaces []string, limit int) ([]capture.EntryHit, error) {
	s.searches++
	return s.DB.SearchEntries(ctx, text, namespaces, limit)
}

// The prompt hook searches a project's journal only when it holds another
// session than the current one: in a project's first session there is
// nothing to find.
func TestPastSessionsAreSearchedOnlyWhenThereAreAny(t *testing.T) {
	ctx := context.Background()
	store := &searchCounted{DB: openTest(t)}
	recorder := &capture.Recorder{Store: store}
	const prompt = "How long are orders cached?"
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	add := func(session string) int64 {
		id, err := store.AddEntry(ctx, &capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: session, Title: "How long are orders cached in the orders service?", CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for range 3 {
		add("now")
	}
	if found, err := recorder.Matching(ctx, prompt, []string{"project:shop"}, "now", 3, 0.6, nil); err != nil || len(found) != 0 {
		t.Fatalf("a first session's past: %+v, %v; want none", found, err)
	}
	if store.searches != 0 {
		t.Errorf("the journal was searched %d times in a project's first session; want none", store.searches)
	}
	past := add("before")
	found, err := recorder.Matching(ctx, prompt, []string{"project:shop"}, "now", 3, 0.6, nil)
	if err != nil || len(found) != 1 || found[0].ID != past {
		t.Fatalf("past entries: %+v, %v; want entry %d", found, err, past)
	}
	if store.searches != 1 {
		t.Errorf("the journal was searched %d times with a past session; want once", store.searches)
	}
}
