package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// trashNow is the clock of the trash (tests move it).
var trashNow = func() time.Time { return time.Now().UTC() }

// toTrash copies memory id's record into the trash inside the delete's
// transaction, and purges records past TrashKeep.
func toTrash(ctx context.Context, tx *sql.Tx, id string, archived bool) error {
	m, _, err := getMemory(ctx, tx, id)
	if err != nil {
		return err
	}
	rec := memory.TrashRecord{Memory: m, Edges: []memory.Edge{}, Events: []memory.ValidationEvent{}}
	rows, err := tx.QueryContext(ctx, `SELECT id, source_id, target_id, relation, weight, metadata, created_at, author
		FROM edges WHERE source_id = ? OR target_id = ? ORDER BY id`, id, id)
	if err != nil {
		return fmt.Errorf("trash edges: %w", err)
	}
	for rows.Next() {
		var e memory.Edge
		var rel, meta, created string
		if err := rows.Scan(&e.ID, &e.SourceID, &e.TargetID, &rel, &e.Weight, &meta, &created, &e.Author); err != nil {
			rows.Close()
			return fmt.Errorf("trash edges: %w", err)
		}
		e.Relation = memory.Relation(rel)
		e.Metadata, _ = memory.DecodeOptionalMetadata([]byte(meta))
		e.CreatedAt, _ = parseTime(created)
		rec.Edges = append(rec.Edges, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = tx.QueryContext(ctx, `SELECT id, memory_id, event_type, context, error_msg, session_id,
		confidence_before, confidence_after, created_at, author FROM validation_events WHERE memory_id = ? ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("trash events: %w", err)
	}
	for rows.Next() {
		var ev memory.ValidationEvent
		var typ, created string
		if err := rows.Scan(&ev.ID, &ev.MemoryID, &typ, &ev.Context, &ev.ErrorMsg, &ev.SessionID,
			&ev.ConfidenceBefore, &ev.ConfidenceAfter, &created, &ev.Author); err != nil {
			rows.Close()
			return fmt.Errorf("trash events: %w", err)
		}
		ev.EventType = memory.EventType(typ)
		ev.CreatedAt, _ = parseTime(created)
		rec.Events = append(rec.Events, ev)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	now := trashNow()
	if rec.Changes, err = changesOf(ctx, tx, id); err != nil {
		return err
	}
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
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO trash (memory_id, deleted_at, record, archived) VALUES (?, ?, ?, ?)`,
		id, formatTime(now), string(body), archived); err != nil {
		return fmt.Errorf("trash %s: %w", id, err)
	}
	return purgeTrash(ctx, tx, now)
}

func purgeTrash(ctx context.Context, tx *sql.Tx, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM trash WHERE NOT archived AND deleted_at < ?`, formatTime(now.Add(-memory.TrashKeep))); err != nil {
		return fmt.Errorf("purge trash: %w", err)
	}
	return nil
}

// Trash lists the deleted and archived memories that can still be restored,
// last deleted first. It only reads: deleted ones past TrashKeep are left out
// here and purged by the next delete.
func (s *DB) Trash(ctx context.Context) ([]memory.TrashItem, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+trashColumns+` FROM trash WHERE archived OR deleted_at >= ? ORDER BY deleted_at DESC, memory_id`,
		formatTime(trashNow().Add(-memory.TrashKeep)))
	if err != nil {
		return nil, fmt.Errorf("list trash: %w", err)
	}
	defer rows.Close()
	out := []memory.TrashItem{}
	for rows.Next() {
		it, err := scanTrashItem(rows)
		if err != nil {
			return nil, fmt.Errorf("list trash: %w", err)
		}
		if it.Memory == nil || !memory.PrincipalFrom(ctx).Sees(it.Memory.Namespace) {
			continue // another person's: as if it were not there
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, hideUnseen(ctx, s.db, out)
}

// trashColumns are the columns scanTrashItem reads.
const trashColumns = `memory_id, deleted_at, record, archived`

// scanTrashItem decodes one row of trashColumns.
func scanTrashItem(rows *sql.Rows) (memory.TrashItem, error) {
	var id, at, body string
	var it memory.TrashItem
	if err := rows.Scan(&id, &at, &body, &it.Archived); err != nil {
		return it, err
	}
	if err := json.Unmarshal([]byte(body), &it.TrashRecord); err != nil {
		return it, fmt.Errorf("trash record of memory %s: %w", id, err)
	}
	var err error
	it.DeletedAt, err = parseTime(at)
	return it, err
}

// RestoreMemory puts a deleted or archived memory back from the trash with
// its id, its edges to memories that still exist, its validation events and
// its change log (with the restore added), in one transaction. Its vector is
// made again (it comes back pending).
// The change log names where the restore came from: the source ctx carries
// (memory.WithSource), the viewer by default.
func (s *DB) RestoreMemory(ctx context.Context, id string) (*memory.ImportResult, error) {
	source := memory.SourceFrom(ctx, memory.SourceViewer)
	var res *memory.ImportResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		var body string
		err := tx.QueryRowContext(ctx, `SELECT record FROM trash WHERE memory_id = ? AND (archived OR deleted_at >= ?)`,
			id, formatTime(trashNow().Add(-memory.TrashKeep))).Scan(&body)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("memory %s is not in the trash: %w", id, memory.ErrNotFound)
		}
		if err != nil {
			return err
		}
		rec, err := memory.ReadTrashRecord(ctx, id, []byte(body))
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
			if err := tx.QueryRowContext(ctx, `SELECT id FROM memories WHERE id = ? OR (content_hash = ? AND namespace = ?) ORDER BY id = ? DESC LIMIT 1`,
				id, rec.Memory.ContentHash, rec.Memory.Namespace, id).Scan(&res.Restored); err != nil {
				return fmt.Errorf("restore %s: finding the copy stored since: %w", id, err)
			}
		}
		if _, err := writeChange(ctx, tx, rec.RestoreChange(id, res.Restored, source, trashNow())); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM trash WHERE memory_id = ?`, id)
		return err
	})
	return res, err
}

// hideUnseen takes out of items the edges and related ids that name a memory
// the asker in ctx may not see (memory.HideUnseen).
func hideUnseen(ctx context.Context, q querier, items []memory.TrashItem) error {
	if !memory.PrincipalFrom(ctx).Restricted() {
		return nil
	}
	seen, err := visibleIDs(ctx, q, memory.OtherMemories(items)...)
	if err != nil {
		return err
	}
	memory.HideUnseen(items, seen)
	return nil
}
