package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// Export reads every record inside one read transaction (a consistent
// snapshot, even while other processes write) and hands each to v. Nothing is
// held beyond the row being visited.
func (s *DB) Export(ctx context.Context, v memory.RecordVisitor) error {
	// A deferred transaction on one connection: a snapshot that never takes
	// the write lock (the pool's transactions begin IMMEDIATE), so writers go on.
	tx, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin export: %w", err)
	}
	defer tx.Close()
	if _, err := tx.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return fmt.Errorf("begin export: %w", err)
	}
	defer tx.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	steps := []func() error{
		func() error { return exportMemories(ctx, tx, v.Memory) },
		func() error { return exportEdges(ctx, tx, v.Edge) },
		func() error { return exportEvents(ctx, tx, v.Event) },
		func() error { return exportChanges(ctx, tx, v.Change) },
		func() error { return exportFiles(ctx, tx, v.File) },
		func() error { return exportProjects(ctx, tx, v.Project) },
		func() error { return exportArchived(ctx, tx, v.Archived) },
		func() error { return exportJournal(ctx, tx, v.Journal) },
		func() error { return exportVectors(ctx, tx, v) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// eachRow runs query and calls scan for every row.
func eachRow(ctx context.Context, tx querier, query string, scan func(*sql.Rows) error, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func exportMemories(ctx context.Context, tx querier, fn func(*memory.Memory) error) error {
	if fn == nil {
		return nil
	}
	visible, vargs := visibleCond(ctx, "m")
	return eachRow(ctx, tx, `SELECT `+memoryColumns+` FROM memories m WHERE `+visible+` ORDER BY m.created_at, m.seq`, func(rows *sql.Rows) error {
		m, _, err := scanMemory(rows)
		if err != nil {
			return err
		}
		return fn(m)
	}, vargs...)
}

func exportEdges(ctx context.Context, tx querier, fn func(*memory.Edge) error) error {
	if fn == nil {
		return nil
	}
	visible, vargs := visibleCond(ctx, "m")
	return eachRow(ctx, tx, `SELECT id, source_id, target_id, relation, weight, metadata, created_at, author FROM edges
		WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id IN (edges.source_id, edges.target_id) AND NOT `+visible+`)
		ORDER BY id`, func(rows *sql.Rows) error {
		var e memory.Edge
		var rel, meta, created string
		if err := rows.Scan(&e.ID, &e.SourceID, &e.TargetID, &rel, &e.Weight, &meta, &created, &e.Author); err != nil {
			return err
		}
		e.Relation = memory.Relation(rel)
		var err error
		if e.Metadata, err = memory.DecodeOptionalMetadata([]byte(meta)); err != nil {
			return fmt.Errorf("edge %d: %w", e.ID, err)
		}
		if e.CreatedAt, err = parseTime(created); err != nil {
			return err
		}
		return fn(&e)
	}, vargs...)
}

func exportEvents(ctx context.Context, tx querier, fn func(*memory.ValidationEvent) error) error {
	if fn == nil {
		return nil
	}
	visible, vargs := visibleCond(ctx, "m")
	return eachRow(ctx, tx, `SELECT id, memory_id, event_type, context, error_msg, session_id,
		confidence_before, confidence_after, created_at, author FROM validation_events
		WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id AND `+visible+`) ORDER BY id`, func(rows *sql.Rows) error {
		var ev memory.ValidationEvent
		var typ, created string
		if err := rows.Scan(&ev.ID, &ev.MemoryID, &typ, &ev.Context, &ev.ErrorMsg, &ev.SessionID,
			&ev.ConfidenceBefore, &ev.ConfidenceAfter, &created, &ev.Author); err != nil {
			return err
		}
		ev.EventType = memory.EventType(typ)
		var err error
		if ev.CreatedAt, err = parseTime(created); err != nil {
			return err
		}
		return fn(&ev)
	}, vargs...)
}

func exportChanges(ctx context.Context, tx querier, fn func(*memory.Change) error) error {
	if fn == nil {
		return nil
	}
	visible, vargs := visibleCond(ctx, "change_log")
	return eachRow(ctx, tx, `SELECT `+storage.ChangeColumns+` FROM change_log WHERE `+visible+` ORDER BY id`, func(rows *sql.Rows) error {
		c, err := storage.ScanChange(cursor{rows})
		if err != nil {
			return err
		}
		return fn(&c)
	}, vargs...)
}

func exportFiles(ctx context.Context, tx querier, fn func(*memory.FileRow) error) error {
	if fn == nil {
		return nil
	}
	return eachRow(ctx, tx, `SELECT id, file_path, action, session_id, project_root, file_type, metadata, created_at,
		touches, summary FROM file_activity ORDER BY id`, func(rows *sql.Rows) error {
		var a memory.FileRow
		var action, meta, created string
		if err := rows.Scan(&a.ID, &a.FilePath, &action, &a.SessionID, &a.ProjectRoot, &a.FileType, &meta, &created,
			&a.Touches, &a.Summary); err != nil {
			return err
		}
		a.Action = memory.FileAction(action)
		var err error
		if a.Metadata, err = memory.DecodeOptionalMetadata([]byte(meta)); err != nil {
			return fmt.Errorf("file activity %d: %w", a.ID, err)
		}
		if a.CreatedAt, err = parseTime(created); err != nil {
			return err
		}
		return fn(&a)
	})
}

// projectsTable binds project roots to namespaces. Its rows travel column by
// column, so an export carries whatever the table holds.
const projectsTable = "project_roots"

func exportProjects(ctx context.Context, tx querier, fn func(map[string]any) error) error {
	if fn == nil {
		return nil
	}
	rows, err := readTable(ctx, tx, projectsTable) // none when the table is absent
	if err != nil {
		return fmt.Errorf("export projects: %w", err)
	}
	for _, r := range rows {
		row := map[string]any{}
		for k, v := range r {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[k] = v
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

func exportArchived(ctx context.Context, tx querier, fn func(*memory.TrashItem) error) error {
	if fn == nil {
		return nil
	}
	// Deleted ones past TrashKeep are gone, as Trash reads it.
	return eachRow(ctx, tx, `SELECT `+storage.TrashColumns+` FROM trash WHERE archived OR deleted_at >= ? ORDER BY deleted_at, memory_id`, func(rows *sql.Rows) error {
		it, err := storage.ScanTrashItem(cursor{rows})
		if err != nil {
			return err
		}
		if it.Memory == nil || !memory.PrincipalFrom(ctx).Sees(it.Memory.Namespace) {
			return nil // another person's
		}
		return fn(&it)
	}, formatTime(storage.TrashNow().Add(-memory.TrashKeep)))
}

func exportJournal(ctx context.Context, tx querier, fn func(*journal.Entry) error) error {
	if fn == nil {
		return nil
	}
	own, oargs := ownWork(ctx, "journal")
	return eachRow(ctx, tx, `SELECT `+journalColumns+` FROM journal WHERE `+own+` ORDER BY id`, func(rows *sql.Rows) error {
		e, err := storage.ScanEntry(cursor{rows})
		if err != nil {
			return err
		}
		return fn(e)
	}, oargs...)
}

// exportVectors hands v the embedding space, then the vector of every
// memory that has one, in the memories' order.
func exportVectors(ctx context.Context, tx querier, v memory.RecordVisitor) error {
	if v.Vector == nil {
		return nil
	}
	sp, err := embeddingSpace(ctx, tx)
	if err != nil || sp.Model == "" || sp.Dimension == 0 {
		return err // vectors of no named model are made again by the importer's
	}
	visible, vargs := visibleCond(ctx, "m")
	told := false
	return eachRow(ctx, tx, `SELECT m.id, v.embedding FROM memories m JOIN memory_vectors v ON v.rowid = m.seq
		WHERE m.embedding_pending = 0 AND `+visible+` ORDER BY m.created_at, m.seq`, func(rows *sql.Rows) error {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		if !told && v.Space != nil {
			if err := v.Space(sp); err != nil {
				return err
			}
			told = true
		}
		return v.Vector(id, decodeVector(blob))
	}, vargs...)
}
