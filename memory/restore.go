package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// What a store decides when it restores a memory from the trash, the same for
// every store: the record is read, hidden from whoever may not see it, written
// back as an import would, and the restore is logged.

// ReadTrashRecord reads the trash's record of memory id for a restore; it is
// ErrNotFound, as a missing one, when the principal in ctx may not see it.
func ReadTrashRecord(ctx context.Context, id string, body []byte) (*TrashRecord, error) {
	var rec TrashRecord
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, fmt.Errorf("trash record: %w", err)
	}
	if rec.Memory == nil || !PrincipalFrom(ctx).Sees(rec.Memory.Namespace) {
		return nil, fmt.Errorf("memory %s is not in the trash: %w", id, ErrNotFound)
	}
	return &rec, nil
}

// Records are the rows a restore writes back.
func (r *TrashRecord) Records() Records {
	return Records{Memories: []*Memory{r.Memory}, Edges: r.Edges, Events: r.Events, Changes: r.Changes}
}

// RestoreChange is the change log entry of a restore of memory id, which is
// back as restored: itself, or the copy of its text stored since the delete,
// whose log then tells where its history came from.
func (r *TrashRecord) RestoreChange(id, restored, source string, at time.Time) *Change {
	c := &Change{MemoryID: id, Namespace: r.Memory.Namespace, At: at, Action: ChangeRestore, Source: source}
	if restored != id {
		c.MemoryID, c.RelatedID = restored, id
		c.Reason = "the same text was stored again since; this is its restored history"
	}
	return c
}
