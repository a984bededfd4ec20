package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// TrashNow is the clock of the trash (tests move it).
var TrashNow = func() time.Time { return time.Now().UTC() }

// A TrashTx is an engine's write transaction as restoring from the trash
// uses it.
type TrashTx interface {
	// TrashedRecord reads the trash record of memory id kept since
	// (an archived one, whenever), locked where the engine locks rows;
	// found is false when there is none.
	TrashedRecord(ctx context.Context, id string, since time.Time) (body []byte, found bool, err error)
	// WriteRecords writes records as an import does.
	WriteRecords(ctx context.Context, r memory.Records) (*memory.ImportResult, error)
	// StoredAs returns the id memory id has now: its own, or that of the
	// copy of its content stored in its namespace since.
	StoredAs(ctx context.Context, id, contentHash, namespace string) (string, error)
	// DropFromTrash deletes memory id's trash record.
	DropFromTrash(ctx context.Context, id string) error
}

// RestoreMemory puts a deleted or archived memory back from the trash with
// its id, its edges to memories that still exist, its validation events and
// its change log (with the restore added), in one transaction. Its vector is
// made again (it comes back pending). The change log names where the
// restore came from: the source ctx carries (memory.WithSource), the viewer
// by default.
func (s Shared) RestoreMemory(ctx context.Context, id string) (*memory.ImportResult, error) {
	source := memory.SourceFrom(ctx, memory.SourceViewer)
	var res *memory.ImportResult
	err := s.Tx.Write(ctx, func(tx Tx) error {
		body, found, err := tx.TrashedRecord(ctx, id, TrashNow().Add(-memory.TrashKeep))
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("memory %s is not in the trash: %w", id, memory.ErrNotFound)
		}
		rec, err := memory.ReadTrashRecord(ctx, id, body)
		if err != nil {
			return err
		}
		if res, err = tx.WriteRecords(ctx, rec.Records()); err != nil {
			return err
		}
		// The same text stored again since the delete: the record joins that
		// copy (its edges, events and log go to it), as an import would.
		res.Restored = id
		if res.Existing > 0 {
			if res.Restored, err = tx.StoredAs(ctx, id, rec.Memory.ContentHash, rec.Memory.Namespace); err != nil {
				return fmt.Errorf("restore %s: finding the copy stored since: %w", id, err)
			}
		}
		if _, err := tx.AddChange(ctx, rec.RestoreChange(id, res.Restored, source, TrashNow())); err != nil {
			return err
		}
		return tx.DropFromTrash(ctx, id)
	})
	return res, err
}

// StoredAs returns the id memory id has now: its own, or that of the copy
// of its content stored in its namespace since.
func (s Statements) StoredAs(ctx context.Context, id, contentHash, namespace string) (string, error) {
	var got string
	err := s.SQL.QueryRow(ctx, `SELECT id FROM memories WHERE id = $1 OR (content_hash = $2 AND namespace = $3)
		ORDER BY id = $1 DESC LIMIT 1`, id, contentHash, namespace).Scan(&got)
	return got, err
}

// DropFromTrash deletes memory id's trash record.
func (s Statements) DropFromTrash(ctx context.Context, id string) error {
	_, err := s.SQL.Exec(ctx, `DELETE FROM trash WHERE memory_id = $1`, id)
	return err
}

// KeepInTrash writes m's full record (its edges, validation events and
// change log, with the delete added) to the trash, inside the delete's
// transaction, and purges deleted ones past memory.TrashKeep. An archived
// one is kept until restored.
func (s Statements) KeepInTrash(ctx context.Context, m *memory.Memory, archived bool) error {
	rec := memory.TrashRecord{Memory: m}
	var err error
	if rec.Edges, err = QueryAll(ctx, s.SQL, ScanEdge, `SELECT `+EdgeColumns+` FROM edges WHERE source_id = $1 OR target_id = $1 ORDER BY id`, m.ID); err != nil {
		return fmt.Errorf("trash edges: %w", err)
	}
	if rec.Events, err = QueryAll(ctx, s.SQL, ScanEvent, `SELECT `+EventColumns+` FROM validation_events WHERE memory_id = $1 ORDER BY id`, m.ID); err != nil {
		return fmt.Errorf("trash events: %w", err)
	}
	if rec.Edges == nil {
		rec.Edges = []memory.Edge{}
	}
	if rec.Events == nil {
		rec.Events = []memory.ValidationEvent{}
	}
	p := Params{m.ID}
	if rec.Changes, err = QueryAll(ctx, s.SQL, ScanChange, `SELECT `+ChangeColumns+` FROM change_log
		WHERE memory_id = $1 AND `+Visible(ctx, "change_log", &p)+` ORDER BY id`, p...); err != nil {
		return fmt.Errorf("trash change log: %w", err)
	}
	now := TrashNow()
	action := memory.ChangeDelete
	if archived {
		action = memory.ChangeArchive
	}
	rec.Changes = append(rec.Changes, memory.Change{MemoryID: m.ID, Namespace: m.Namespace, At: now,
		Action: action, Source: memory.SourceFrom(ctx, memory.SourceViewer), Fields: []memory.FieldChange{}})
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := s.SQL.Exec(ctx, `INSERT INTO trash (memory_id, deleted_at, record, archived) VALUES ($1, $2, $3, $4)
		ON CONFLICT (memory_id) DO UPDATE SET deleted_at = excluded.deleted_at, record = excluded.record, archived = excluded.archived`,
		m.ID, now, string(body), archived); err != nil {
		return fmt.Errorf("trash %s: %w", m.ID, err)
	}
	if _, err := s.SQL.Exec(ctx, `DELETE FROM trash WHERE NOT archived AND deleted_at < $1`, now.Add(-memory.TrashKeep)); err != nil {
		return fmt.Errorf("purge trash: %w", err)
	}
	return nil
}

// Trash lists the deleted and archived memories that can still be restored,
// last deleted first. It only reads: deleted ones past TrashKeep are left out
// here and purged by the next delete. A person's list holds what they may
// see, and names no memory they may not (memory.HideUnseen).
func (s Shared) Trash(ctx context.Context) ([]memory.TrashItem, error) {
	items, err := QueryAll(ctx, s.Read.SQL, ScanTrashItem, `SELECT `+TrashColumns+` FROM trash
		WHERE archived OR deleted_at >= $1 ORDER BY deleted_at DESC, memory_id`, TrashNow().Add(-memory.TrashKeep))
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	who := memory.PrincipalFrom(ctx)
	out := []memory.TrashItem{}
	for _, it := range items {
		if it.Memory != nil && who.Sees(it.Memory.Namespace) {
			out = append(out, it)
		}
	}
	if !who.Restricted() {
		return out, nil
	}
	seen, err := s.Read.VisibleIDs(ctx, memory.OtherMemories(out))
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	memory.HideUnseen(out, seen)
	return out, nil
}

// VisibleIDs keeps, of ids, those of memories the principal in ctx may see
// (missing ones are dropped too).
func (s Statements) VisibleIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	for start := 0; start < len(ids); start += 500 {
		var p Params
		in := make([]string, 0, 500)
		for _, id := range ids[start:min(start+500, len(ids))] {
			in = append(in, p.Add(id))
		}
		got, err := QueryAll(ctx, s.SQL, func(r Row) (string, error) {
			var id string
			err := r.Scan(&id)
			return id, err
		}, `SELECT m.id FROM memories m WHERE m.id IN (`+strings.Join(in, ", ")+`) AND `+Visible(ctx, "m", &p), p...)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			out[id] = true
		}
	}
	return out, nil
}
