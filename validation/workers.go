package validation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Relationship inference on store runs off the request path. MemoryStored only
// records a job in the database (curation_jobs) and returns; a small pool of
// Options.Workers goroutines claims jobs with a lease, so several processes
// sharing one database never run the same job twice at once, a job of a process
// that died is taken over when its lease runs out, and jobs left at exit are
// resumed at the next Start (by this process or any other).
//
// One job costs at most 1 embed call (the memory's content, to find neighbours)
// and maxInferCandidates (3) chat calls: the memories in the same scope with a
// cosine similarity of at least Options.ContradictionThreshold, best first,
// each classified by the chat model as relates_to, supersedes, caused_by,
// contradicts or none. A classification with confidence >= 0.7 becomes an edge
// from the newer memory to the older one. A supersedes verdict must also pass
// the record rule of memory_check_supersedes (see clearlyBetter): when the
// newer memory's validation record is not clearly better, or the older one is
// a golden rule, it becomes a contradicts edge instead. A model's guess never
// hides a better-validated memory; health analysis reports the conflict, and
// memory_check_supersedes settles it once the record speaks.

// Job kinds and queue settings.
const (
	jobKindRelate      = "relate"
	maxInferCandidates = 3
	jobLease           = 5 * time.Minute
	maxJobAttempts     = 5
	// pollInterval is how often an idle worker looks for jobs enqueued by other
	// processes; jobs enqueued by this one wake it at once.
	pollInterval = 15 * time.Second
	// retryPause is how long a worker waits after a failed job (Ollama down, say)
	// before claiming again, so a failing model is not hammered.
	retryPause = 30 * time.Second
	// releaseTimeout bounds the write that hands an interrupted job back.
	releaseTimeout = 5 * time.Second
)

// MemoryStored queues relationship inference for a newly stored memory and
// returns at once: it never waits for a model. It returns no relationships
// (they are found later; memory_inspect_graph_tool shows them). With curation
// disabled, or without an embedding or chat model, it does nothing.
func (s *Service) MemoryStored(ctx context.Context, m *memory.Memory) []memory.AutoRelationship {
	none := []memory.AutoRelationship{}
	if !s.opts.Enabled || m == nil || s.embedder == nil || s.judge == nil {
		return none
	}
	if _, err := s.store.EnqueueJob(ctx, m.ID, jobKindRelate); err != nil {
		s.log().Warn("queueing relationship inference failed", "memory_id", m.ID, "err", err)
		return none
	}
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return none
}

// Start starts the worker pool, which at once resumes jobs recorded in the
// database. It does nothing when curation is disabled or the pool runs. When
// ctx ends the workers stop claiming jobs (the jobs in flight finish); Close
// waits for them.
func (s *Service) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || !s.opts.Enabled || s.embedder == nil || s.judge == nil {
		return
	}
	s.started = true
	s.draining = make(chan struct{})
	work, abort := context.WithCancel(context.WithoutCancel(ctx))
	s.abort = abort
	s.wg.Add(s.opts.Workers)
	for range s.opts.Workers {
		go s.worker(ctx, work)
	}
}

// Close stops the pool: workers keep claiming until the queue is empty, finish
// the jobs they hold and exit. If ctx ends first, the jobs in flight are
// interrupted and handed back to the queue (resumed at the next Start), and
// Close returns an error saying so. It returns nil when the pool is not running.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	if !s.started {
		s.mu.Unlock()
		return nil
	}
	close(s.draining)
	abort := s.abort
	s.mu.Unlock()

	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		abort()
		<-done
		err = fmt.Errorf("curation workers stopped before the queue was drained; the rest is resumed at next start: %w", ctx.Err())
	}
	abort()
	s.mu.Lock()
	s.started = false
	s.mu.Unlock()
	return err
}

