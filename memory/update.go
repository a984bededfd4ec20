package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Edit log kept in a memory's metadata: every change made through Update and
// Demote, newest last, at most maxEdits entries (the oldest go first, also when
// the metadata would outgrow MaxMetadataBytes).
const (
	MetaEdits    = "edits"
	maxEdits     = 20
	maxReasonLen = 1000
)

// UpdateRequest changes a memory's content, type or importance; fields left nil
// stay as they are. By names who changed it (recorded with the change).
type UpdateRequest struct {
	MemoryID   string   `json:"memory_id"`
	Content    *string  `json:"content,omitempty"`
	Type       *Type    `json:"memory_type,omitempty"`
	Importance *float64 `json:"importance,omitempty"`
	By         string   `json:"by,omitempty"`
}

// UpdateResult is the memory after an update and the fields that changed
// (none when the request asked for what was already there).
type UpdateResult struct {
	Memory  *Memory  `json:"memory"`
	Changed []string `json:"changed"`
}

// DemoteRequest turns a golden rule back into an ordinary memory. Reason is
// required and recorded.
type DemoteRequest struct {
	MemoryID string `json:"memory_id"`
	Reason   string `json:"reason"`
	By       string `json:"by,omitempty"`
}

// Update changes a memory by the rules a new memory follows: content checked
// (and scrubbed) as a store checks it, the type by name, the importance from
// 0 to 1. The content hash and keyword index follow the content; new content
// is embedded again (at once when Ollama answers, else by the background
// fill). A golden rule's type is not changed here: Demote it with a reason.
// The change is recorded in metadata.edits.
func (s *Service) Update(ctx context.Context, req UpdateRequest) (*UpdateResult, error) {
	if err := ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	var content string
	if req.Content != nil {
		var err error
		if content, err = checkText("content", *req.Content, MaxContentBytes); err != nil {
			return nil, err
		}
		if s.opts.Scrub != nil {
			if content, err = checkText("content", s.opts.Scrub(content), MaxContentBytes); err != nil {
				return nil, fmt.Errorf("%w (nothing is left once <private> sections are removed)", err)
			}
		}
	}
	var typ Type
	if req.Type != nil {
		var err error
		if typ, err = ParseType(string(*req.Type)); err != nil {
			return nil, err
		}
	}
	if req.Importance != nil {
		if err := checkUnit("importance", *req.Importance); err != nil {
			return nil, err
		}
	}
	by := editor(req.By)
	var changed []string
	m, err := s.store.UpdateMemory(ctx, req.MemoryID, func(m *Memory) error {
		changed = changed[:0]
		edit := map[string]any{}
		if req.Content != nil && content != m.Content {
			changed = append(changed, "content")
			edit["previous_content_hash"] = m.ContentHash
			m.Content = content
		}
		if req.Type != nil && typ != m.Type {
			if m.IsGolden() {
				return fmt.Errorf("memory %s is a golden rule: %w; demote it with a reason to change its type", m.ID, ErrProtected)
			}
			changed = append(changed, "memory_type")
			edit["previous_memory_type"] = string(m.Type)
			m.Type = typ
		}
		if req.Importance != nil && *req.Importance != m.Importance {
			changed = append(changed, "importance")
			edit["previous_importance"] = m.Importance
			m.Importance = *req.Importance
		}
		if len(changed) == 0 {
			return nil
		}
		edit["fields"] = append([]string(nil), changed...)
		return recordEdit(m, s.now(), by, edit)
	})
	if err != nil {
		return nil, s.updateErr(req.MemoryID, err)
	}
	if changed == nil {
		changed = []string{}
	}
	if len(changed) > 0 && changed[0] == "content" {
		if err := s.embedStored(ctx, m); err != nil {
			s.log().Warn("edited memory not embedded yet", "memory_id", m.ID, "reason", err)
			s.wakeFill()
		} else if fresh, err := s.store.GetMemory(ctx, m.ID); err == nil {
			m = fresh
		}
	}
	return &UpdateResult{Memory: m, Changed: changed}, nil
}

// Demote turns a golden rule back into the type it was promoted from (a
// decision when that is not known), with its reason recorded in
// metadata.edits and metadata.demoted_*. Its confidence stays; a demoted
// memory is not promoted again by the validation loop (metadata.demoted_at).
func (s *Service) Demote(ctx context.Context, req DemoteRequest) (*Memory, error) {
	if err := ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	reason := strings.TrimSpace(req.Reason)
	if reason == "" || len(reason) > maxReasonLen {
		return nil, invalid("reason", req.Reason, fmt.Sprintf("why the golden rule is demoted, 1 to %d bytes", maxReasonLen))
	}
	by := editor(req.By)
	m, err := s.store.UpdateMemory(ctx, req.MemoryID, func(m *Memory) error {
		if !m.IsGolden() {
			return Invalidf("memory_id", m.ID, "a golden rule (this memory is a "+string(m.Type)+")")
		}
		to := TypeDecision
		if from, ok := m.Metadata["promoted_from"].(string); ok {
			if t, err := ParseType(from); err == nil && t.Promotable() {
				to = t
			}
		}
		now := s.now()
		m.Type = to
		m.Metadata["demoted_at"] = now.Format(time.RFC3339)
		m.Metadata["demoted_by"] = by
		m.Metadata["demoted_reason"] = reason
		return recordEdit(m, now, by, map[string]any{
			"fields": []string{"memory_type"}, "previous_memory_type": string(TypeGoldenRule), "reason": reason,
		})
	})
	if err != nil {
		return nil, s.updateErr(req.MemoryID, err)
	}
	return m, nil
}

func (s *Service) updateErr(id string, err error) error {
	if errors.Is(err, ErrNotFound) {
		return NotFound("memory", id)
	}
	return err
}

// editor is who made a change: the caller's name, "unknown" without one.
func editor(by string) string {
	by = strings.TrimSpace(by)
	if by == "" {
		return "unknown"
	}
	if len(by) > 64 {
		by = by[:64]
	}
	return by
}

// recordEdit appends one entry (when, by whom, what) to metadata.edits.
func recordEdit(m *Memory, now time.Time, by string, edit map[string]any) error {
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	edit["at"] = now.UTC().Format(time.RFC3339)
	edit["by"] = by
	var edits []any
	if prev, ok := m.Metadata[MetaEdits].([]any); ok {
		edits = append(edits, prev...)
	}
	edits = append(edits, edit)
	for {
		if len(edits) > maxEdits {
			edits = edits[len(edits)-maxEdits:]
		}
		m.Metadata[MetaEdits] = edits
		if err := checkMetadata(m.Metadata); err == nil {
			return nil
		} else if len(edits) <= 1 {
			return err
		}
		edits = edits[1:]
	}
}
