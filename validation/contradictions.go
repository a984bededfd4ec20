package validation

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// maxDetectCandidates bounds a contradiction check: at most this many chat
// calls and one embed call per memory_detect_contradictions.
const maxDetectCandidates = 5

// DetectContradictions looks for memories that contradict one memory: the
// most similar memories in its scope (its namespace and global; never another
// project) with a cosine similarity of at least the threshold are each judged
// by the chat model; a pair it confirms (contradicts, confidence >= 0.7) gets a
// contradicts edge from the memory to the other, weighted by that confidence,
// unless CreateEdges is false or such an edge already links them either way.
// A pair a person judged not to be a contradiction (in the viewer's review) is
// not judged again. A judgment that fails is listed in FailedJudgments with
// its reason.
func (s *Service) DetectContradictions(ctx context.Context, req DetectRequest) (*DetectResult, error) {
	if err := memory.ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	threshold, err := checkThreshold(req.SimilarityThreshold, s.opts.ContradictionThreshold)
	if err != nil {
		return nil, err
	}
	m, err := s.store.GetMemory(ctx, req.MemoryID)
	if err != nil {
		return nil, err
	}
	res := &DetectResult{MemoryID: m.ID, Contradictions: []Contradiction{}, FailedJudgments: []FailedJudgment{}}
	vec, why := s.vectorOf(ctx, m)
	if vec == nil {
		res.Skipped = why
		return res, nil
	}
	cands, err := s.similar(ctx, m, vec, threshold, maxDetectCandidates)
	if err != nil {
		return nil, err
	}
	res.CandidatesChecked = len(cands)
	for _, c := range cands {
		if dismissed, err := s.store.NotContradiction(ctx, m.ID, c.mem.ID); err != nil || dismissed {
			if err != nil {
				return nil, err
			}
			res.CandidatesChecked--
			continue
		}
		confirmed, conf, reason, err := s.judgeContradiction(ctx, m, c.mem)
		if err != nil {
			if err := noteFailure(ctx, &res.FailedJudgments, c.mem.ID, err); err != nil {
				return nil, err
			}
			continue
		}
		if !confirmed {
			continue
		}
		found := Contradiction{MemoryID: c.mem.ID, Content: c.mem.Content, Similarity: c.similarity, Confidence: conf, Reason: reason}
		if boolOr(req.CreateEdges, true) {
			id, created, err := s.linkOnce(ctx, m.ID, c.mem.ID, memory.RelationContradicts, conf, map[string]any{
				"reason": reason, "similarity": c.similarity, "source": "memory_detect_contradictions",
			})
			if err != nil {
				return nil, err
			}
			found.EdgeID = id
			if created {
				res.EdgesCreated++
			}
		}
		res.Contradictions = append(res.Contradictions, found)
	}
	return res, nil
}

// linkOnce adds an edge of relation from source to target unless one of that
// relation already links the two either way; it returns the edge's id and
// whether it is new. Symmetric facts (contradicts, relates_to) so get one edge
// per pair, and a supersedes edge is never added against an existing one.
// A contradiction a person ruled out is not added again (id 0). The store
// decides in one transaction, so servers judging the same pair at once leave
// one edge.
func (s *Service) linkOnce(ctx context.Context, source, target string, rel memory.Relation, weight float64, meta map[string]any) (int64, bool, error) {
	id, created, err := s.store.LinkOnce(ctx, &memory.Edge{SourceID: source, TargetID: target, Relation: rel, Weight: round4(weight), Metadata: meta, CreatedAt: s.now()})
	if err != nil {
		return 0, false, fmt.Errorf("adding %s edge %s -> %s: %w", rel, source, target, err)
	}
	if id == 0 {
		s.log().Info("contradiction not recorded: a person judged the pair not to contradict", "source", source, "target", target)
	}
	return id, created, nil
}
