package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MetaEdits is the metadata key where changes were kept before the change log
// (the store moves its entries to the log when it opens a database, and when
// it imports an export of that time).
const MetaEdits = "edits"

const maxReasonLen = 1000

// UpdateRequest changes a memory's content, type, importance or namespace;
// fields left nil stay as they are. By names where the change came from (the viewer, the
// CLI: recorded with the change).
type UpdateRequest struct {
	MemoryID   string   `json:"memory_id"`
	Content    *string  `json:"content,omitempty"`
	Type       *Type    `json:"memory_type,omitempty"`
	Importance *float64 `json:"importance,omitempty"`
	// Namespace moves the memory ("global", "project:<name>", "user:<name>"
	// or "private" for the asker's own).
	Namespace *string `json:"namespace,omitempty"`
	// Metadata keys to set, merged into the memory's metadata (a nil value
	// removes its key); the other keys stay.
	Metadata map[string]any `json:"metadata,omitempty"`
	By       string         `json:"by,omitempty"`
}

// UpdateResult is the memory after an update and the fields that changed
// (none when the request asked for what was already there).
type UpdateResult struct {
	Memory  *Memory  `json:"memory"`
	Changed []string `json:"changed"`
}

// DemoteRequest turns a golden rule back into an ordinary memory; PromoteRequest
// makes a preference, decision or pattern a golden rule. Reason is required
// and recorded.
type DemoteRequest struct {
	MemoryID string `json:"memory_id"`
	Reason   string `json:"reason"`
	By       string `json:"by,omitempty"`
}

// PromoteRequest has the fields of a DemoteRequest: the memory, the reason
// and where the change came from.
type PromoteRequest = DemoteRequest

