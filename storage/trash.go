package storage

import (
	"context"
	"fmt"
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
