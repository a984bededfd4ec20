package validation

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
)

// Health analysis limits.
const (
	maxStaleDays = 3650
	// maxHealthItems bounds each list of a report; the counts are always full.
	maxHealthItems = 100
	// maxRecommendations bounds the per-memory recommendations of one kind.
	maxRecommendations = 10
	edgeChunk          = 500 // memory ids per edge query
	previewBytes       = 120
)

// AnalyzeHealth reports what needs attention in a namespace (all namespaces
// when empty), each part on by default:
//
//   - unresolved contradictions: contradicts edges where neither memory is
//     superseded;
//   - low confidence: memories below memory.LowConfidenceCutoff (0.15), other
//     than golden rules and superseded memories: candidates for deletion;
//   - stale: memories without a validation event for StaleDays (by creation
//     time when they have none), oldest first.
//
// Golden rules whose confidence fell below the golden threshold are always
// listed (weak_golden_rules): they stay protected, a person reviews them.
// Each list holds at most 100 memories; the counts are complete.
func (s *Service) AnalyzeHealth(ctx context.Context, req HealthRequest) (*HealthReport, error) {
	ns, err := memory.ResolveOptionalNamespace(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	req.Namespace = ns
	staleDays := req.StaleDays
	if staleDays == 0 {
		staleDays = s.opts.StaleDays
	}
	if staleDays < 1 || staleDays > maxStaleDays {
		return nil, memory.Invalidf("stale_days", req.StaleDays, fmt.Sprintf("an integer from 1 to %d (default %d)", maxStaleDays, s.opts.StaleDays))
	}
	all, err := s.allMemories(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	now := s.now()
	rep := &HealthReport{
		Namespace: req.Namespace, CheckedAt: now,
		Contradictions: []ContradictionPair{}, LowConfidence: []MemoryBrief{}, Stale: []MemoryBrief{},
		WeakGoldenRules: []MemoryBrief{}, Recommendations: []string{},
	}
	rep.Counts.Memories = len(all)

	byID := make(map[string]*memory.Memory, len(all))
	for _, m := range all {
		byID[m.ID] = m
	}
	edges, err := s.edgesOf(ctx, idsOf(all), memory.RelationSupersedes, memory.RelationContradicts)
	if err != nil {
		return nil, err
	}
	superseded := supersededIn(edges)
	for _, m := range all {
		if superseded[m.ID] {
			rep.Counts.Superseded++
			continue
		}
		if m.IsGolden() {
			rep.Counts.GoldenRules++
			if m.Confidence < memory.GoldenRuleThreshold {
				rep.WeakGoldenRules = appendBrief(rep.WeakGoldenRules, m, nil, now)
			}
		}
	}

	if boolOr(req.IncludeContradictions, true) {
		if err := s.findContradictions(ctx, rep, edges, byID, superseded); err != nil {
			return nil, err
		}
	}
	if boolOr(req.IncludeLowConfidence, true) {
		for _, m := range all {
			if !superseded[m.ID] && !m.IsGolden() && m.Confidence < memory.LowConfidenceCutoff {
				rep.Counts.LowConfidence++
				rep.LowConfidence = appendBrief(rep.LowConfidence, m, nil, now)
			}
		}
	}
	if boolOr(req.IncludeStale, true) {
		if err := s.findStale(ctx, rep, all, superseded, staleDays, now); err != nil {
			return nil, err
		}
	}
	failures, err := s.failuresOf(ctx, rep.WeakGoldenRules)
	if err != nil {
		return nil, err
	}
	rep.Recommendations = recommend(rep, staleDays, failures)
	return rep, nil
}

// failuresOf counts the failed outcomes of each listed memory: a golden rule
// stored as one starts below the threshold without having failed at all.
func (s *Service) failuresOf(ctx context.Context, list []MemoryBrief) (map[string]int, error) {
	out := make(map[string]int, len(list))
	for _, b := range list {
		evs, err := s.store.Events(ctx, b.ID, memory.EventFailed, 0)
		if err != nil {
			return nil, fmt.Errorf("reading events of %s: %w", b.ID, err)
		}
		out[b.ID] = len(evs)
	}
	return out, nil
}

// allMemories lists every memory of a namespace (every namespace when
// empty), superseded ones included, oldest first.
func (s *Service) allMemories(ctx context.Context, namespace string) ([]*memory.Memory, error) {
	f := memory.Filter{IncludeSuperseded: true}
	if namespace != "" {
		f.Namespaces = []string{namespace}
	}
	all, err := s.store.ListMemories(ctx, memory.ListQuery{Filter: f, OrderBy: memory.OrderCreatedAt})
	if err != nil {
		return nil, fmt.Errorf("listing memories: %w", err)
	}
	return all, nil
}

// idsOf lists the memories' ids.
func idsOf(ms []*memory.Memory) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

// supersededIn is the set of memories a supersedes edge among edges targets.
func supersededIn(edges []memory.Edge) map[string]bool {
	out := map[string]bool{}
	for _, e := range edges {
		if e.Relation == memory.RelationSupersedes {
			out[e.TargetID] = true
		}
	}
	return out
}

// edgesOf lists the edges of the given relations touching ids, each once.
func (s *Service) edgesOf(ctx context.Context, ids []string, rels ...memory.Relation) ([]memory.Edge, error) {
	var out []memory.Edge
	seen := map[int64]bool{}
	for start := 0; start < len(ids); start += edgeChunk {
		chunk := ids[start:min(start+edgeChunk, len(ids))]
		es, err := s.store.Edges(ctx, memory.EdgeQuery{MemoryIDs: chunk, Direction: memory.DirectionBoth, Relations: rels})
		if err != nil {
			return nil, fmt.Errorf("reading edges: %w", err)
		}
		for _, e := range es {
			if !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// findContradictions lists contradicts edges whose ends are both unsuperseded.
// An end outside the namespace analysed (a global memory) is loaded and checked
// too.
func (s *Service) findContradictions(ctx context.Context, rep *HealthReport, edges []memory.Edge, byID map[string]*memory.Memory, superseded map[string]bool) error {
	var outside []string
	for _, e := range edges {
		for _, id := range []string{e.SourceID, e.TargetID} {
			if _, ok := byID[id]; !ok {
				outside = append(outside, id)
			}
		}
	}
	if len(outside) > 0 {
		more, err := s.store.GetMemories(ctx, outside)
		if err != nil {
			return fmt.Errorf("loading memories: %w", err)
		}
		outsideEdges, err := s.edgesOf(ctx, outside, memory.RelationSupersedes)
		if err != nil {
			return err
		}
		for _, e := range outsideEdges {
			superseded[e.TargetID] = true
		}
		for id, m := range more {
			byID[id] = m
		}
	}
	for _, e := range edges {
		if e.Relation != memory.RelationContradicts || superseded[e.SourceID] || superseded[e.TargetID] {
			continue
		}
		src, tgt := byID[e.SourceID], byID[e.TargetID]
		if src == nil || tgt == nil {
			continue
		}
		rep.Counts.Contradictions++
		if len(rep.Contradictions) < maxHealthItems {
			rep.Contradictions = append(rep.Contradictions, ContradictionPair{
				EdgeID: e.ID, SourceID: src.ID, TargetID: tgt.ID,
				Source: brief(src, nil, time.Time{}), Target: brief(tgt, nil, time.Time{}),
			})
		}
	}
	return nil
}

// findStale lists unsuperseded memories with no validation event for
// staleDays, the longest unchecked first.
func (s *Service) findStale(ctx context.Context, rep *HealthReport, all []*memory.Memory, superseded map[string]bool, staleDays int, now time.Time) error {
	cutoff := now.Add(-time.Duration(staleDays) * 24 * time.Hour)
	found, err := s.lastChecked(ctx, all, superseded, func(_ *memory.Memory, ref time.Time) bool { return ref.Before(cutoff) })
	if err != nil {
		return err
	}
	rep.Counts.Stale = len(found)
	for _, c := range found {
		rep.Stale = appendBrief(rep.Stale, c.m, c.last, now)
	}
	return nil
}

// checked is a memory with the time of its last validation event (nil when
// it has none) and the time it was last checked: that event, else its creation.
type checked struct {
	m    *memory.Memory
	last *time.Time
	ref  time.Time
}

// lastChecked reads when each memory of all was last checked and keeps those
// keep accepts, skipping superseded ones, the longest unchecked first.
func (s *Service) lastChecked(ctx context.Context, all []*memory.Memory, superseded map[string]bool, keep func(m *memory.Memory, ref time.Time) bool) ([]checked, error) {
	lastEvent, err := s.store.LastEventTimes(ctx, idsOf(all))
	if err != nil {
		return nil, fmt.Errorf("reading validation events: %w", err)
	}
	var found []checked
	for _, m := range all {
		if superseded[m.ID] {
			continue
		}
		c := checked{m: m, ref: m.CreatedAt}
		if t, ok := lastEvent[m.ID]; ok {
			c.last, c.ref = &t, t
		}
		if keep(m, c.ref) {
			found = append(found, c)
		}
	}
	slices.SortStableFunc(found, func(a, b checked) int { return cmp.Compare(a.ref.UnixNano(), b.ref.UnixNano()) })
	return found, nil
}

// appendBrief adds a memory to a report list unless the list is full.
func appendBrief(list []MemoryBrief, m *memory.Memory, last *time.Time, now time.Time) []MemoryBrief {
	if len(list) >= maxHealthItems {
		return list
	}
	return append(list, brief(m, last, now))
}

// brief is a memory as a report shows it; with now set it counts the days
// since its last validation (or creation).
func brief(m *memory.Memory, last *time.Time, now time.Time) MemoryBrief {
	b := MemoryBrief{ID: m.ID, Content: preview(m.Content), Type: m.Type, Namespace: m.Namespace, Confidence: m.Confidence, LastValidated: last, AccessedAt: m.AccessedAt}
	if !now.IsZero() {
		ref := m.CreatedAt
		if last != nil {
			ref = *last
		}
		b.DaysSinceCheck = int(math.Floor(now.Sub(ref).Hours() / 24))
	}
	return b
}

// recommend turns a report into concrete actions, most urgent first.
// failures counts the failed outcomes of each weak golden rule.
func recommend(rep *HealthReport, staleDays int, failures map[string]int) []string {
	out := []string{}
	for i, c := range rep.Contradictions {
		if i == maxRecommendations {
			out = append(out, fmt.Sprintf("... and %d more contradictions", rep.Counts.Contradictions-i))
			break
		}
		better, worse := c.Source, c.Target
		if worse.Confidence > better.Confidence {
			better, worse = worse, better
		}
		out = append(out, fmt.Sprintf("Resolve contradiction between %s and %s: run memory_check_supersedes on %s (confidence %s vs %s), or validate both with memory_apply_tool and memory_outcome_tool until one clearly wins, or forget the wrong one with memory_forget_tool",
			c.SourceID, c.TargetID, better.ID, formatConfidence(better.Confidence), formatConfidence(worse.Confidence)))
	}
	for i, g := range rep.WeakGoldenRules {
		if i == maxRecommendations {
			out = append(out, fmt.Sprintf("... and %d more weak golden rules", len(rep.WeakGoldenRules)-i))
			break
		}
		if n := failures[g.ID]; n > 0 {
			out = append(out, fmt.Sprintf("Review golden rule %s: its confidence fell to %s after %s; it stays protected, so fix its wording or forget it with memory_forget_tool force=true",
				g.ID, formatConfidence(g.Confidence), describe.Count(n, "failure", "failures")))
			continue
		}
		out = append(out, fmt.Sprintf("Confirm golden rule %s: it was stored as a golden rule with confidence %s and has no recorded outcome; record how it works with memory_outcome_tool (or memory_validate_tool), or forget it with memory_forget_tool force=true if it is wrong",
			g.ID, formatConfidence(g.Confidence)))
	}
	for i, l := range rep.LowConfidence {
		if i == maxRecommendations {
			out = append(out, fmt.Sprintf("... and %d more low-confidence memories", rep.Counts.LowConfidence-i))
			break
		}
		out = append(out, fmt.Sprintf("Consider deleting %s (confidence %s, below %s): forget it with memory_forget_tool, or re-validate it with memory_validate_tool if it is still right",
			l.ID, formatConfidence(l.Confidence), formatConfidence(memory.LowConfidenceCutoff)))
	}
	if rep.Counts.Stale > 0 {
		out = append(out, fmt.Sprintf("%s not been validated for %d days or more (oldest: %s): apply them with memory_apply_tool and record outcomes with memory_outcome_tool, or forget those no longer true",
			describe.Count(rep.Counts.Stale, "memory has", "memories have"), staleDays, rep.Stale[0].ID))
	}
	if rep.Counts.Superseded > 0 {
		out = append(out, fmt.Sprintf("%s hidden from recall and context; forget them with memory_forget_tool once you no longer need their history", describe.Count(rep.Counts.Superseded, "superseded memory is", "superseded memories are")))
	}
	if len(out) == 0 {
		out = append(out, "No action needed: no unresolved contradictions, low-confidence or stale memories")
	}
	return out
}

// preview shortens content for a report.
func preview(s string) string {
	if len(s) <= previewBytes {
		return s
	}
	return memory.Cut(s, previewBytes) + "..."
}
