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
	out, err := all(ctx, s.Read.SQL, ScanChange, `SELECT `+ChangeColumns+` FROM change_log WHERE `+strings.Join(where, " AND ")+
		` ORDER BY id DESC`+limit, p...)
	if err != nil {
		return nil, fmt.Errorf("read change log: %w", err)
	}
	if out == nil {
		out = []memory.Change{}
	}
	return out, nil
}
