package sqlite

import (
	"context"
	"database/sql"
	"fmt"

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
	st := statements(tx)
	steps := []func() error{
		func() error { return exportMemories(ctx, tx, v.Memory) },
		func() error { return st.ExportEdges(ctx, v.Edge) },
		func() error { return st.ExportEvents(ctx, v.Event) },
		func() error { return st.ExportChanges(ctx, v.Change) },
		func() error { return st.ExportFiles(ctx, v.File) },
		func() error { return exportProjects(ctx, tx, v.Project) },
		func() error { return st.ExportArchived(ctx, v.Archived) },
		func() error { return st.ExportJournal(ctx, v.Journal) },
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
	put := storage.VectorsTo(v, sp)
	return eachRow(ctx, tx, `SELECT m.id, v.embedding FROM memories m JOIN memory_vectors v ON v.rowid = m.seq
		WHERE m.embedding_pending = 0 AND `+visible+` ORDER BY m.created_at, m.seq`, func(rows *sql.Rows) error {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		return put(id, decodeVector(blob))
	}, vargs...)
}
