package validation

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// candidate is a memory similar to the one being curated.
type candidate struct {
	mem        *memory.Memory
	similarity float64
}

// scope is where a memory's curation partners live: its own namespace and
// global for a project memory, global alone for a global one. Memories of two
// different projects are never compared.
func scope(m *memory.Memory) []string {
	if m.Namespace == memory.GlobalNamespace {
		return []string{memory.GlobalNamespace}
	}
	return []string{m.Namespace, memory.GlobalNamespace}
}

// vectorOf returns a memory's vector (see memoryVector), or no vector and the
// reason similarity cannot be computed (no model, Ollama down, another model's
// vectors in the store).
func (s *Service) vectorOf(ctx context.Context, m *memory.Memory) ([]float32, string) {
	vec, err := s.memoryVector(ctx, m)
	if err != nil {
		return nil, err.Error()
	}
	if vec == nil {
		return nil, "no memory has a vector yet"
	}
	return vec, ""
}

// memoryVector returns the vector stored for a memory, or, for a memory still
// pending, embeds it with the configured model (one embed call) and stores the
// vector, so the work also fills the memory's place in vector search.
func (s *Service) memoryVector(ctx context.Context, m *memory.Memory) ([]float32, error) {
	if vec, err := s.store.Embedding(ctx, m.ID); err != nil || vec != nil {
		return vec, err
	}
	if s.embedder == nil || s.mem == nil {
		return nil, fmt.Errorf("no embedding model configured, so similar memories cannot be found: %w", memory.ErrUnavailable)
	}
	vec, err := s.mem.EmbedMemory(ctx, m)
	s.recordHealth(ctx, roleEmbed, err)
	if err != nil {
		return nil, fmt.Errorf("embedding the memory failed: %w", err)
	}
	return vec, nil
}

// similar returns up to limit memories in m's scope (never another person's
// private memory, nor a private one for a shared m), other than m, whose
// cosine similarity to vec is at least threshold, most similar first, with
// superseded memories left out.
func (s *Service) similar(ctx context.Context, m *memory.Memory, vec []float32, threshold float64, limit int) ([]candidate, error) {
	// The store enforces the boundary too: a private memory meets the shared
	// ones and its owner's, a shared one the shared ones alone, whoever asks.
	ctx = memory.WithPrincipal(ctx, memory.CuratorOf(m.Namespace))
	hits, err := s.store.SearchVector(ctx, vec, memory.Filter{Namespaces: scope(m)}, limit+1)
	if err != nil {
		return nil, fmt.Errorf("searching similar memories: %w", err)
	}
	ids := make([]string, 0, len(hits))
	scores := map[string]float64{}
	for _, h := range hits {
		if h.ID == m.ID || h.Score < threshold {
			continue
		}
		ids = append(ids, h.ID)
		scores[h.ID] = h.Score
	}
	if len(ids) > limit {
		ids = ids[:limit]
	}
	got, err := s.store.GetMemories(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("loading similar memories: %w", err)
	}
	out := make([]candidate, 0, len(ids))
	for _, id := range ids {
		if c, ok := got[id]; ok {
			out = append(out, candidate{mem: c, similarity: round4(scores[id])})
		}
	}
	return out, nil
}

// checkThreshold validates a similarity threshold; nil takes def.
func checkThreshold(v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if *v != *v || *v <= 0 || *v > 1 {
		return 0, memory.Invalidf("similarity_threshold", *v, "a number greater than 0 and at most 1 (default 0.7)")
	}
	return *v, nil
}

// boolOr returns *b, or def when b is nil.
func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}
