package validation

import (
	"context"
	"errors"

	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
)

// Relationship inference on store runs off the request path, as jobs of kind
// relate (package jobs: recorded in the database, leased, resumed after a
// restart, never dropped while Ollama is away or slow). MemoryStored only
// records the job and returns.
//
// A relate job costs at most one embed call (none when the memory already has
// its vector; a vector it computes is stored) and maxInferCandidates (3) chat
// calls: the memories in the same scope with a cosine similarity of at least
// Options.ContradictionThreshold, best first, each classified by the chat model
// as relates_to, supersedes, caused_by, contradicts or none. A classification
// with confidence >= 0.7 becomes an edge from the newer memory to the older
// one. A supersedes verdict must also pass the record rule of
// memory_check_supersedes (see clearlyBetter): when the newer memory's
// validation record is not clearly better, or the older one is a golden rule,
// it becomes a contradicts edge instead. A model's guess never hides a
// better-validated memory; health analysis reports the conflict, and
// memory_check_supersedes settles it once the record speaks.

// Job kinds and settings.
const (
	// JobKindRelate is the job kind of relationship inference.
	JobKindRelate      = "relate"
	maxInferCandidates = 3
)

// ErrNotRetryable marks a job error that no later attempt can fix; the job
// fails for good, recorded.
var ErrNotRetryable = errors.New("cannot succeed on a later attempt")

// MemoryStored queues relationship inference for a newly stored memory and
// returns at once: it never waits for a model. It returns no relationships
// (they are found later; memory_inspect_graph_tool shows them). With curation
// disabled, or without an embedding or chat model, it does nothing.
func (s *Service) MemoryStored(ctx context.Context, m *memory.Memory) []memory.AutoRelationship {
	none := []memory.AutoRelationship{}
	if !s.relates() || m == nil {
		return none
	}
	if err := s.jobs.Enqueue(ctx, m.ID, JobKindRelate); err != nil {
		s.log().Warn("queueing relationship inference failed", "memory_id", m.ID, "err", err)
	}
	return none
}

// relates reports whether relationship inference runs: curation on, with an
// embedding and a chat model.
func (s *Service) relates() bool {
	return s.opts.Enabled && s.embedder != nil && s.judge != nil && s.jobs != nil
}

// relateJob finds a memory's similar neighbours and links those the chat
// model classifies with enough confidence. A deleted memory is done. A
// judgment whose reply does not parse is a failed judgment (recorded by
// callJudge) and the others still run; any other failure ends the job, to be
// retried later.
func (s *Service) relateJob(ctx context.Context, job memory.Job) error {
	m, err := s.store.GetMemory(ctx, job.Subject)
	if errors.Is(err, memory.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	// Background work on m sees what m's owner would (memory.CuratorOf), so
	// no edge it adds pairs one person's private memory with another's.
	ctx = memory.WithPrincipal(ctx, memory.CuratorOf(m.Namespace))
	vec, err := s.memoryVector(ctx, m)
	if err != nil {
		return err
	}
	if vec == nil {
		return nil // no memory has a vector yet: nothing to compare with
	}
	cands, err := s.similar(ctx, m, vec, s.opts.ContradictionThreshold, maxInferCandidates)
	if err != nil {
		return err
	}
	var linked int
	var badReply error
	for _, c := range cands {
		newer, older := m, c.mem
		if olderThan(m, c.mem) {
			newer, older = c.mem, m
		}
		rel, conf, reason, err := s.classifyRelation(ctx, newer, older)
		if errors.Is(err, memory.ErrBadReply) {
			badReply = err
			continue
		}
		if err != nil {
			return err
		}
		if rel == "" || conf < MinJudgmentConfidence {
			continue
		}
		if rel == memory.RelationSupersedes {
			if rel, reason, err = s.checkSupersedeVerdict(ctx, newer, older, reason); err != nil {
				return err
			}
		}
		_, _, err = s.linkOnce(ctx, newer.ID, older.ID, rel, conf, map[string]any{
			"reason": reason, "similarity": c.similarity, "source": "auto",
		})
		if err != nil && !errors.Is(err, memory.ErrNotFound) { // a partner deleted meanwhile is no failure
			return err
		}
		linked++
	}
	if linked > 0 {
		s.log().Info("relationships inferred", "memory_id", m.ID, "edges", linked)
	}
	if badReply != nil {
		return jobs.Permanent(badReply)
	}
	return nil
}
