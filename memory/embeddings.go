package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Vectors of different models or dimensions are never compared: the store
// records the space its vectors were made in, and while the configured embedder
// does not match it, memories are stored pending and recall runs on keywords
// until `recall reindex` embeds everything again.

// pendingBatch is how many memories FillPendingEmbeddings embeds per request.
const pendingBatch = 32

// reindexHint tells the user how to leave a mismatched embedding space.
const reindexHint = "run `recall reindex` to embed every memory again with the configured model"

// EmbeddingStatus reports whether vectors can be used with the configured
// embedder and the store's embedding space, and if not, why. It does not call
// the embedder, so it says nothing about whether Ollama is running.
func (s *Service) EmbeddingStatus(ctx context.Context) (ok bool, reason string) {
	if s.embedder == nil {
		// Not a fault: Ollama is off by choice (RECALL_OLLAMA=off) or no model is set.
		return false, "no embedding model in use (RECALL_OLLAMA=off): searches match keywords, and new memories wait for their vectors until Ollama is on"
	}
	if _, err := s.usableSpace(ctx); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// usableSpace returns the store's embedding space when the configured embedder
// may add to it or search it (an empty space is usable: the first vector sets
// it), or an error saying why not.
func (s *Service) usableSpace(ctx context.Context) (EmbeddingSpace, error) {
	if s.embedder == nil {
		return EmbeddingSpace{}, fmt.Errorf("no embedding model configured: %w", ErrUnavailable)
	}
	space, err := s.store.EmbeddingSpace(ctx)
	if err != nil {
		return EmbeddingSpace{}, fmt.Errorf("reading the embedding space: %w", err)
	}
	if space.Model != "" && space.Model != s.embedder.Model() {
		return space, fmt.Errorf("stored vectors were made by %s (%d dimensions) but the configured model is %s; %s: %w",
			space.Model, space.Dimension, s.embedder.Model(), reindexHint, ErrEmbeddingMismatch)
	}
	return space, nil
}

// fitSpace checks a fresh vector against the store's space and records the
// space when it is the first vector ever.
func (s *Service) fitSpace(ctx context.Context, space EmbeddingSpace, dim int) (EmbeddingSpace, error) {
	if dim == 0 {
		return space, fmt.Errorf("the embedding model %s returned an empty vector: %w", s.embedder.Model(), ErrUnavailable)
	}
	if space.Model == "" {
		want := EmbeddingSpace{Model: s.embedder.Model(), Dimension: dim}
		got, err := s.store.ClaimEmbeddingSpace(ctx, want)
		if err != nil {
			return space, fmt.Errorf("recording the embedding space: %w", err)
		}
		if got.Model != want.Model {
			return got, fmt.Errorf("stored vectors were made by %q (%d dimensions) but the configured model is %s; %s: %w",
				got.Model, got.Dimension, want.Model, reindexHint, ErrEmbeddingMismatch)
		}
		space = got
	}
	if space.Dimension != dim {
		return space, fmt.Errorf("stored vectors have %d dimensions but %s returned %d; %s: %w",
			space.Dimension, s.embedder.Model(), dim, reindexHint, ErrEmbeddingMismatch)
	}
	return space, nil
}

// embedDocument embeds the content of a memory to be stored. On any failure it
// returns nil and an error saying why; the caller stores the memory pending.
func (s *Service) embedDocument(ctx context.Context, content string) ([]float32, error) {
	space, err := s.usableSpace(ctx)
	if err != nil {
		return nil, err
	}
	vecs, err := s.embedder.EmbedDocuments(ctx, []string{content})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("the embedding model %s returned %d vectors for 1 text: %w", s.embedder.Model(), len(vecs), ErrUnavailable)
	}
	if _, err := s.fitSpace(ctx, space, len(vecs[0])); err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// EmbedMemory embeds a stored memory that has no vector yet and stores the
// vector, for curation that needs it before the background fill gets to it.
// It fails as embedDocument does; a memory deleted meanwhile is ErrNotFound.
func (s *Service) EmbedMemory(ctx context.Context, m *Memory) ([]float32, error) {
	vec, err := s.embedDocument(ctx, m.Content)
	if err != nil {
		return nil, err
	}
	if err := s.store.SetEmbedding(ctx, m.ID, vec); err != nil {
		return nil, err
	}
	m.EmbeddingPending = false
	return vec, nil
}

// embedQuery embeds a search query, or says why vectors cannot be used.
// searchable is false when the store holds no vectors yet.
func (s *Service) embedQuery(ctx context.Context, query string) (vec []float32, searchable bool, err error) {
	space, err := s.usableSpace(ctx)
	if err != nil {
		return nil, false, err
	}
	vec, err = s.embedQueryVector(ctx, query)
	if err != nil {
		return nil, false, err
	}
	return s.fitQueryVector(space, vec)
}

// embedQueryVector asks the embedder for the query's vector within
// QueryEmbedTimeout, without looking at the store.
func (s *Service) embedQueryVector(ctx context.Context, query string) ([]float32, error) {
	if s.embedder == nil {
		return nil, fmt.Errorf("no embedding model configured: %w", ErrUnavailable)
	}
	if s.opts.QueryEmbedTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.QueryEmbedTimeout)
		defer cancel()
	}
	return s.embedder.EmbedQuery(ctx, query)
}

