package validation

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/recall-mcp/recall/memory"
)

// A memory supersedes an older one when both hold on the same topic but cannot
// both be followed (they contradict) and the newer one's validation record is
// clearly better. "Clearly better" is decided from confidences and validation
// events alone, so it is the same whatever the model says:
//
//   - the older memory is not a golden rule (golden rules are never superseded
//     automatically; a person resolves them), and
//   - the newer memory's confidence is higher by at least 0.2 (two successes'
//     worth: one lucky outcome is not enough), and
//   - there is evidence in the events: the newer memory has at least 2 more
//     successes than failures, or the older one has at least 2 outcomes with a
//     success rate below 0.5.
//
// Two memories are on the same topic and contradicting when a contradicts edge
// already links them (no model call), or when their cosine similarity is at
// least the contradiction threshold and the chat model confirms the
// contradiction. Only memories that could be superseded by the record rule are
// sent to the model, at most maxSupersedeCandidates of them.
const (
	supersedeMargin         = 0.2
	supersedeNetSuccesses   = 2
	supersedeMinOutcomes    = 2
	supersedeMaxRate        = 0.5
	maxSupersedeCandidates  = 3
	supersedeSearchExtra    = 5 // similar memories looked at before the record filter
	supersedeEdgeSourceNote = "memory_check_supersedes"
)

// record is the validation record of a memory.
type record struct {
	confidence        float64
	succeeded, failed int
}

func (r record) outcomes() int { return r.succeeded + r.failed }

func (r record) rate() float64 {
	if r.outcomes() == 0 {
		return 0
	}
	return float64(r.succeeded) / float64(r.outcomes())
}

func (r record) String() string {
	return fmt.Sprintf("confidence %s, %d succeeded, %d failed", formatConfidence(r.confidence), r.succeeded, r.failed)
}

// clearlyBetter applies the rule above to a newer memory a and an older b.
func clearlyBetter(a, b record, bGolden bool) bool {
	if bGolden || a.confidence-b.confidence < supersedeMargin-1e-9 {
		return false
	}
	return a.succeeded-a.failed >= supersedeNetSuccesses ||
		(b.outcomes() >= supersedeMinOutcomes && b.rate() < supersedeMaxRate)
}

func (s *Service) recordOf(ctx context.Context, m *memory.Memory) (record, error) {
	evs, err := s.store.Events(ctx, m.ID, "", 0)
	if err != nil {
		return record{}, fmt.Errorf("reading events of %s: %w", m.ID, err)
	}
	sum := summarize(evs)
	return record{confidence: m.Confidence, succeeded: sum.Succeeded, failed: sum.Failed}, nil
}

// checkSupersedeVerdict applies the record rule to a chat model's verdict that
// newer supersedes older. It returns supersedes with the model's reason when
// the records allow it, else contradicts with a reason that says why not.
func (s *Service) checkSupersedeVerdict(ctx context.Context, newer, older *memory.Memory, reason string) (memory.Relation, string, error) {
	mine, err := s.recordOf(ctx, newer)
	if err != nil {
		return "", "", err
	}
	theirs, err := s.recordOf(ctx, older)
	if err != nil {
		return "", "", err
	}
	if clearlyBetter(mine, theirs, older.IsGolden()) {
		return memory.RelationSupersedes, reason, nil
	}
	why := fmt.Sprintf("the chat model judged that %s supersedes %s (%s), but its record (%s) is not clearly better than %s's (%s)",
		newer.ID, older.ID, reason, mine, older.ID, theirs)
	if older.IsGolden() {
		why = fmt.Sprintf("the chat model judged that %s supersedes the golden rule %s (%s); golden rules are never superseded automatically",
			newer.ID, older.ID, reason)
	}
	return memory.RelationContradicts, why, nil
}

