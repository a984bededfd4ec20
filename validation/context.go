package validation

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// Context limits.
const (
	maxTokenBudget = 200_000
	// contextCandidates is how many memories per namespace are ranked for the
	// budget: a query recalls this many, a query-less context lists this many
	// of the most trusted.
	contextCandidates = 50
)

// rfc2119Preamble opens every context so the reading model takes the keywords
// of the memories at their defined strength.
const rfc2119Preamble = `The key words MUST, MUST NOT, SHOULD, SHOULD NOT and MAY in these memories are to be interpreted as described in RFC 2119:
- MUST (REQUIRED, SHALL): an absolute requirement; no exceptions.
- MUST NOT (SHALL NOT): an absolute prohibition.
- SHOULD (RECOMMENDED): do it unless a valid reason in this situation justifies otherwise.
- SHOULD NOT (NOT RECOMMENDED): avoid it unless a valid reason justifies it.
- MAY (OPTIONAL): truly optional.

Each memory shows its id. After relying on one, report whether it worked with memory_outcome_tool (memory_id, success), so its confidence is learned.`

// typeHeadings names the groups of the relevant section, in order.
var typeHeadings = []struct {
	typ     memory.Type
	heading string
}{
	{memory.TypePreference, "Preferences"},
	{memory.TypeDecision, "Decisions"},
	{memory.TypePattern, "Patterns"},
	{memory.TypeSession, "Session notes"},
	{memory.TypeFileContext, "File context"},
}

// Context builds the markdown a session starts with:
//
//  1. the RFC 2119 preamble;
//  2. every golden rule of the project and global namespaces, whatever the
//     budget, most confident first;
//  3. the memories most relevant to the query (hybrid recall), or without a
//     query the most trusted (highest confidence, then newest), project first
//     then global, each namespace grouped by type, while they fit the token
//     budget.
//
// Superseded memories are left out, and so are memories below
// memory.LowConfidenceCutoff (0.15) other than golden rules: they failed more
// than they helped and are deletion candidates. Each memory is a line
// "- [id] content (confidence 0.6)". Without a project only global memories
// are used: another project's memories never leak in. The token estimate is
// EstimateTokens of the whole text.
func (s *Service) Context(ctx context.Context, req ContextRequest) (*ContextResult, error) {
	budget := req.TokenBudget
	if budget == 0 {
		budget = s.opts.DefaultTokenBudget
	}
	if budget < 1 || budget > maxTokenBudget {
		return nil, memory.Invalidf("token_budget", req.TokenBudget, fmt.Sprintf("an integer from 1 to %d (default %d)", maxTokenBudget, s.opts.DefaultTokenBudget))
	}
	query := strings.TrimSpace(req.Query)
	if len(query) > memory.MaxQueryBytes {
		return nil, memory.Invalidf("query", fmt.Sprintf("of %d bytes", len(query)), fmt.Sprintf("at most %d bytes", memory.MaxQueryBytes))
	}
	namespaces := []string{memory.GlobalNamespace}
	if p := strings.TrimSpace(req.Project); p != "" {
		ns := memory.ProjectNamespace(strings.TrimPrefix(p, memory.ProjectNamespacePref))
		if err := memory.ValidateNamespace(ns); err != nil {
			return nil, memory.Invalidf("project", strconv.Quote(req.Project), `a project name or "project:<name>"`)
		}
		namespaces = []string{ns, memory.GlobalNamespace}
	}
	// A person's own memories and golden rules join the team's; another
	// person's never do (the store leaves them out).
	if own := memory.PrincipalFrom(ctx).OwnNamespace(); own != "" {
		namespaces = append(namespaces, own)
	}

	golden, err := s.store.ListMemories(ctx, memory.ListQuery{
		Filter:  memory.Filter{Namespaces: namespaces, Types: []memory.Type{memory.TypeGoldenRule}},
		OrderBy: memory.OrderConfidence, Descending: true,
	})
	if err != nil {
		return nil, fmt.Errorf("listing golden rules: %w", err)
	}
	var b strings.Builder
	b.WriteString("# Memory context\n\n")
	b.WriteString(rfc2119Preamble)
	b.WriteString("\n")
	res := &ContextResult{MemoryIDs: []string{}, GoldenRules: len(golden)}
	if len(golden) > 0 {
		b.WriteString("\n## Golden rules\n\n")
		for _, m := range golden {
			b.WriteString(memoryLine(m))
			res.MemoryIDs = append(res.MemoryIDs, m.ID)
		}
	}

	used := EstimateTokens(b.String())
	for _, ns := range namespaces {
		ranked, err := s.relevant(ctx, query, ns)
		if err != nil {
			return nil, err
		}
		section := &sectionBuilder{title: sectionTitle(ns), groups: map[memory.Type][]string{}}
		for _, m := range ranked {
			if m.Confidence < memory.LowConfidenceCutoff {
				continue // a deletion candidate is no instruction
			}
			line := memoryLine(m)
			cost := EstimateTokens(line) + section.headingCost(m.Type)
			if used+cost > budget {
				res.Truncated = true
				continue
			}
			used += cost
			section.add(m.Type, line)
			res.MemoryIDs = append(res.MemoryIDs, m.ID)
		}
		section.writeTo(&b)
	}
	res.Context = b.String()
	res.TokenEstimate = EstimateTokens(res.Context)
	if !req.SkipAccessUpdate {
		s.markAccessed(ctx, res.MemoryIDs)
	}
	return res, nil
}

