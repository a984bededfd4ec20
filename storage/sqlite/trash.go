package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// KeepInTrash copies memory id's record into the trash inside the delete's
// transaction, and purges records past TrashKeep.
func (t sharedTx) KeepInTrash(ctx context.Context, id string, archived bool) error {
	tx := t.tx
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
	now := storage.TrashNow()
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
		formatTime(storage.TrashNow().Add(-memory.TrashKeep)))
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

func (t sharedTx) TrashedRecord(ctx context.Context, id string, since time.Time) ([]byte, bool, error) {
	var body string
	err := t.tx.QueryRowContext(ctx, `SELECT record FROM trash WHERE memory_id = ? AND (archived OR deleted_at >= ?)`,
		id, formatTime(since)).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return []byte(body), err == nil, err
}

func (t sharedTx) WriteRecords(ctx context.Context, r memory.Records) (*memory.ImportResult, error) {
	return writeRecords(ctx, t.tx, r)
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
