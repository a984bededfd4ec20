package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// writeChange inserts one entry (keeping its id when it is set and free) and
// returns its id. Its author is whoever asks in ctx unless c names one.
func writeChange(ctx context.Context, tx querier, c *memory.Change) (int64, error) {
	body, err := c.Stamp(ctx)
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO change_log (id, memory_id, namespace, at, action, source, fields, reason, related_id, author)
		VALUES (CASE WHEN ?1 > 0 AND NOT EXISTS (SELECT 1 FROM change_log WHERE id = ?1) THEN ?1 END, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.MemoryID, c.Namespace, formatTime(c.At), string(c.Action), c.Source, string(body), c.Reason, c.RelatedID, c.Author)
	if err != nil {
		return 0, fmt.Errorf("record %s of %s: %w", c.Action, c.MemoryID, err)
	}
	return res.LastInsertId()
}

// AddChanges appends entries to memories' logs in one transaction.
func (s *DB) AddChanges(ctx context.Context, changes ...memory.Change) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for i := range changes {
			if _, err := writeChange(ctx, tx, &changes[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// NotContradiction reports whether a person judged a and b not to
// contradict each other.
func (s *DB) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	return statements(s.db).NotContradiction(ctx, a, b)
}

// writeChanges writes imported entries for the memories they name (mapped
// through ids like events); entries of a missing memory are skipped.
func writeChanges(ctx context.Context, tx *sql.Tx, cs []memory.Change, ids map[string]string, res *memory.ImportResult, p *memory.RecordCounter) error {
	for _, c := range cs {
		p.Step()
		id, related, err := resolveEnds(ctx, tx, ids, c.MemoryID, c.RelatedID)
		if err != nil {
			return err
		}
		if id == "" {
			res.Skipped = append(res.Skipped, fmt.Sprintf("change %d: memory %s is missing", c.ID, c.MemoryID))
			continue
		}
		c.MemoryID = id
		if related != "" {
			c.RelatedID = related
		}
		// The same export read twice adds nothing the second time.
		var dup bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM change_log WHERE memory_id = ? AND at = ? AND action = ?)`,
			c.MemoryID, formatTime(c.At), string(c.Action)).Scan(&dup); err != nil {
			return err
		}
		if dup {
			continue
		}
		if _, err := writeChange(ctx, tx, &c); err != nil {
			return err
		}
		res.Changes++
	}
	return nil
}

// moveEditsToLog moves every memory's metadata.edits into the change log
// (the change log migration). The memories' updated_at stays: nothing about
// them changed. It names the columns of the schema at that migration, not
// the current one: later migrations add columns it must not expect.
func moveEditsToLog(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, namespace, metadata, updated_at FROM memories
		WHERE json_type(metadata, '$.`+memory.MetaEdits+`') IS NOT NULL ORDER BY seq`)
	if err != nil {
		return err
	}
	var ms []*memory.Memory
	for rows.Next() {
		var m memory.Memory
		var meta, updated string
		if err := rows.Scan(&m.ID, &m.Namespace, &meta, &updated); err != nil {
			rows.Close()
			return err
		}
		if m.Metadata, err = memory.DecodeMetadata([]byte(meta)); err != nil {
			rows.Close()
			return fmt.Errorf("memory %s: %w", m.ID, err)
		}
		m.UpdatedAt, _ = parseTime(updated)
		ms = append(ms, &m)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, m := range ms {
		for _, c := range memory.LegacyEdits(m) {
			body, err := json.Marshal(c.Fields)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO change_log (memory_id, namespace, at, action, source, fields, reason, related_id)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.MemoryID, c.Namespace, formatTime(c.At), string(c.Action), c.Source, string(body), c.Reason, c.RelatedID); err != nil {
				return fmt.Errorf("move edits of %s: %w", c.MemoryID, err)
			}
		}
		meta, err := memory.EncodeMetadata(m.Metadata)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memories SET metadata = ? WHERE id = ?`, meta, m.ID); err != nil {
			return err
		}
	}
	return nil
}