// markAccessed counts an access to the memories the context hands out, and to
// no other candidate it looked at. Best effort: never a reason to fail.
func (s *Service) markAccessed(ctx context.Context, ids []string) {
	if s.mem != nil {
		s.mem.MarkAccessed(ctx, ids)
		return
	}
	if len(ids) > 0 {
		if err := s.store.TouchMemories(ctx, ids, s.now()); err != nil {
			s.log().Warn("access counts not updated", "memories", len(ids), "err", err)
		}
	}
}

// relevant ranks one namespace's memories other than golden rules: by recall
// for a query, else by confidence then recency.
func (s *Service) relevant(ctx context.Context, query, ns string) ([]*memory.Memory, error) {
	var out []*memory.Memory
	if query == "" {
		ms, err := s.store.ListMemories(ctx, memory.ListQuery{
			Filter:  memory.Filter{Namespaces: []string{ns}, Types: contextTypes()},
			OrderBy: memory.OrderConfidence, Descending: true, Limit: contextCandidates,
		})
		if err != nil {
			return nil, fmt.Errorf("listing memories of %s: %w", ns, err)
		}
		return ms, nil
	}
	if s.mem == nil {
		hits, err := s.store.SearchKeyword(ctx, query, memory.Filter{Namespaces: []string{ns}, Types: contextTypes()}, contextCandidates)
		if err != nil {
			return nil, fmt.Errorf("searching %s: %w", ns, err)
		}
		got, err := memory.LoadHits(ctx, s.store, hits)
		if err != nil {
			return nil, err
		}
		for _, sm := range got {
			out = append(out, sm.Memory)
		}
		return out, nil
	}
	rec, err := s.mem.Recall(ctx, memory.RecallRequest{Query: query, NResults: contextCandidates, Namespace: ns, SkipAccessUpdate: true})
	if err != nil {
		return nil, fmt.Errorf("recalling from %s: %w", ns, err)
	}
	for _, sm := range rec.Memories {
		if !sm.IsGolden() {
			out = append(out, sm.Memory)
		}
	}
	return out, nil
}

// contextTypes are the types of the relevant section (golden rules have their
// own).
func contextTypes() []memory.Type {
	ts := make([]memory.Type, len(typeHeadings))
	for i, h := range typeHeadings {
		ts[i] = h.typ
	}
	return ts
}

func sectionTitle(ns string) string {
	if ns == memory.GlobalNamespace {
		return "Global memories"
	}
	return "Project memories (" + ns + ")"
}

// sectionBuilder collects one namespace's lines grouped by type.
type sectionBuilder struct {
	title  string
	groups map[memory.Type][]string
	count  int
}

// headingCost is what adding a memory of typ costs beyond its line: the
// section and type headings when they are not written yet.
func (sb *sectionBuilder) headingCost(typ memory.Type) int {
	cost := 0
	if sb.count == 0 {
		cost += EstimateTokens("\n## " + sb.title + "\n")
	}
	if len(sb.groups[typ]) == 0 {
		cost += EstimateTokens("\n### " + headingOf(typ) + "\n\n")
	}
	return cost
}

func (sb *sectionBuilder) add(typ memory.Type, line string) {
	sb.groups[typ] = append(sb.groups[typ], line)
	sb.count++
}

func (sb *sectionBuilder) writeTo(b *strings.Builder) {
	if sb.count == 0 {
		return
	}
	b.WriteString("\n## " + sb.title + "\n")
	for _, h := range typeHeadings {
		lines := sb.groups[h.typ]
		if len(lines) == 0 {
			continue
		}
		b.WriteString("\n### " + h.heading + "\n\n")
		for _, l := range lines {
			b.WriteString(l)
		}
	}
}

func headingOf(typ memory.Type) string {
	for _, h := range typeHeadings {
		if h.typ == typ {
			return h.heading
		}
	}
	return string(typ)
}

// memoryLine renders one memory as a markdown list item; lines after the first
// are indented so they stay in the item.
// A memory holding Markdown of its own (a code block, headings) is fenced
// whole, with a fence longer than any inside it, so that an unclosed or
// differently indented block cannot swallow the rest of the context.
func memoryLine(m *memory.Memory) string {
	content := strings.ReplaceAll(strings.TrimSpace(m.Content), "\r\n", "\n")
	if fence := fenceFor(content); fence != "" {
		content = strings.ReplaceAll(content, "\n", "\n  ")
		return fmt.Sprintf("- [%s] (confidence %s)\n  %s\n  %s\n  %s\n", m.ID, formatConfidence(m.Confidence), fence, content, fence)
	}
	content = strings.ReplaceAll(content, "\n", "\n  ")
	return fmt.Sprintf("- [%s] %s (confidence %s)\n", m.ID, content, formatConfidence(m.Confidence))
}

// fenceFor returns the fence to wrap content in when one of its lines opens
// a code block or a heading, else "": backticks, one more than the longest
// run of them in content, and at least four.
func fenceFor(content string) string {
	needs := false
	for line := range strings.Lines(content) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") || strings.HasPrefix(l, "#") {
			needs = true
			break
		}
	}
	if !needs {
		return ""
	}
	longest, run := 0, 0
	for _, r := range content {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(4, longest+1))
}

// formatConfidence writes a confidence with at most two decimals: 0.6, 0.95, 1.
func formatConfidence(c float64) string {
	return strconv.FormatFloat(round2(c), 'f', -1, 64)
}

func round2(v float64) float64 {
	return math.Round(v*100) / 100
}
