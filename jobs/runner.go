// Package jobs runs the work Recall does off the request path: relationship
// inference after a store (kind relate) and session summaries (kind summary).
// A job is a row in the database (kind, subject), so a restart resumes it and
// processes sharing one database share the queue: a worker leases a job, so
// two never run it at once, and a job of a process that died is taken over
// when its lease runs out.
//
// One rule for every kind: a job is never dropped because Ollama is away or
// slow. A handler's error decides the job's fate:
//   - nil: done, removed;
//   - a cause no later attempt can fix (an error wrapped by Permanent, or a
//     model reply that does not parse, memory.ErrBadReply: the same question
//     at temperature 0 gets the same reply): failed for good, kept on record
//     with its cause (stats and doctor show it), never run again;
//   - anything else (Ollama down, a timeout, a model not pulled yet, a busy
//     database) is passing: the job waits RetryDelay(attempts), 30 s doubling
//     up to an hour, behind the jobs that are due, and runs again.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Queue is the job table. storage implements it.
type Queue interface {
	// EnqueueJob records work of kind about subject and returns its id; the
	// same (subject, kind) already pending is one job (run once more when it
	// was queued again while running).
	EnqueueJob(ctx context.Context, subject, kind string) (int64, error)
	// ClaimJobs leases up to limit due jobs of kinds, fresh jobs first and then
	// retried ones by the time they became due; a job whose lease ran out (its
	// process died) can be claimed again.
	ClaimJobs(ctx context.Context, kinds []string, limit int, lease time.Duration) ([]memory.Job, error)
	// FinishJob removes a job that is done.
	FinishJob(ctx context.Context, id int64) error
	// RetryJob records why a job failed and releases it, due again at at.
	RetryJob(ctx context.Context, id int64, errMsg string, at time.Time) error
	// FailJob marks a job failed for good, keeping it on record with cause.
	FailJob(ctx context.Context, id int64, cause string) error
}

// Handler runs one job of a kind (see the package comment for what its error
// means).
type Handler func(ctx context.Context, job memory.Job) error

// errPermanent marks a handler's error as one no later attempt can fix.
var errPermanent = errors.New("no later attempt can succeed")

// Permanent wraps err as a cause no later attempt can fix: the job fails for
// good, with err recorded.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w (%w)", err, errPermanent)
}

// IsPermanent reports whether a handler's error ends its job for good.
func IsPermanent(err error) bool {
	return errors.Is(err, errPermanent) || errors.Is(err, memory.ErrBadReply)
}

// Settings of the runner.
const (
	DefaultWorkers = 2
	lease          = 5 * time.Minute
	// pollInterval is how often an idle worker looks for jobs enqueued by other
	// processes (the hooks) or due again; jobs enqueued by this one wake it.
	pollInterval = 15 * time.Second
	retryBase    = 30 * time.Second
	retryCap     = time.Hour
	// releaseTimeout bounds the write that hands an interrupted job back.
	releaseTimeout = 5 * time.Second
)

// RetryDelay is the wait before attempt number attempts+1 of a job that
// failed for a passing cause.
func RetryDelay(attempts int) time.Duration {
	d := retryBase
	for i := 1; i < attempts && d < retryCap; i++ {
		d *= 2
	}
	return min(d, retryCap)
}

// Options configure a Runner.
type Options struct {
	Workers int // goroutines running jobs; DefaultWorkers when 0
	Logger  *slog.Logger
	// Poll overrides how often an idle worker looks for jobs (tests).
	Poll time.Duration
}

// Runner is the pool of workers that runs the queue's jobs by kind.
type Runner struct {
	queue Queue
	opts  Options
	wake  chan struct{} // a job was enqueued; buffered, one slot per worker

	mu       sync.Mutex
	handlers map[string]Handler
	started  bool
	draining chan struct{}      // closed by Close: claim what is left, then exit
	abort    context.CancelFunc // interrupts the jobs in flight
	wg       sync.WaitGroup     // the running workers
}

// New builds a Runner over queue.
func New(queue Queue, opts Options) *Runner {
	opts.Workers = memory.PositiveOr(opts.Workers, DefaultWorkers)
	opts.Poll = memory.PositiveOr(opts.Poll, pollInterval)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Runner{queue: queue, opts: opts, wake: make(chan struct{}, opts.Workers), handlers: map[string]Handler{}}
}

// Handle makes h run the jobs of kind; call it before Start. Jobs of a kind
// without a handler stay in the queue for a process that has one.
func (r *Runner) Handle(kind string, h Handler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers[kind] = h
}

