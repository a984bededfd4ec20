package validation

import (
	"context"
	"errors"
	"fmt"
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
// Each job kind has a handler (HandleJobs); relate is the one curation brings.
// A handler's error decides the job's fate:
//   - nil: done, removed;
//   - a reply that does not parse (memory.ErrBadReply) or ErrNotRetryable: the
//     work failed for good (asking the same model the same question at
//     temperature 0 gets the same reply), recorded and removed;
//   - anything else (Ollama down, a timeout, a model not pulled yet, a busy
//     database) is passing: the job waits retryDelay(attempts), 30 s doubling up
//     to an hour, behind the jobs that are due, and is never dropped for it.
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

// Job kinds and queue settings.
const (
	jobKindRelate      = "relate"
	maxInferCandidates = 3
	jobLease           = 5 * time.Minute
	// pollInterval is how often an idle worker looks for jobs enqueued by other
	// processes or due again; jobs enqueued by this one wake it at once.
	pollInterval = 15 * time.Second
	// retryBase and retryCap bound the wait before a failed job's next attempt.
	retryBase = 30 * time.Second
	retryCap  = time.Hour
	// releaseTimeout bounds the write that hands an interrupted job back.
	releaseTimeout = 5 * time.Second
)

// ErrNotRetryable marks a job error that no later attempt can fix; the job is
// removed instead of retried.
var ErrNotRetryable = errors.New("cannot succeed on a later attempt")

// JobHandler runs one job of a kind (see the package comment for what its
// error means).
type JobHandler func(ctx context.Context, job memory.Job) error

// HandleJobs makes h run the jobs of kind; call it before Start. Jobs of a kind
// without a handler wait in the queue for a process that has one.
func (s *Service) HandleJobs(kind string, h JobHandler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[kind] = h
}

// Enqueue records a job of kind for a memory and wakes a worker.
func (s *Service) Enqueue(ctx context.Context, memoryID, kind string) error {
	if _, err := s.store.EnqueueJob(ctx, memoryID, kind); err != nil {
		return err
	}
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return nil
}

// retryDelay is the wait before attempt number attempts+1 of a failed job.
func retryDelay(attempts int) time.Duration {
	d := retryBase
	for i := 1; i < attempts && d < retryCap; i++ {
		d *= 2
	}
	return min(d, retryCap)
}

// MemoryStored queues relationship inference for a newly stored memory and
// returns at once: it never waits for a model. It returns no relationships
// (they are found later; memory_inspect_graph_tool shows them). With curation
// disabled, or without an embedding or chat model, it does nothing.
func (s *Service) MemoryStored(ctx context.Context, m *memory.Memory) []memory.AutoRelationship {
	none := []memory.AutoRelationship{}
	if !s.opts.Enabled || m == nil || s.embedder == nil || s.judge == nil {
		return none
	}
	if err := s.Enqueue(ctx, m.ID, jobKindRelate); err != nil {
		s.log().Warn("queueing relationship inference failed", "memory_id", m.ID, "err", err)
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

// worker claims and runs jobs one at a time until told to stop. A failed job
// is rescheduled in the database, so the worker goes straight on to the next.
func (s *Service) worker(startCtx, work context.Context) {
	defer s.wg.Done()
	for work.Err() == nil {
		jobs, err := s.store.ClaimJobs(work, 1, jobLease)
		if err != nil && work.Err() == nil {
			s.log().Warn("claiming curation jobs failed", "err", err)
		}
		if len(jobs) == 0 {
			if s.stopping(startCtx) || !s.wait(startCtx, work, pollInterval) {
				return
			}
			continue
		}
		s.runJob(work, jobs[0])
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

// runJob runs one job and finishes it in the queue: done, failed for good, or
// rescheduled after a passing failure.
func (s *Service) runJob(ctx context.Context, job memory.Job) {
	s.mu.Lock()
	handler := s.handlers[job.Kind]
	s.mu.Unlock()
	err := fmt.Errorf("no handler for jobs of kind %q in this process", job.Kind)
	if handler != nil {
		err = handler(ctx, job)
	}
	finish := ctx
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		finish, cancel = context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
	}
	var ferr error
	switch {
	case err == nil:
		ferr = s.store.FinishJob(finish, job.ID)
	case ctx.Err() != nil:
		// Interrupted by Close: hand it back, due at once at the next start.
		ferr = s.store.RetryJob(finish, job.ID, "interrupted at shutdown", time.Now())
	case errors.Is(err, memory.ErrBadReply) || errors.Is(err, ErrNotRetryable):
		s.log().Debug("curation job failed for good", "kind", job.Kind, "memory_id", job.MemoryID, "err", err)
		ferr = s.store.FinishJob(finish, job.ID)
	default:
		delay := retryDelay(job.Attempts)
		s.log().Debug("curation job failed; retried later", "kind", job.Kind, "memory_id", job.MemoryID,
			"attempt", job.Attempts, "retry_in", delay, "err", err)
		ferr = s.store.RetryJob(finish, job.ID, err.Error(), time.Now().Add(delay))
	}
	if ferr != nil {
		s.log().Warn("finishing curation job failed", "job", job.ID, "err", ferr)
	}
}

// relateJob finds a memory's similar neighbours and links those the chat
// model classifies with enough confidence. A deleted memory is done. A
// judgment whose reply does not parse is a failed judgment (recorded by
// callJudge) and the others still run; any other failure ends the job, to be
// retried later.
func (s *Service) relateJob(ctx context.Context, job memory.Job) error {
	m, err := s.store.GetMemory(ctx, job.MemoryID)
	if errors.Is(err, memory.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
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
	return badReply
}
