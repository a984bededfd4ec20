package viewer

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

var sameOrigin = map[string]string{"Origin": "http://127.0.0.1:28000", "Content-Type": "application/json"}

func TestMemoryDetailHasTheChangeLog(t *testing.T) {
	f := newFixture(t)
	id := f.store(t, "the build uses bazel", memory.TypeDecision, "project:recall")
	f.do(t, "PATCH", "/api/memories/"+id, `{"importance": 0.9}`, sameOrigin)
	f.do(t, "PATCH", "/api/memories/"+id, `{"content": "the build uses make"}`, sameOrigin)

	d := decode[Detail](t, f.do(t, "GET", "/api/memories/"+id, "", nil), http.StatusOK)
	var got []string
	for _, c := range d.Changes {
		got = append(got, fmt.Sprintf("%s by %s %v", c.Action, c.Source, c.Fields))
	}
	want := "[edit by viewer [{content the build uses bazel the build uses make}] edit by viewer [{importance 0.5 0.9}]]"
	if fmt.Sprint(got) != want {
		t.Errorf("changes %v, want newest first %s", got, want)
	}
}

func TestPromoteNeedsAReasonAndJoinsTheGoldenAudit(t *testing.T) {
	f := newFixture(t)
	rule := f.store(t, "Squash-merge feature branches.", memory.TypePattern, "project:web")
	note := f.store(t, "Session: fixed the login form.", memory.TypeSession, "project:web")
	f.store(t, "Rebase before merging.", memory.TypePattern, "project:api")

	for _, c := range []struct{ id, body, why string }{
		{rule, `{}`, "no reason"},
		{rule, `{"reason": "   "}`, "a blank reason"},
		{note, `{"reason": "x"}`, "a session is not promotable"},
	} {
		if w := f.do(t, "POST", "/api/memories/"+c.id+"/promote", c.body, sameOrigin); w.Code != http.StatusBadRequest {
			t.Errorf("promote with %s: status %d, want 400", c.why, w.Code)
		}
	}
	if w := f.do(t, "POST", "/api/memories/"+rule+"/promote", `{"reason": "x"}`,
		map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); w.Code != http.StatusForbidden {
		t.Errorf("cross-origin promote: status %d, want 403", w.Code)
	}
	m := decode[memory.Memory](t, f.do(t, "POST", "/api/memories/"+rule+"/promote", `{"reason": "the team agreed in review"}`, sameOrigin), http.StatusOK)
	if m.Type != memory.TypeGoldenRule || m.Metadata["promoted_from"] != "pattern" {
		t.Fatalf("promoted: %+v", m)
	}
	decode[memory.Memory](t, f.do(t, "POST", "/api/memories/"+rule+"/demote", `{"reason": "too strict for hotfixes"}`, sameOrigin), http.StatusOK)

	v := decode[goldenView](t, f.do(t, "GET", "/api/golden?project=web", "", nil), http.StatusOK)
	var got []string
	for _, e := range v.Audit {
		got = append(got, fmt.Sprintf("%s %s by %s: %s (%s)", e.MemoryID, e.Action, e.Source, e.Reason, e.Preview))
	}
	want := []string{
		rule + " demote by viewer: too strict for hotfixes (Squash-merge feature branches.)",
		rule + " promote by viewer: the team agreed in review (Squash-merge feature branches.)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit trail\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if other := decode[goldenView](t, f.do(t, "GET", "/api/golden?project=api", "", nil), http.StatusOK); len(other.Audit) != 0 {
		t.Errorf("another project's audit trail: %+v", other.Audit)
	}
}

func TestResolutionIsRecordedOnBothMemories(t *testing.T) {
	f := newFixture(t)
	a, b, edge := f.contradiction(t, "Use tabs for indentation", "Use two spaces for indentation", memory.TypeDecision)
	long := strings.Repeat("x", 1001)
	if w := f.do(t, "POST", "/api/review/contradictions/"+itoa(edge), `{"resolution": "not_contradiction", "reason": "`+long+`"}`, sameOrigin); w.Code != http.StatusBadRequest {
		t.Errorf("a reason of 1001 bytes: status %d, want 400", w.Code)
	}
	if log, _ := f.mem.Changes(t.Context(), a); len(log) != 0 {
		t.Fatalf("a refused resolution was recorded: %+v", log)
	}
	if es, _ := f.db.Edges(t.Context(), memory.EdgeQuery{EdgeIDs: []int64{edge}}); len(es) != 1 {
		t.Fatalf("a refused resolution removed the contradiction: %+v", es)
	}
	decode[memory.ResolveResult](t, f.do(t, "POST", "/api/review/contradictions/"+itoa(edge),
		`{"resolution": "a_supersedes_b", "reason": "we moved to tabs in 2024"}`, sameOrigin), http.StatusOK)
	for id, want := range map[string]string{
		a: "supersede " + b + " by viewer: we moved to tabs in 2024",
		b: "superseded_by " + a + " by viewer: we moved to tabs in 2024",
	} {
		log, err := f.mem.Changes(t.Context(), id)
		if err != nil || len(log) != 1 {
			t.Fatalf("log of %s: %+v, %v; want one entry", id, log, err)
		}
		if got := fmt.Sprintf("%s %s by %s: %s", log[0].Action, log[0].RelatedID, log[0].Source, log[0].Reason); got != want {
			t.Errorf("log of %s: %s, want %s", id, got, want)
		}
	}
}