// worker claims and runs jobs one at a time until told to stop.
func (s *Service) worker(startCtx, work context.Context) {
	defer s.wg.Done()
	for work.Err() == nil {
		jobs, err := s.store.ClaimJobs(work, 1, jobLease)
		if err != nil {
			if work.Err() == nil {
				s.log().Warn("claiming curation jobs failed", "err", err)
			}
			if s.stopping(startCtx) || !s.wait(startCtx, work, retryPause) {
				return
			}
			continue
		}
		if len(jobs) == 0 {
			if s.stopping(startCtx) || !s.wait(startCtx, work, pollInterval) {
				return
			}
			continue
		}
		if ok := s.runJob(work, jobs[0]); !ok {
			// Leave failing jobs for later rather than retrying them while
			// draining; otherwise pause before the next claim.
			if s.stopping(startCtx) || !s.wait(startCtx, work, retryPause) {
				return
			}
		}
		if startCtx.Err() != nil {
			return // stop claiming; Close or the next Start takes the rest
		}
	}
}

// stopping reports whether the pool is draining or its start context ended.
func (s *Service) stopping(startCtx context.Context) bool {
	select {
	case <-s.draining:
		return true
	default:
		return startCtx.Err() != nil
	}
}

// wait idles until a job is enqueued, d passes or the pool stops; it reports
// whether the worker should go on.
func (s *Service) wait(startCtx, work context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.wake:
		return true
	case <-t.C:
		return true
	case <-s.draining:
		return true // claim what is left, then exit when the queue is empty
	case <-startCtx.Done():
		return false
	case <-work.Done():
		return false
	}
}

// runJob runs one job and finishes it in the queue; it reports success.
func (s *Service) runJob(ctx context.Context, job memory.Job) bool {
	rels, err := s.inferRelationships(ctx, job.MemoryID)
	finish := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		finish, cancel = context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
	}
	switch {
	case err == nil:
		if len(rels) > 0 {
			s.log().Info("relationships inferred", "memory_id", job.MemoryID, "edges", len(rels))
		}
		if ferr := s.store.FinishJob(finish, job.ID, "", false); ferr != nil {
			s.log().Warn("finishing curation job failed", "job", job.ID, "err", ferr)
		}
		return true
	case ctx.Err() != nil:
		// Interrupted by Close: hand it back whatever the attempts.
		_ = s.store.FinishJob(finish, job.ID, "interrupted at shutdown", true)
		return false
	default:
		retry := job.Attempts < maxJobAttempts
		s.log().Warn("relationship inference failed", "memory_id", job.MemoryID, "attempt", job.Attempts, "retry", retry, "err", err)
		if ferr := s.store.FinishJob(finish, job.ID, err.Error(), retry); ferr != nil {
			s.log().Warn("finishing curation job failed", "job", job.ID, "err", ferr)
		}
		return false
	}
}

// inferRelationships finds a memory's similar neighbours and links those the
// chat model classifies with enough confidence. A deleted memory is done. The
// job fails (to be retried) when no neighbour could be judged at all.
func (s *Service) inferRelationships(ctx context.Context, id string) ([]memory.AutoRelationship, error) {
	m, err := s.store.GetMemory(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vec, why := s.vectorOf(ctx, m)
	if vec == nil {
		return nil, errors.New(why)
	}
	cands, err := s.similar(ctx, m, vec, s.opts.ContradictionThreshold, maxInferCandidates)
	if err != nil {
		return nil, err
	}
	var out []memory.AutoRelationship
	var failures []string
	for _, c := range cands {
		newer, older := m, c.mem
		if olderThan(m, c.mem) {
			newer, older = c.mem, m
		}
		rel, conf, reason, err := s.classifyRelation(ctx, newer, older)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			failures = append(failures, c.mem.ID+": "+err.Error())
			continue
		}
		if rel == "" || conf < MinJudgmentConfidence {
			continue
		}
		if rel == memory.RelationSupersedes {
			if rel, reason, err = s.checkSupersedeVerdict(ctx, newer, older, reason); err != nil {
				return out, err
			}
		}
		edgeID, _, err := s.linkOnce(ctx, newer.ID, older.ID, rel, conf, map[string]any{
			"reason": reason, "similarity": c.similarity, "source": "auto",
		})
		if err != nil {
			if errors.Is(err, memory.ErrNotFound) {
				continue // deleted meanwhile
			}
			return out, err
		}
		out = append(out, memory.AutoRelationship{EdgeID: edgeID, SourceID: newer.ID, TargetID: older.ID, Relation: rel, Confidence: conf, Reason: reason})
	}
	if len(failures) > 0 && len(failures) == len(cands) {
		return out, fmt.Errorf("no judgment succeeded: %s", strings.Join(failures, "; "))
	}
	return out, nil
}
