package storage

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// The steps of an export (every record the asker may see, handed to a
// memory.RecordVisitor in the order an import reads them) whose SQL both
// engines share. Each engine runs them in its own snapshot.

// each hands fn every row query reads, decoded by read; nothing when fn is
// nil (the visitor does not take these records).
func each[T any](ctx context.Context, q SQL, fn func(*T) error, read func(Row) (T, error), query string, args ...any) error {
	if fn == nil {
		return nil
	}
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := read(rows)
		if err != nil {
			return err
		}
		if err := fn(&v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ExportEdges hands fn every edge whose ends the asker may see.
func (s Statements) ExportEdges(ctx context.Context, fn func(*memory.Edge) error) error {
	var p Params
	return each(ctx, s.SQL, fn, ScanEdge, `SELECT `+EdgeColumns+` FROM edges WHERE NOT EXISTS (SELECT 1 FROM memories m
		WHERE m.id IN (edges.source_id, edges.target_id) AND NOT `+Visible(ctx, "m", &p)+`) ORDER BY id`, p...)
}

// ExportEvents hands fn every validation event of a memory the asker may
// see.
func (s Statements) ExportEvents(ctx context.Context, fn func(*memory.ValidationEvent) error) error {
	var p Params
	return each(ctx, s.SQL, fn, ScanEvent, `SELECT `+EventColumns+` FROM validation_events
		WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id AND `+Visible(ctx, "m", &p)+`) ORDER BY id`, p...)
}

// ExportChanges hands fn every change log entry of a namespace the asker
// may see.
func (s Statements) ExportChanges(ctx context.Context, fn func(*memory.Change) error) error {
	var p Params
	return each(ctx, s.SQL, fn, ScanChange, `SELECT `+ChangeColumns+` FROM change_log WHERE `+Visible(ctx, "change_log", &p)+` ORDER BY id`, p...)
}

// ExportFiles hands fn every row of file activity.
func (s Statements) ExportFiles(ctx context.Context, fn func(*memory.FileRow) error) error {
	return each(ctx, s.SQL, fn, scanFileRow, `SELECT id, file_path, action, session_id, project_root, file_type, metadata,
		created_at, touches, summary FROM file_activity ORDER BY id`)
}

func scanFileRow(r Row) (memory.FileRow, error) {
	var f memory.FileRow
	var action string
	var meta []byte
	if err := r.Scan(&f.ID, &f.FilePath, &action, &f.SessionID, &f.ProjectRoot, &f.FileType, &meta,
		&f.CreatedAt, &f.Touches, &f.Summary); err != nil {
		return f, err
	}
	f.Action, f.CreatedAt = memory.FileAction(action), f.CreatedAt.UTC()
	var err error
	f.Metadata, err = rowMetadata(meta, "file activity", f.ID)
	return f, err
}

// ExportArchived hands fn every trash item of a namespace the asker may
// see; deleted ones past TrashKeep are gone, as Trash reads them.
func (s Statements) ExportArchived(ctx context.Context, fn func(*memory.TrashItem) error) error {
	if fn == nil {
		return nil
	}
	who := memory.PrincipalFrom(ctx)
	return each(ctx, s.SQL, func(it *memory.TrashItem) error {
		if it.Memory == nil || !who.Sees(it.Memory.Namespace) {
			return nil // another person's
		}
		return fn(it)
	}, ScanTrashItem, `SELECT `+TrashColumns+` FROM trash WHERE archived OR deleted_at >= $1 ORDER BY deleted_at, memory_id`,
		TrashNow().Add(-memory.TrashKeep))
}

// ExportJournal hands fn every journal entry of the asker's own sessions.
func (s Statements) ExportJournal(ctx context.Context, fn func(*journal.Entry) error) error {
	if fn == nil {
		return nil
	}
	var p Params
	return each(ctx, s.SQL, func(e **journal.Entry) error { return fn(*e) },
		func(r Row) (*journal.Entry, error) { return ScanEntry(r) },
		`SELECT `+journalColumns+` FROM journal j WHERE `+OwnWork(ctx, "j", &p)+` ORDER BY j.id`, p...)
}

// VectorsTo is v.Vector that first hands v.Space the embedding space sp,
// once, before the first vector (never when there is none).
func VectorsTo(v memory.RecordVisitor, sp memory.EmbeddingSpace) func(id string, vec []float32) error {
	told := false
	return func(id string, vec []float32) error {
		if !told && v.Space != nil {
			if err := v.Space(sp); err != nil {
				return err
			}
			told = true
		}
		return v.Vector(id, vec)
	}
}
