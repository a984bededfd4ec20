package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// NotContradiction reports whether a person judged a and b not to
// contradict each other.
func (s *DB) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	return statements(s.db).NotContradiction(ctx, a, b)
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
