package memory

import (
	"context"
	"errors"
	"fmt"
)

// Remember stores one memory. Storing content already stored in the namespace
// (same ContentHash) returns the existing memory with Duplicate set. The memory
// is written first and embedded after, so it is durable before any model call
// and a duplicate costs none. It stays stored when it cannot be embedded (no
// embedder, Ollama down, another model's vectors in the store): it is then
// EmbeddingPending, searchable by keywords, and the Warning says why.
func (s *Service) Remember(ctx context.Context, req StoreRequest) (*StoreResult, error) {
	m, err := s.newMemory(ctx, req)
	if err != nil {
		return nil, err
	}
	m.EmbeddingPending = true
	// Pending from its insert, it is this store's to embed, not the
	// background fill's, until the store is done trying.
	s.storing.Store(m.ID, struct{}{})
	stored, created, err := s.store.InsertMemory(ctx, m, nil)
	if err != nil {
		s.storing.Delete(m.ID)
		return nil, fmt.Errorf("storing memory: %w", err)
	}
	res := &StoreResult{
		ID:                stored.ID,
		ContentHash:       stored.ContentHash,
		Namespace:         stored.Namespace,
		MemoryType:        stored.Type,
		Duplicate:         !created,
		EmbeddingPending:  stored.EmbeddingPending,
		AutoRelationships: []AutoRelationship{},
	}
	if !created {
		s.storing.Delete(m.ID)
		return res, nil // the existing memory keeps its own vector state
	}

	err = s.embedStored(ctx, stored)
	s.storing.Delete(m.ID)
	if err != nil {
		res.Warning = "stored without a vector, searchable by keywords until it is embedded in the background: " + err.Error()
		s.log().Warn("memory stored without embedding", "memory_id", stored.ID, "reason", err)
		s.wakeFill()
	} else {
		stored.EmbeddingPending, res.EmbeddingPending = false, false
		if len(stored.Content) > s.partBytes(ctx) {
			s.wakeFill() // its later parts are embedded in the background
		}
	}
	if s.curator != nil {
		if rels := s.curator.MemoryStored(ctx, stored); rels != nil {
			res.AutoRelationships = rels
		}
	}
	return res, nil
}

// embedStored embeds a memory just stored, waiting at most StoreEmbedTimeout:
// a store answers quickly even when Ollama hangs, and what it could not embed
// the background fill does.
func (s *Service) embedStored(ctx context.Context, m *Memory) error {
	if s.opts.StoreEmbedTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.StoreEmbedTimeout)
		defer cancel()
	}
	vec, err := s.embedDocument(ctx, m.Content)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no vector within the store's wait of %s for Ollama (RECALL_STORE_EMBED_TIMEOUT): %w", s.opts.StoreEmbedTimeout, err)
		}
		return err
	}
	// The write must not be cut short by the wait: the vector is here.
	return s.store.SetEmbedding(context.WithoutCancel(ctx), m.ID, vec)
}

// cleanContent checks a memory's text and takes out what must not be kept
// (<private> sections, secrets), as a store and an edit both do.
func (s *Service) cleanContent(raw string) (string, error) {
	content, err := checkText("content", raw, MaxContentBytes)
	if err != nil || s.opts.Scrub == nil {
		return content, err
	}
	if content, err = checkText("content", s.opts.Scrub(content), MaxContentBytes); err != nil {
		return "", fmt.Errorf("%w (nothing is left once <private> sections are removed)", err)
	}
	return content, nil
}

// newMemory validates a store request and builds the memory it asks for.
func (s *Service) newMemory(ctx context.Context, req StoreRequest) (*Memory, error) {
	content, err := s.cleanContent(req.Content)
	if err != nil {
		return nil, err
	}
	typ := TypeSession
	if req.Type != "" {
		if typ, err = ParseType(string(req.Type)); err != nil {
			return nil, err
		}
	}
	ns := req.Namespace
	if ns == "" {
		ns = s.opts.DefaultNamespace
	}
	ns, err = ResolveNamespace(ctx, ns)
	if err != nil {
		return nil, err
	}
	importance := s.opts.DefaultImportance
	if req.Importance != nil {
		importance = *req.Importance
	}
	if err := checkUnit("importance", importance); err != nil {
		return nil, err
	}
	if err := checkMetadata(req.Metadata); err != nil {
		return nil, err
	}
	md := req.Metadata
	if md == nil {
		md = map[string]any{}
	}
	now := s.now()
	return &Memory{
		ID:          NewID(now),
		Content:     content,
		ContentHash: ContentHash(content),
		Type:        typ,
		Namespace:   ns,
		Importance:  importance,
		Confidence:  s.opts.DefaultConfidence,
		Metadata:    md,
		CreatedAt:   now,
		UpdatedAt:   now,
		AccessedAt:  now,
		Source:      SourceFrom(ctx, ""), // the door says which it is; "" (unknown) rather than a guess
	}, nil
}
