package memory

import (
	"context"
	"fmt"
	"time"
)

// reindexPage is how many memories a reindex reads from the store at a time.
const reindexPage = 256

// ReindexProgress is how far a reindex got.
type ReindexProgress struct {
	Done    int           // memories with a new vector, earlier runs included
	Total   int           // memories when the run began
	Skipped int           // memories Ollama timed out on, alone; left pending
	Resumed int           // memories an earlier, interrupted run had done
	Elapsed time.Duration // of this run
}

// Reindex embeds every memory again with the configured model (after a model
// change, say) without throwing a vector away: new vectors are staged beside
// the old ones, which search keeps using, and swapped in at once when every
// memory has one. A run that is interrupted or killed keeps what it staged; the
// next run continues from there. Requests are sized by text length and halved
// on a timeout (see batchSizer). progress, when not nil, is told after every
// request. It returns the final progress; an error says how far it got.
func (s *Service) Reindex(ctx context.Context, progress func(ReindexProgress)) (ReindexProgress, error) {
	var p ReindexProgress
	if s.embedder == nil {
		return p, fmt.Errorf("reindex needs an embedding model and none is configured: %w", ErrUnavailable)
	}
	// The caller names the command; these say which step failed.
	space, err := s.probeSpace(ctx)
	if err != nil {
		return p, fmt.Errorf("asking the embedding model for its dimension: %w", err)
	}
	if p.Resumed, err = s.store.BeginReindex(ctx, space); err != nil {
		return p, fmt.Errorf("starting the new embedding space: %w", err)
	}
	if p.Total, err = s.store.CountMemories(ctx, Filter{IncludeSuperseded: true}); err != nil {
		return p, fmt.Errorf("counting memories: %w", err)
	}
	p.Done = p.Resumed
	start := time.Now()
	report := func() {
		p.Elapsed = time.Since(start)
		if progress != nil {
			progress(p)
		}
	}
	report()
	var skipped []string
	sizer := newBatchSizer()
	for {
		batch, err := s.store.ReindexPending(ctx, reindexPage, skipped)
		if err != nil {
			return p, fmt.Errorf("reading memories to embed: %w", err)
		}
		if len(batch) == 0 {
			break
		}
		err = s.embedInBatches(ctx, contents(batch), sizer, func(first int, vecs [][]float32) error {
			staged := make(map[string][]float32, len(vecs))
			for j, vec := range vecs {
				if len(vec) != space.Dimension {
					return fmt.Errorf("the embedding model %s returned %d dimensions, then %d: %w", space.Model, space.Dimension, len(vec), ErrUnavailable)
				}
				staged[batch[first+j].ID] = vec
			}
			// Written even if the run is being interrupted: the work is done.
			if err := s.store.StageVectors(context.WithoutCancel(ctx), staged); err != nil {
				return err
			}
			p.Done += len(vecs)
			report()
			return nil
		}, func(i int, err error) {
			skipped = append(skipped, batch[i].ID)
			p.Skipped++
			s.log().Warn("Ollama timed out embedding one memory alone; it is left pending", "memory_id", batch[i].ID, "err", err)
		})
		if err != nil {
			return p, fmt.Errorf("reindex stopped after %d of %d memories; the old vectors stay in use, and running it again continues from here: %w", p.Done, p.Total, err)
		}
	}
	if _, err := s.store.FinishReindex(context.WithoutCancel(ctx)); err != nil {
		return p, fmt.Errorf("switching to the new vectors: %w", err)
	}
	// The later parts of long memories, in the new space.
	if _, err := s.fillChunks(ctx); err != nil {
		return p, fmt.Errorf("every memory has its new vector, but the parts of long memories stay to do (recall serve does them): %w", err)
	}
	report()
	return p, nil
}

// probeSpace embeds a short text to learn the configured model's dimension.
func (s *Service) probeSpace(ctx context.Context) (EmbeddingSpace, error) {
	probe, err := s.embedder.EmbedDocuments(ctx, []string{"embedding dimension probe"})
	if err != nil {
		return EmbeddingSpace{}, err
	}
	if len(probe) != 1 || len(probe[0]) == 0 {
		return EmbeddingSpace{}, fmt.Errorf("the embedding model %s returned no vector: %w", s.embedder.Model(), ErrUnavailable)
	}
	return EmbeddingSpace{Model: s.embedder.Model(), Dimension: len(probe[0])}, nil
}
