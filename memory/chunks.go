package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Long memories. Ollama reads no more than the embedding model's context (512
// tokens for mxbai-embed-large) and silently drops the rest, so the vector of
// a 20,000-character memory covers its first page only. A memory longer than
// that is also embedded in later parts that fit, each part's vector kept, and
// vector search scores the memory by its best part (its first part is the
// memory's own vector). Parts are embedded in the background, after the memory
// has its first vector: a store never waits for them.

const (
	// defaultContextTokens is assumed when the embedder cannot say.
	defaultContextTokens = 512
	// bytesPerToken is a cautious guess (English is about 4 bytes a token, code
	// and identifiers fewer), so a part fits the context.
	bytesPerToken = 3
	// partOverlap is how much of the previous part a part repeats, so a
	// sentence cut at a boundary is whole in one of them.
	partOverlap = 200
	chunkPage   = 16
)

// ContextReporter is an Embedder that knows its model's context in tokens.
type ContextReporter interface {
	ContextLength(ctx context.Context) int
}

// partBytes is the length of one part for the configured embedder.
func (s *Service) partBytes(ctx context.Context) int {
	tokens := defaultContextTokens
	if cr, ok := s.embedder.(ContextReporter); ok {
		if n := cr.ContextLength(ctx); n > 0 {
			tokens = n
		}
	}
	return tokens * bytesPerToken
}

// laterParts cuts what follows the first size bytes of text into parts of at
// most size bytes, each starting partOverlap bytes before the previous one
// ended, cut at spaces where it can.
func laterParts(text string, size int) []string {
	var parts []string
	for start := cutPoint(text, size); start < len(text); {
		from := cutPoint(text, max(start-partOverlap, 0))
		end := cutPoint(text, min(from+size, len(text)))
		if end <= from {
			end = len(text)
		}
		parts = append(parts, text[from:end])
		if end >= len(text) {
			break
		}
		start = end
	}
	return parts
}

// cutPoint moves i back to just after a space within 100 bytes, else to a
// rune boundary.
func cutPoint(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	if j := strings.LastIndexByte(text[max(i-100, 0):i], ' '); j >= 0 {
		return max(i-100, 0) + j + 1
	}
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

// fillChunks embeds the later parts of long memories that have a vector but
// no parts yet; it returns how many memories it completed.
func (s *Service) fillChunks(ctx context.Context) (int, error) {
	size := s.partBytes(ctx)
	var skip []string
	done := 0
	sizer := newBatchSizer()
	for {
		batch, err := s.store.UnchunkedLongMemories(ctx, size, chunkPage, skip)
		if err != nil || len(batch) == 0 {
			return done, err
		}
		for _, m := range batch {
			parts := laterParts(m.Content, size)
			vecs := make([][]float32, 0, len(parts))
			err := s.embedInBatches(ctx, parts, sizer, func(_ int, got [][]float32) error {
				vecs = append(vecs, got...)
				return nil
			}, func(int, error) {})
			if err != nil {
				return done, err
			}
			if len(vecs) != len(parts) { // a part timed out alone: try again another time
				skip = append(skip, m.ID)
				continue
			}
			if err := s.store.SetChunkEmbeddings(ctx, m.ID, vecs); err != nil {
				if errors.Is(err, ErrNotFound) || errors.Is(err, ErrEmbeddingMismatch) {
					skip = append(skip, m.ID)
					continue
				}
				return done, fmt.Errorf("storing the part vectors of %s: %w", m.ID, err)
			}
			done++
		}
	}
}

// withBestParts raises each memory's score to that of its best later part
// and adds memories found by a part alone; best first.
func withBestParts(hits, parts []Hit) []Hit {
	if len(parts) == 0 {
		return hits
	}
	best := make(map[string]float64, len(hits)+len(parts))
	for _, h := range append(slices.Clone(hits), parts...) {
		if cur, ok := best[h.ID]; !ok || h.Score > cur {
			best[h.ID] = h.Score
		}
	}
	out := make([]Hit, 0, len(best))
	for id, score := range best {
		out = append(out, Hit{ID: id, Score: score})
	}
	slices.SortFunc(out, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return out
}