// CheckSupersedes decides whether a memory supersedes an older one (see the
// rule above) and, unless CreateEdge is false, adds a supersedes edge from it to
// the superseded memory, which then leaves recall and context. When several
// qualify, the one with the lowest confidence is superseded; call again for the
// next.
func (s *Service) CheckSupersedes(ctx context.Context, req SupersedeRequest) (*SupersedeResult, error) {
	if err := memory.ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	m, err := s.store.GetMemory(ctx, req.MemoryID)
	if err != nil {
		return nil, err
	}
	res := &SupersedeResult{MemoryID: m.ID, FailedJudgments: []FailedJudgment{}}
	mine, err := s.recordOf(ctx, m)
	if err != nil {
		return nil, err
	}
	blocked, err := s.supersedeBlocked(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	if blocked != "" {
		res.Reason = blocked
		return res, nil
	}

	// Partners already known to contradict m.
	type partner struct {
		mem    *memory.Memory
		rec    record
		reason string
	}
	var partners []partner
	known, err := s.contradicting(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	for _, p := range known {
		if !olderThan(p.mem, m) {
			continue
		}
		rec, err := s.recordOf(ctx, p.mem)
		if err != nil {
			return nil, err
		}
		res.CandidatesChecked++
		if clearlyBetter(mine, rec, p.mem.IsGolden()) {
			partners = append(partners, partner{p.mem, rec, "they are linked as contradicting"})
		}
	}

	// Similar older memories the record rule would let m supersede, judged by
	// the model.
	if vec, why := s.vectorOf(ctx, m); vec != nil {
		cands, err := s.similar(ctx, m, vec, s.opts.ContradictionThreshold, maxSupersedeCandidates+supersedeSearchExtra)
		if err != nil {
			return nil, err
		}
		judged := 0
		for _, c := range cands {
			if judged == maxSupersedeCandidates {
				break
			}
			if _, ok := known[c.mem.ID]; ok || !olderThan(c.mem, m) {
				continue
			}
			rec, err := s.recordOf(ctx, c.mem)
			if err != nil {
				return nil, err
			}
			res.CandidatesChecked++
			if !clearlyBetter(mine, rec, c.mem.IsGolden()) {
				continue
			}
			judged++
			confirmed, _, reason, err := s.judgeContradiction(ctx, m, c.mem)
			if err != nil {
				if err := noteFailure(ctx, &res.FailedJudgments, c.mem.ID, err); err != nil {
					return nil, err
				}
				continue
			}
			if confirmed {
				partners = append(partners, partner{c.mem, rec, "the chat model judged them contradicting: " + reason})
			}
		}
	} else {
		s.log().Debug("supersede check without similarity", "memory_id", m.ID, "reason", why)
	}

	if len(partners) == 0 {
		res.Reason = fmt.Sprintf("no older memory on the same topic has a clearly worse record than %s (%s); superseding needs a confidence higher by %.1f and at least %d more successes than failures, or an older memory failing at least half of %d or more outcomes",
			m.ID, mine, supersedeMargin, supersedeNetSuccesses, supersedeMinOutcomes)
		return res, nil
	}
	slices.SortFunc(partners, func(a, b partner) int {
		return cmp.Or(cmp.Compare(a.rec.confidence, b.rec.confidence), cmp.Compare(a.mem.ID, b.mem.ID))
	})
	best := partners[0]
	res.SupersededID = best.mem.ID
	res.Reason = fmt.Sprintf("%s (%s) supersedes %s (%s): %s", m.ID, mine, best.mem.ID, best.rec, best.reason)
	if boolOr(req.CreateEdge, true) {
		id, created, err := s.linkOnce(ctx, m.ID, best.mem.ID, memory.RelationSupersedes, 1, map[string]any{
			"reason": res.Reason, "source": supersedeEdgeSourceNote,
		})
		if err != nil {
			return nil, err
		}
		res.EdgeID, res.EdgeCreated = id, created
	}
	return res, nil
}

// supersedeBlocked says why m cannot supersede anything: it is itself
// superseded. Empty when it can.
func (s *Service) supersedeBlocked(ctx context.Context, id string) (string, error) {
	in, err := s.store.Edges(ctx, memory.EdgeQuery{TargetID: id, Direction: memory.DirectionIncoming, Relations: []memory.Relation{memory.RelationSupersedes}})
	if err != nil {
		return "", fmt.Errorf("reading edges: %w", err)
	}
	if len(in) > 0 {
		return fmt.Sprintf("%s is itself superseded by %s, so it supersedes nothing", id, in[0].SourceID), nil
	}
	return "", nil
}

// knownPartner is a memory linked to another by a contradicts edge.
type knownPartner struct{ mem *memory.Memory }

// contradicting returns the memories linked to id by a contradicts edge either
// way that are not superseded, keyed by id.
func (s *Service) contradicting(ctx context.Context, id string) (map[string]knownPartner, error) {
	edges, err := s.store.Edges(ctx, memory.EdgeQuery{MemoryIDs: []string{id}, Direction: memory.DirectionBoth, Relations: []memory.Relation{memory.RelationContradicts}})
	if err != nil {
		return nil, fmt.Errorf("reading edges: %w", err)
	}
	var ids []string
	for _, e := range edges {
		other := e.TargetID
		if other == id {
			other = e.SourceID
		}
		ids = append(ids, other)
	}
	out := map[string]knownPartner{}
	if len(ids) == 0 {
		return out, nil
	}
	live, err := s.store.ListMemories(ctx, memory.ListQuery{Filter: memory.Filter{IDs: ids}, Limit: len(ids)})
	if err != nil {
		return nil, fmt.Errorf("loading contradicting memories: %w", err)
	}
	for _, m := range live {
		out[m.ID] = knownPartner{mem: m}
	}
	return out, nil
}

// olderThan reports whether a was stored before b (ids break ties).
func olderThan(a, b *memory.Memory) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}