// checkQueryVector is embedQuery for a vector asked for beforehand (vec, or
// the error of asking): the store's space is checked after the fact.
func (s *Service) checkQueryVector(ctx context.Context, vec []float32, embedErr error) ([]float32, bool, error) {
	space, err := s.usableSpace(ctx)
	if err != nil {
		return nil, false, err
	}
	if embedErr != nil {
		return nil, false, embedErr
	}
	return s.fitQueryVector(space, vec)
}

// fitQueryVector says whether a query's vector can be compared with the
// stored ones.
func (s *Service) fitQueryVector(space EmbeddingSpace, vec []float32) ([]float32, bool, error) {
	if space.Model == "" {
		return vec, false, nil
	}
	if len(vec) != space.Dimension {
		return nil, false, fmt.Errorf("stored vectors have %d dimensions but %s returned %d; %s: %w",
			space.Dimension, s.embedder.Model(), len(vec), reindexHint, ErrEmbeddingMismatch)
	}
	return vec, true, nil
}

// FillPendingEmbeddings embeds memories stored while Ollama was unavailable, in
// batches, until none is left or the embedder fails; it returns how many it
// filled. An unavailable embedder stops it quietly (nil error: the memories stay
// pending for the next try); a mismatched embedding space is an error wrapping
// ErrEmbeddingMismatch.
func (s *Service) FillPendingEmbeddings(ctx context.Context) (int, error) {
	n, err := s.fillPending(ctx)
	if errors.Is(err, ErrUnavailable) {
		s.log().Info("embeddings stay pending", "filled", n, "reason", err)
		return n, nil
	}
	return n, err
}

func (s *Service) fillPending(ctx context.Context) (int, error) {
	space, err := s.usableSpace(ctx)
	if err != nil {
		return 0, err
	}
	filled := 0
	seen := map[string]bool{}
	sizer := newBatchSizer()
	for {
		if err := ctx.Err(); err != nil {
			return filled, err
		}
		batch, err := s.store.PendingEmbeddings(ctx, pendingBatch)
		if err != nil {
			return filled, fmt.Errorf("listing pending embeddings: %w", err)
		}
		batch = s.notBeingStored(unseen(batch, seen))
		if len(batch) == 0 {
			_, err := s.fillChunks(ctx)
			return filled, err
		}
		err = s.embedInBatches(ctx, contents(batch), sizer, func(first int, vecs [][]float32) error {
			for j, vec := range vecs {
				m := batch[first+j]
				if space, err = s.fitSpace(ctx, space, len(vec)); err != nil {
					return err
				}
				if err := s.store.SetEmbedding(ctx, m.ID, vec); err != nil {
					if errors.Is(err, ErrNotFound) {
						continue // deleted meanwhile
					}
					return fmt.Errorf("storing the vector of %s: %w", m.ID, err)
				}
				filled++
			}
			return nil
		}, func(i int, err error) {
			s.log().Warn("embedding one memory timed out; it stays pending", "memory_id", batch[i].ID, "err", err)
		})
		if err != nil {
			return filled, err
		}
	}
}

// contents lists the memories' texts.
func contents(ms []*Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}

// notBeingStored drops memories whose store is embedding them now: one that
// fails leaves its memory pending and wakes the fill again.
func (s *Service) notBeingStored(batch []*Memory) []*Memory {
	out := batch[:0]
	for _, m := range batch {
		if _, busy := s.storing.Load(m.ID); !busy {
			out = append(out, m)
		}
	}
	return out
}

// unseen drops memories already handled in this run and marks the rest seen, so
// a store that fails to clear the pending mark cannot loop forever.
func unseen(batch []*Memory, seen map[string]bool) []*Memory {
	out := batch[:0]
	for _, m := range batch {
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	return out
}

// CheckVector refuses vectors cosine distance is undefined for: all zeros, or
// holding NaN or infinity. Every store checks a vector with it before keeping
// or searching with it.
func CheckVector(vec []float32) error {
	var norm float64
	for _, f := range vec {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return Invalidf("vector", "with NaN or infinity", "finite numbers")
		}
		norm += float64(f) * float64(f)
	}
	if norm == 0 {
		return Invalidf("vector", "of zeros", "a vector with a non-zero length")
	}
	return nil
}
