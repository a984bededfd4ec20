package memory

import (
	"context"
	"errors"
	"time"
)

// Defaults of the background fill (Options.FillRetry, FillRetryMax, FillPoll).
const (
	DefaultFillRetry    = 2 * time.Second
	DefaultFillRetryMax = 5 * time.Minute
	DefaultFillPoll     = time.Minute
)

// wakeFill tells the background fill that a memory was left pending.
func (s *Service) wakeFill() {
	select {
	case s.fillWake <- struct{}{}:
	default: // already told
	}
}

// FillInBackground embeds pending memories for as long as ctx lasts, so a
// running server fills what it missed while Ollama was down: at once, whenever
// a store of this process leaves a memory pending, and every FillPoll for those
// other processes (hooks, the CLI) left. While Ollama fails it waits FillRetry,
// doubling up to FillRetryMax, between tries; a failure is logged when it
// starts, not on every try. One goroutine, one batch at a time.
func (s *Service) FillInBackground(ctx context.Context) {
	retry := s.opts.FillRetry
	failing := false
	for ctx.Err() == nil {
		n, err := s.fillPending(ctx)
		if n > 0 {
			s.log().Info("filled pending embeddings", "count", n)
		}
		wait := s.opts.FillPoll
		switch {
		case err == nil:
			if failing {
				s.log().Info("Ollama answers again: pending embeddings filled")
			}
			failing, retry = false, s.opts.FillRetry
		case ctx.Err() != nil:
			return
		case errors.Is(err, ErrUnavailable):
			if !failing {
				s.log().Warn("embeddings stay pending until Ollama answers; retrying with backoff", "reason", err)
			}
			failing, wait = true, retry
			retry = min(2*retry, s.opts.FillRetryMax)
		default: // another model's vectors in the store: nothing to do until a reindex
			if !failing {
				s.log().Warn("pending embeddings not filled", "err", err)
			}
			failing = true
		}
		if !s.sleepFill(ctx, wait, !failing) {
			return
		}
	}
}

// sleepFill waits d, or less when woken and wakeable; false when ctx ended.
func (s *Service) sleepFill(ctx context.Context, d time.Duration, wakeable bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	wake := s.fillWake
	if !wakeable {
		wake = nil // backing off: a new pending memory waits for the next try
	}
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-wake:
	}
	return true
}
