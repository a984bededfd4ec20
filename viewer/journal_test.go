package viewer

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
)

// addEntries writes journal entries as the hooks would, a second apart,
// oldest first, and returns their public ids.
func (f *fixture) addEntries(t testing.TB, start time.Time, ns string, kinds ...journal.Kind) []string {
	t.Helper()
	var ids []string
	for i, k := range kinds {
		e := &journal.Entry{Kind: k, Namespace: ns, SessionID: "s-" + ns, Title: fmt.Sprintf("%s %d in %s", k, i, ns),
			Body: "ran go test ./...", CreatedAt: start.Add(time.Duration(i) * time.Second)}
		id, err := f.db.AddEntry(t.Context(), e)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, journal.EntryID(id))
	}
	return ids
}

func TestJournalFeedNewestFirstByNamespaceKindAndPage(t *testing.T) {
	f := newFixture(t)
	t0 := time.Now().UTC().Add(-time.Hour)
	shop := f.addEntries(t, t0, "project:shop", journal.KindPrompt, journal.KindObservation, journal.KindObservation, journal.KindSummary, journal.KindPrompt)
	blog := f.addEntries(t, t0.Add(30*time.Minute), "project:blog", journal.KindPrompt)

	read := func(q string) journalPage {
		t.Helper()
		return decode[journalPage](t, f.do(t, "GET", "/api/journal?"+q, "", nil), http.StatusOK)
	}
	entryIDs := func(p journalPage) []string {
		var out []string
		for _, e := range p.Entries {
			out = append(out, e.ID)
		}
		return out
	}
	all := read("")
	if got := entryIDs(all); fmt.Sprint(got) != fmt.Sprint([]string{blog[0], shop[4], shop[3], shop[2], shop[1], shop[0]}) || all.HasMore {
		t.Errorf("journal %v (more %v), want every entry newest first", got, all.HasMore)
	}
	if p := read("namespace=project:shop&kind=observation&limit=3"); fmt.Sprint(entryIDs(p)) != fmt.Sprint([]string{shop[2], shop[1]}) || p.HasMore {
		t.Errorf("shop's observations %v (more %v), want %v and no more", entryIDs(p), p.HasMore, []string{shop[2], shop[1]})
	}
	// Pages of two: each page goes on where the last stopped.
	var paged []string
	q := "namespace=project:shop&limit=2"
	for range 5 {
		p := read(q)
		paged = append(paged, entryIDs(p)...)
		if !p.HasMore {
			break
		}
		q = "namespace=project:shop&limit=2&before=" + url.QueryEscape(p.Before)
	}
	if fmt.Sprint(paged) != fmt.Sprint([]string{shop[4], shop[3], shop[2], shop[1], shop[0]}) {
		t.Errorf("paged through the shop's journal: %v", paged)
	}
	for _, bad := range []string{"kind=thought", "before=yesterday", "limit=0", "session=x"} {
		if w := f.do(t, "GET", "/api/journal?"+bad, "", nil); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", bad, w.Code, w.Body)
		}
	}
}