// Handles reports whether the runner has a handler for kind.
func (r *Runner) Handles(kind string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.handlers[kind] != nil
}

// Enqueue records a job and wakes a worker.
func (r *Runner) Enqueue(ctx context.Context, subject, kind string) error {
	if _, err := r.queue.EnqueueJob(ctx, subject, kind); err != nil {
		return err
	}
	select {
	case r.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return nil
}

func (r *Runner) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	kinds := make([]string, 0, len(r.handlers))
	for k := range r.handlers {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// Start starts the workers, which at once resume the jobs recorded in the
// database. It does nothing without handlers or when the workers run. When ctx
// ends the workers stop claiming (the jobs in flight finish); Close waits.
func (r *Runner) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started || len(r.handlers) == 0 {
		return
	}
	r.started = true
	r.draining = make(chan struct{})
	work, abort := context.WithCancel(context.WithoutCancel(ctx))
	r.abort = abort
	r.wg.Add(r.opts.Workers)
	for range r.opts.Workers {
		go r.worker(ctx, work)
	}
}

// Close stops the workers: they keep claiming until no job is due, finish the
// jobs they hold and exit. If ctx ends first, the jobs in flight are
// interrupted and handed back (resumed at the next Start), and Close returns an
// error saying so. It returns nil when the workers are not running.
func (r *Runner) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.started {
		r.mu.Unlock()
		return nil
	}
	close(r.draining)
	abort := r.abort
	r.mu.Unlock()

	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		abort()
		<-done
		err = fmt.Errorf("job workers stopped before the queue was drained; the rest is resumed at next start: %w", ctx.Err())
	}
	abort()
	r.mu.Lock()
	r.started = false
	r.mu.Unlock()
	return err
}

// worker claims and runs jobs one at a time until told to stop. A failed job
// is rescheduled in the database, so the worker goes straight on to the next.
func (r *Runner) worker(startCtx, work context.Context) {
	defer r.wg.Done()
	kinds := r.kinds()
	for work.Err() == nil {
		jobs, err := r.queue.ClaimJobs(work, kinds, 1, lease)
		if err != nil && work.Err() == nil {
			r.opts.Logger.Warn("claiming jobs failed", "err", err)
		}
		if len(jobs) == 0 {
			if r.stopping(startCtx) || !r.wait(startCtx, work) {
				return
			}
			continue
		}
		r.run(work, jobs[0])
		if startCtx.Err() != nil {
			return // stop claiming; Close or the next Start takes the rest
		}
	}
}

// stopping reports whether the pool is draining or its start context ended.
func (r *Runner) stopping(startCtx context.Context) bool {
	select {
	case <-r.draining:
		return true
	default:
		return startCtx.Err() != nil
	}
}

// wait idles until a job is enqueued, the poll interval passes or the pool
// stops; it reports whether the worker should go on.
func (r *Runner) wait(startCtx, work context.Context) bool {
	t := time.NewTimer(r.opts.Poll)
	defer t.Stop()
	select {
	case <-r.wake:
		return true
	case <-t.C:
		return true
	case <-r.draining:
		return true // claim what is left, then exit when nothing is due
	case <-startCtx.Done():
		return false
	case <-work.Done():
		return false
	}
}

// run runs one job and settles it in the queue: done, failed for good, or
// rescheduled after a passing failure.
func (r *Runner) run(ctx context.Context, job memory.Job) {
	r.mu.Lock()
	handler := r.handlers[job.Kind]
	r.mu.Unlock()
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
	log := r.opts.Logger.With("kind", job.Kind, "subject", job.Subject, "attempt", job.Attempts)
	var ferr error
	switch {
	case err == nil:
		ferr = r.queue.FinishJob(finish, job.ID)
	case ctx.Err() != nil:
		// Interrupted by Close: hand it back, due at once at the next start.
		ferr = r.queue.RetryJob(finish, job.ID, "interrupted at shutdown", time.Now())
	case IsPermanent(err):
		log.Warn("job failed for good", "err", err)
		ferr = r.queue.FailJob(finish, job.ID, err.Error())
	default:
		delay := RetryDelay(job.Attempts)
		log.Debug("job failed; retried later", "retry_in", delay, "err", err)
		ferr = r.queue.RetryJob(finish, job.ID, err.Error(), time.Now().Add(delay))
	}
	if ferr != nil {
		log.Warn("settling a job failed", "job", job.ID, "err", ferr)
	}
}
