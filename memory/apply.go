package memory

import (
	"maps"
	"time"
)

// ApplyUpdate is what a store's UpdateMemory decides before it writes, the
// same for every store: fn changes a copy of before (as read inside the
// write's transaction); the id may not change; changed content gets its hash
// again unless fn set one; a change that did not set UpdatedAt is stamped
// now. write is false when fn changed nothing, and the store writes nothing.
func ApplyUpdate(before *Memory, fn func(m *Memory) error) (after *Memory, write bool, err error) {
	m := *before
	m.Metadata = maps.Clone(before.Metadata)
	if err := fn(&m); err != nil {
		return nil, false, err
	}
	if m.ID != before.ID {
		return nil, false, Invalidf("id", m.ID, "the id of the memory being updated ("+before.ID+")")
	}
	if m.Content != before.Content && m.ContentHash == before.ContentHash {
		m.ContentHash = ContentHash(m.Content)
	}
	meta, err := EncodeMetadata(m.Metadata)
	if err != nil {
		return nil, false, err
	}
	beforeMeta, _ := EncodeMetadata(before.Metadata)
	changed := m.Content != before.Content || m.Type != before.Type || m.Namespace != before.Namespace ||
		m.Importance != before.Importance || m.Confidence != before.Confidence || meta != beforeMeta ||
		!m.AccessedAt.Equal(before.AccessedAt) || m.AccessCount != before.AccessCount
	if !changed && m.UpdatedAt.Equal(before.UpdatedAt) {
		return before, false, nil
	}
	if changed && m.UpdatedAt.Equal(before.UpdatedAt) {
		m.UpdatedAt = time.Now()
	}
	return &m, true, nil
}
