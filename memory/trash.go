package memory

import (
	"context"
	"slices"
	"time"
)

// The trash: what a person deleted in the viewer is kept, whole, for
// TrashKeep; what they archived is kept until restored. The service's Trash
// and Restore are the only doors to it.

// TrashKeep is how long a deleted memory can be restored.
const TrashKeep = 30 * 24 * time.Hour

// TrashRecord is what the trash keeps of one deleted memory.
type TrashRecord struct {
	Memory *Memory           `json:"memory"`
	Edges  []Edge            `json:"edges"`
	Events []ValidationEvent `json:"validation_events"`
	// Changes is the memory's change log, the delete last.
	Changes []Change `json:"changes,omitempty"`
}

// TrashItem is one memory in the trash. An archived one is kept until it is
// restored; the others are purged after TrashKeep.
type TrashItem struct {
	TrashRecord
	DeletedAt time.Time `json:"deleted_at"`
	Archived  bool      `json:"archived"`
}

// ImportResult counts what a bulk write (an import, or a restore from the
// trash) added and what it left out.
type ImportResult struct {
	Memories int `json:"memories"`
	Edges    int `json:"edges"`
	Events   int `json:"validation_events"`
	Changes  int `json:"changes"`
	Files    int `json:"file_activity"`
	Projects int `json:"projects"`
	// Existing counts memories already stored, by id or by content in the same
	// namespace; edges and events that name them are attached to the stored one.
	Existing int `json:"existing_memories"`
	// Archived counts archived memories put into the trash; ArchivedExisting
	// those left out because a memory with their id is live or already in the
	// trash.
	Archived         int `json:"archived_memories"`
	ArchivedExisting int `json:"existing_archived_memories"`
	// Deleted counts deleted memories put back into the trash (restorable
	// until TrashKeep after their delete); existing ones count as
	// ArchivedExisting.
	Deleted int `json:"deleted_memories"`
	// Journal counts journal entries written; JournalExisting those left out
	// because the same entry is stored already.
	Journal         int `json:"journal_entries"`
	JournalExisting int `json:"existing_journal_entries"`
	// Vectors counts memories stored with their exported vector;
	// VectorsLeft says why the others wait to be embedded again (another
	// model's vectors here), empty when none was left.
	Vectors     int    `json:"vectors"`
	VectorsLeft string `json:"vectors_left,omitempty"`
	// Skipped says why a row was left out (an edge to a memory that is not
	// there, say), one line per row.
	Skipped []string `json:"skipped,omitempty"`
	// Restored is, for a restore from the trash, the id the memory has again:
	// its own, or that of the copy of its text stored since the delete.
	Restored string `json:"restored_id,omitempty"`
}

// TrashStore keeps the trash: the store writes into it in the delete's own
// transaction (TrashMemory, ArchiveMemory); these read it and restore from it.
type TrashStore interface {
	// Trash lists the deleted and archived memories that can still be
	// restored, last deleted first. It only reads.
	Trash(ctx context.Context) ([]TrashItem, error)
	// RestoreMemory puts a memory back from the trash with its id, its edges
	// to memories that still exist, its events and its change log, in one
	// transaction; ErrNotFound when it is not there.
	RestoreMemory(ctx context.Context, id string) (*ImportResult, error)
}

// OtherMemories lists the memories items name beside their own: the ends of
// their edges and the related memories of their change logs. A store keeps
// those its asker may see and passes them to HideUnseen.
func OtherMemories(items []TrashItem) []string {
	var ids []string
	for _, it := range items {
		for _, e := range it.Edges {
			ids = append(ids, e.SourceID, e.TargetID)
		}
		for _, c := range it.Changes {
			if c.RelatedID != "" {
				ids = append(ids, c.RelatedID)
			}
		}
	}
	return ids
}

// HideUnseen takes out of items what would name a memory the asker may not
// see (seen holds those they may): an edge with such an end goes, and a
// change keeps its entry but not the related id. Another person's private
// memory so stays unnamed, even in the trash of a memory that pointed at it.
func HideUnseen(items []TrashItem, seen map[string]bool) {
	for i := range items {
		self := items[i].Memory.ID
		items[i].Edges = slices.DeleteFunc(items[i].Edges, func(e Edge) bool {
			return (e.SourceID != self && !seen[e.SourceID]) || (e.TargetID != self && !seen[e.TargetID])
		})
		for j, c := range items[i].Changes {
			if c.RelatedID != "" && c.RelatedID != self && !seen[c.RelatedID] {
				items[i].Changes[j].RelatedID = ""
			}
		}
	}
}
