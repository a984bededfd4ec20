package viewer

import (
	"net/http"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

func TestGoldenRulesAndTheContextOfAProject(t *testing.T) {
	f := newFixture(t)
	shop := f.store(t, "You MUST run migrations before deploying the shop.", memory.TypeGoldenRule, "project:shop")
	global := f.store(t, "You MUST NOT commit secrets.", memory.TypeGoldenRule, "global")
	blog := f.store(t, "You MUST use Rails conventions in the blog.", memory.TypeGoldenRule, "project:blog")
	f.store(t, "Orders are stored in Postgres.", memory.TypeDecision, "project:shop")

	v := decode[goldenView](t, f.do(t, "GET", "/api/golden?project=shop", "", nil), http.StatusOK)
	var got []string
	for _, m := range v.Rules {
		got = append(got, m.ID)
	}
	if len(got) != 2 || got[0] != shop || got[1] != global {
		t.Fatalf("rules %v, want the shop's then the global one (%s, %s)", got, shop, global)
	}
	// Exactly what memory_context_tool returns for the project.
	want, err := f.val.Context(t.Context(), validation.ContextRequest{Project: "shop", SkipAccessUpdate: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.Context.Context != want.Context || v.Context.TokenEstimate != want.TokenEstimate {
		t.Errorf("context differs from the tool's:\n%s\nwant\n%s", v.Context.Context, want.Context)
	}
	var joined []string
	found := false
	for _, l := range v.Context.Lines {
		joined = append(joined, l.Text)
		if strings.Contains(l.Text, shop) {
			found = true
			if l.Tokens != validation.EstimateTokens(l.Text) || l.Tokens == 0 {
				t.Errorf("line %q: %d tokens, want its estimate", l.Text, l.Tokens)
			}
		}
		if strings.Contains(l.Text, blog) {
			t.Errorf("another project's rule in the context: %q", l.Text)
		}
	}
	if !found || strings.Join(joined, "\n") != v.Context.Context {
		t.Errorf("lines do not make up the context or lack the shop's rule")
	}
	// A person looking is not a session using the memories.
	if m, _ := f.mem.Get(t.Context(), shop); m.AccessCount != 0 {
		t.Errorf("viewing the context counted %d accesses", m.AccessCount)
	}

	none := decode[goldenView](t, f.do(t, "GET", "/api/golden", "", nil), http.StatusOK)
	if len(none.Rules) != 1 || none.Rules[0].ID != global {
		t.Errorf("without a project: %d rules, want the global one", len(none.Rules))
	}
	if w := f.do(t, "GET", "/api/golden?project=%20x%00", "", nil); w.Code != http.StatusBadRequest {
		t.Errorf("bad project: status %d, want 400", w.Code)
	}
	ps := decode[[]memory.ProjectSummary](t, f.do(t, "GET", "/api/projects", "", nil), http.StatusOK)
	if len(ps) != 2 || ps[0].Namespace != "project:blog" || ps[1].Namespace != "project:shop" {
		t.Errorf("projects %+v, want blog and shop", ps)
	}
}

// contextPreview is the request the golden rules page makes for a project.
func contextPreview(project string) validation.ContextRequest {
	return validation.ContextRequest{Project: project, SkipAccessUpdate: true}
}
