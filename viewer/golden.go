package viewer

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

var goldenParams = []string{"project"}

// goldenView is GET /api/golden: a project's golden rules (and the global ones
// every project gets) with the exact context memory_context_tool would inject
// for the project at the start of a session, line by line with token estimates.
type goldenView struct {
	Project string           `json:"project,omitempty"`
	Rules   []*memory.Memory `json:"rules"`
	Context contextView      `json:"context"`
	// Audit is every promotion and demotion in the project and global,
	// newest first.
	Audit []ChangeEntry `json:"audit"`
	// Candidates are the project's most trusted memories a person may
	// promote (preferences, decisions, patterns), highest confidence first.
	Candidates []*memory.Memory `json:"candidates"`
}

const maxCandidates = 10

// ChangeEntry is a change log entry with a preview of its memory and of the
// other memory of a resolution (empty when deleted since).
type ChangeEntry struct {
	memory.Change
	Preview        string `json:"preview"`
	RelatedPreview string `json:"related_preview,omitempty"`
}

type contextView struct {
	*validation.ContextResult
	Lines []contextLine `json:"lines"`
}

// contextLine is one line of the context and its estimate (the estimates of
// the lines need not add up to the whole's, which counts the line breaks too).
type contextLine struct {
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

func (h *handler) golden(w http.ResponseWriter, r *http.Request) {
	qs, ok := params(w, r, goldenParams)
	if !ok {
		return
	}
	project := strings.TrimSpace(qs.Get("project"))
	// The context first: it also checks the project name.
	c, err := h.val.Context(r.Context(), validation.ContextRequest{Project: project, SkipAccessUpdate: true})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	namespaces := []string{memory.GlobalNamespace}
	if project != "" {
		namespaces = []string{memory.ProjectNamespace(strings.TrimPrefix(project, memory.ProjectNamespacePref)), memory.GlobalNamespace}
	}
	v := goldenView{Project: project, Rules: []*memory.Memory{}, Context: contextView{ContextResult: c, Lines: []contextLine{}}}
	for _, ns := range namespaces {
		res, err := h.mem.List(r.Context(), memory.ListRequest{Namespace: ns, Type: memory.TypeGoldenRule, OrderBy: "confidence", Limit: memory.MaxListLimit})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		v.Rules = append(v.Rules, res.Memories...)
	}
	if v.Audit, err = h.goldenAudit(r, namespaces); err != nil {
		h.fail(w, r, err)
		return
	}
	if v.Candidates, err = h.promotable(r, namespaces[0]); err != nil {
		h.fail(w, r, err)
		return
	}
	for line := range strings.SplitSeq(c.Context, "\n") {
		v.Context.Lines = append(v.Context.Lines, contextLine{Text: line, Tokens: validation.EstimateTokens(line)})
	}
	writeJSON(w, http.StatusOK, v)
}

// goldenAudit is the promotions and demotions in namespaces with a preview
// of each memory.
func (h *handler) goldenAudit(r *http.Request, namespaces []string) ([]ChangeEntry, error) {
	changes, err := h.mem.GoldenAudit(r.Context(), namespaces)
	if err != nil {
		return nil, err
	}
	return h.withPreviews(r, changes)
}

// withPreviews adds the previews of the memories changes name, read at once.
func (h *handler) withPreviews(r *http.Request, changes []memory.Change) ([]ChangeEntry, error) {
	ids := make([]string, 0, len(changes))
	for _, c := range changes {
		ids = append(ids, c.MemoryID)
		if c.RelatedID != "" {
			ids = append(ids, c.RelatedID)
		}
	}
	ms, err := h.mem.GetMany(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	out := make([]ChangeEntry, 0, len(changes))
	for _, c := range changes {
		e := ChangeEntry{Change: c}
		if m := ms[c.MemoryID]; m != nil {
			e.Preview = preview(m.Content)
		}
		if m := ms[c.RelatedID]; m != nil {
			e.RelatedPreview = preview(m.Content)
		}
		out = append(out, e)
	}
	return out, nil
}

// promotable lists the memories of namespace that may be promoted, highest
// confidence first, at most maxCandidates.
func (h *handler) promotable(r *http.Request, namespace string) ([]*memory.Memory, error) {
	desc := true
	out := []*memory.Memory{}
	for _, t := range memory.Types {
		if !t.Promotable() {
			continue
		}
		res, err := h.mem.List(r.Context(), memory.ListRequest{Namespace: namespace, Type: t, OrderBy: "confidence", Descending: &desc, Limit: maxCandidates})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Memories...)
	}
	slices.SortStableFunc(out, func(a, b *memory.Memory) int { return cmp.Compare(b.Confidence, a.Confidence) })
	return out[:min(len(out), maxCandidates)], nil
}

// projects is GET /api/projects: the project namespaces that hold memories or
// are bound to a directory, as `recall projects` lists them.
func (h *handler) projects(w http.ResponseWriter, r *http.Request) {
	ps, err := h.mem.ProjectSummaries(r.Context())
	h.respond(w, r, ps, err)
}
