package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// Changes lists change log entries, newest first: one memory's (by the
// memory's index), or those of some actions and namespaces (by the action
// index); of the namespaces the asker may see.
func (s Shared) Changes(ctx context.Context, q memory.ChangeQuery) ([]memory.Change, error) {
	var p Params
	where := []string{Visible(ctx, "change_log", &p)}
	if q.MemoryID != "" {
		where = append(where, "memory_id = "+p.Add(q.MemoryID))
	}
	if len(q.Actions) > 0 {
		in := make([]string, len(q.Actions))
		for i, a := range q.Actions {
			in[i] = p.Add(string(a))
		}
		where = append(where, "action IN ("+strings.Join(in, ", ")+")")
	}
	if len(q.Namespaces) > 0 {
		in := make([]string, len(q.Namespaces))
		for i, ns := range q.Namespaces {
			in[i] = p.Add(ns)
		}
		where = append(where, "namespace IN ("+strings.Join(in, ", ")+")")
	}
	limit := ""
	if q.Limit > 0 {
		limit = " LIMIT " + p.Add(q.Limit)
	}
	out, err := QueryAll(ctx, s.Read.SQL, ScanChange, `SELECT `+ChangeColumns+` FROM change_log WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC`+limit, p...)
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	if out == nil {
		out = []memory.Change{}
	}
	return out, nil
}

// AddChange writes one change log entry (keeping its id when it is set and
// free) and returns its id. Its author is whoever asks in ctx unless c names
// one.
func (s Statements) AddChange(ctx context.Context, c *memory.Change) (int64, error) {
	body, err := c.Stamp(ctx)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.SQL.QueryRow(ctx, `INSERT INTO change_log (id, memory_id, namespace, at, action, source, fields, reason, related_id, author)
		VALUES (`+s.SQL.KeepID("change_log")+`, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		c.ID, c.MemoryID, c.Namespace, c.At, string(c.Action), c.Source, string(body), c.Reason, c.RelatedID, c.Author).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record %s of %s: %w", c.Action, c.MemoryID, err)
	}
	return id, nil
}

// AddChanges appends entries to memories' logs in one transaction.
func (s Shared) AddChanges(ctx context.Context, changes ...memory.Change) error {
	return s.Tx.Write(ctx, func(tx Tx) error {
		for i := range changes {
			if _, err := tx.AddChange(ctx, &changes[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
