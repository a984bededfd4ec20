package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
)

// trashNow is the clock of the trash.
var trashNow = func() time.Time { return time.Now().UTC() }

// toTrash copies memory id's record into the trash inside the delete's
// transaction, and purges records past memory.TrashKeep.
func toTrash(ctx context.Context, tx pgx.Tx, id string, archived bool) error {
	m, _, err := getMemory(ctx, tx, id, true)
	if err != nil {
		return err
	}
	rec := memory.TrashRecord{Memory: m}
	rows, err := tx.Query(ctx, `SELECT `+edgeColumns+` FROM edges WHERE source_id = $1 OR target_id = $1 ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("trash edges: %w", err)
	}
	if rec.Edges, err = pgx.CollectRows(rows, scanEdge); err != nil {
		return fmt.Errorf("trash edges: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT `+eventColumns+` FROM validation_events WHERE memory_id = $1 ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("trash events: %w", err)
	}
	if rec.Events, err = pgx.CollectRows(rows, scanEvent); err != nil {
		return fmt.Errorf("trash events: %w", err)
	}
	if rec.Edges == nil {
		rec.Edges = []memory.Edge{}
	}
	if rec.Events == nil {
		rec.Events = []memory.ValidationEvent{}
	}
	cs, err := queryChanges(ctx, tx, memory.ChangeQuery{MemoryID: id})
	if err != nil {
		return err
	}
	for i := len(cs) - 1; i >= 0; i-- { // oldest first
		rec.Changes = append(rec.Changes, cs[i])
	}
	now := trashNow()
	action := memory.ChangeDelete
	if archived {
		action = memory.ChangeArchive
	}
	rec.Changes = append(rec.Changes, memory.Change{MemoryID: id, Namespace: m.Namespace, At: now,
		Action: action, Source: memory.SourceFrom(ctx, memory.SourceViewer), Fields: []memory.FieldChange{}})
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO trash (memory_id, deleted_at, record, archived) VALUES ($1, $2, $3, $4)
		ON CONFLICT (memory_id) DO UPDATE SET deleted_at = excluded.deleted_at, record = excluded.record, archived = excluded.archived`,
		id, now, string(body), archived); err != nil {
		return fmt.Errorf("trash %s: %w", id, err)
	}
	return purgeTrash(ctx, tx, now)
}

func purgeTrash(ctx context.Context, q querier, now time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM trash WHERE NOT archived AND deleted_at < $1`, now.Add(-memory.TrashKeep)); err != nil {
		return fmt.Errorf("purge trash: %w", err)
	}
	return nil
}

// Trash lists the deleted and archived memories that can still be restored,
// last deleted first, after purging deleted ones past memory.TrashKeep.
func (s *DB) Trash(ctx context.Context) ([]memory.TrashItem, error) {
	if err := purgeTrash(ctx, s.pool, trashNow()); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT deleted_at, record, archived FROM trash ORDER BY deleted_at DESC, memory_id`)
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	all, err := pgx.CollectRows(rows, scanTrash)
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	out := []memory.TrashItem{}
	for _, it := range all {
		if it.Memory != nil && memory.PrincipalFrom(ctx).Sees(it.Memory.Namespace) {
			out = append(out, it)
		}
	}
	if !memory.PrincipalFrom(ctx).Restricted() {
		return out, nil
	}
	// Nothing in what is listed may name another person's private memory.
	seen, err := visibleIDs(ctx, s.pool, memory.OtherMemories(out))
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	memory.HideUnseen(out, seen)
	return out, nil
}

func scanTrash(row pgx.CollectableRow) (memory.TrashItem, error) {
	var it memory.TrashItem
	var body []byte
	if err := row.Scan(&it.DeletedAt, &body, &it.Archived); err != nil {
		return it, err
	}
	it.DeletedAt = it.DeletedAt.UTC()
	if err := json.Unmarshal(body, &it.TrashRecord); err != nil {
		return it, fmt.Errorf("trash record: %w", err)
	}
	return it, nil
}

// RestoreMemory puts a deleted or archived memory back from the trash with
// its id, its edges to memories that still exist, its validation events and
// its change log (with the restore added), in one transaction. Its vector is
// made again (it comes back pending). The change log names where the
// restore came from: the source ctx carries (memory.WithSource), the viewer
// by default.
func (s *DB) RestoreMemory(ctx context.Context, id string) (*memory.ImportResult, error) {
	source := memory.SourceFrom(ctx, memory.SourceViewer)
	var res *memory.ImportResult
	err := s.writeChanged(ctx, func(tx pgx.Tx) error {
		var body []byte
		err := tx.QueryRow(ctx, `SELECT record FROM trash WHERE memory_id = $1 AND (archived OR deleted_at >= $2) FOR UPDATE`,
			id, trashNow().Add(-memory.TrashKeep)).Scan(&body)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("memory %s is not in the trash: %w", id, memory.ErrNotFound)
		}
		if err != nil {
			return err
		}
		rec, err := memory.ReadTrashRecord(ctx, id, body)
		if err != nil {
			return err
		}
		if res, err = writeRecords(ctx, tx, rec.Records()); err != nil {
			return err
		}
		// The same text stored again since the delete: the record joins that
		// copy (its edges, events and log go to it), as an import would.
		res.Restored = id
		if res.Existing > 0 {
			if err := tx.QueryRow(ctx, `SELECT id FROM memories WHERE id = $1 OR (content_hash = $2 AND namespace = $3)
				ORDER BY id = $1 DESC LIMIT 1`, id, rec.Memory.ContentHash, rec.Memory.Namespace).Scan(&res.Restored); err != nil {
				return fmt.Errorf("restore %s: finding the copy stored since: %w", id, err)
			}
		}
		if _, err := writeChange(ctx, tx, rec.RestoreChange(id, res.Restored, source, trashNow())); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM trash WHERE memory_id = $1`, id)
		return err
	})
	return res, err
}
