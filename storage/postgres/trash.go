package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// KeepInTrash copies memory id's record into the trash inside the delete's
// transaction, and purges records past memory.TrashKeep.
func (t sharedTx) KeepInTrash(ctx context.Context, id string, archived bool) error {
	tx := t.tx
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
	now := storage.TrashNow()
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
	if err := purgeTrash(ctx, s.pool, storage.TrashNow()); err != nil {
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

func (t sharedTx) TrashedRecord(ctx context.Context, id string, since time.Time) ([]byte, bool, error) {
	var body []byte
	err := t.tx.QueryRow(ctx, `SELECT record FROM trash WHERE memory_id = $1 AND (archived OR deleted_at >= $2) FOR UPDATE`,
		id, since).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	return body, err == nil, err
}

func (t sharedTx) WriteRecords(ctx context.Context, r memory.Records) (*memory.ImportResult, error) {
	return writeRecords(ctx, t.tx, r)
}