// Update changes a memory by the rules a new memory follows: content checked
// (and scrubbed) as a store checks it, the type by name, the importance from
// 0 to 1, the namespace by name and by who may write there. A namespace
// holds one memory of a given content, so an edit or a move onto a memory
// already there is refused with a DuplicateError naming it. The content hash and keyword index follow the content; new content
// is embedded again (at once when Ollama answers, else by the background
// fill). A golden rule's type is not changed here: Demote it with a reason.
// The change is recorded in the memory's change log, each field with its
// value before and after.
func (s *Service) Update(ctx context.Context, req UpdateRequest) (*UpdateResult, error) {
	if err := ValidateID("memory_id", req.MemoryID); err != nil {
		return nil, err
	}
	var content string
	if req.Content != nil {
		var err error
		if content, err = s.cleanContent(*req.Content); err != nil {
			return nil, err
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
	var ns string
	if req.Namespace != nil {
		var err error
		if ns, err = ResolveNamespace(ctx, strings.TrimSpace(*req.Namespace)); err != nil {
			return nil, err
		}
	}
	if err := checkMetadata(req.Metadata); err != nil {
		return nil, err
	}
	source := changeSource(req.By)
	var changed []string
	m, err := s.store.UpdateMemoryLogged(ctx, req.MemoryID, func(m *Memory) (*Change, error) {
		changed = changed[:0]
		c := &Change{Action: ChangeEdit, Source: source}
		if req.Content != nil && content != m.Content {
			changed = append(changed, "content")
			c.Fields = append(c.Fields, FieldChange{Field: "content", Before: m.Content, After: content})
			m.Content = content
		}
		if req.Type != nil && typ != m.Type {
			if m.IsGolden() {
				return nil, fmt.Errorf("memory %s is a golden rule: %w; demote it with a reason to change its type", m.ID, ErrProtected)
			}
			changed = append(changed, "memory_type")
			c.Fields = append(c.Fields, FieldChange{Field: "memory_type", Before: string(m.Type), After: string(typ)})
			m.Type = typ
		}
		if req.Importance != nil && *req.Importance != m.Importance {
			changed = append(changed, "importance")
			c.Fields = append(c.Fields, FieldChange{Field: "importance", Before: m.Importance, After: *req.Importance})
			m.Importance = *req.Importance
		}
		if req.Namespace != nil && ns != m.Namespace {
			changed = append(changed, "namespace")
			c.Fields = append(c.Fields, FieldChange{Field: "namespace", Before: m.Namespace, After: ns})
			m.Namespace = ns
		}
		if len(req.Metadata) > 0 {
			if md, ok := mergeMetadata(m.Metadata, req.Metadata); ok {
				changed = append(changed, "metadata")
				c.Fields = append(c.Fields, FieldChange{Field: "metadata", Before: m.Metadata, After: md})
				m.Metadata = md
			}
		}
		if len(changed) == 0 {
			return nil, nil
		}
		return c, nil
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
// decision when that is not known), with its reason recorded in the change
// log and in metadata.demoted_*. Its confidence stays; a demoted memory is not
// promoted again by the validation loop (metadata.demoted_at), only by a
// person.
func (s *Service) Demote(ctx context.Context, req DemoteRequest) (*Memory, error) {
	return s.retype(ctx, req, "why the golden rule is demoted", func(m *Memory, c *Change) error {
		if !m.IsGolden() {
			return Invalidf("memory_id", m.ID, "a golden rule (this memory is a "+string(m.Type)+")")
		}
		to := TypeDecision
		if from, ok := m.Metadata["promoted_from"].(string); ok {
			if t, err := ParseType(from); err == nil && t.Promotable() {
				to = t
			}
		}
		m.Type = to
		m.Metadata["demoted_at"] = c.At.Format(time.RFC3339)
		m.Metadata["demoted_by"] = c.Source
		m.Metadata["demoted_reason"] = c.Reason
		c.Action = ChangeDemote
		c.Fields = []FieldChange{{Field: "memory_type", Before: string(TypeGoldenRule), After: string(to)}}
		return nil
	})
}

// Promote makes a memory a golden rule on a person's word, by the type rule
// of the automatic promotion (only a preference, decision or pattern; its
// type is kept in metadata.promoted_from for a later demote) but at any
// confidence, also after a demotion. The reason is required and recorded in
// the change log.
func (s *Service) Promote(ctx context.Context, req PromoteRequest) (*Memory, error) {
	return s.retype(ctx, req, "why the memory becomes a golden rule", func(m *Memory, c *Change) error {
		if m.Type == TypeGoldenRule {
			return fmt.Errorf("memory %s is a golden rule already: nothing to promote: %w", m.ID, ErrInvalid)
		}
		if !m.Type.Promotable() {
			return Invalidf("memory_id", m.ID, "a preference, decision or pattern (this memory is a "+string(m.Type)+")")
		}
		from := m.Type
		if m.Metadata == nil {
			m.Metadata = map[string]any{}
		}
		m.Metadata["promoted_from"] = string(from)
		m.Metadata["promoted_at"] = c.At.Format(time.RFC3339)
		// The demotion is history now (in the change log); left here it would
		// keep the promotion from counting.
		delete(m.Metadata, "demoted_at")
		delete(m.Metadata, "demoted_by")
		delete(m.Metadata, "demoted_reason")
		m.Type = TypeGoldenRule
		c.Action = ChangePromote
		c.Fields = []FieldChange{{Field: "memory_type", Before: string(from), After: string(TypeGoldenRule)}}
		return nil
	})
}

// retype is a person's promotion or demotion: the reason (why) is required;
// apply changes the memory's type in one logged update and fills in the
// change, which comes with its time, source and reason set.
func (s *Service) retype(ctx context.Context, req DemoteRequest, why string, apply func(m *Memory, c *Change) error) (*Memory, error) {
	reason, err := requiredReason(req, why)
	if err != nil {
		return nil, err
	}
	source := changeSource(req.By)
	m, err := s.store.UpdateMemoryLogged(ctx, req.MemoryID, func(m *Memory) (*Change, error) {
		c := &Change{At: s.now(), Source: source, Reason: reason}
		if err := apply(m, c); err != nil {
			return nil, err
		}
		return c, nil
	})
	if err != nil {
		return nil, s.updateErr(req.MemoryID, err)
	}
	return m, nil
}

// requiredReason checks the id and the reason of a promote or demote.
func requiredReason(req DemoteRequest, what string) (string, error) {
	if err := ValidateID("memory_id", req.MemoryID); err != nil {
		return "", err
	}
	reason := strings.TrimSpace(req.Reason)
	if reason == "" || len(reason) > maxReasonLen {
		return "", invalid("reason", req.Reason, fmt.Sprintf("%s, 1 to %d bytes", what, maxReasonLen))
	}
	return reason, nil
}

func (s *Service) updateErr(id string, err error) error {
	if errors.Is(err, ErrNotFound) {
		return NotFound("memory", id)
	}
	return err
}

// mergeMetadata sets the keys of set in a copy of md (a nil value removes its
// key); ok is false when nothing changes.
func mergeMetadata(md, set map[string]any) (map[string]any, bool) {
	out := make(map[string]any, len(md)+len(set))
	for k, v := range md {
		out[k] = v
	}
	changed := false
	for k, v := range set {
		old, had := out[k]
		switch {
		case v == nil && had:
			delete(out, k)
			changed = true
		case v != nil && (!had || fmt.Sprint(old) != fmt.Sprint(v)):
			out[k] = v
			changed = true
		}
	}
	return out, changed
}
