package storage

import (
	"context"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// WhereFilter turns a filter into SQL conditions on the memories table
// aliased m, joined with AND, binding its values in p (each parameter
// stands once, in the order it is added), the visibility rule of the
// principal in ctx among them (see Visible); d writes the engine's
// conditions on a list of values. An empty filter seen by everyone yields
// "true". It reads m's columns seq, id, namespace, memory_type, importance,
// confidence, created_at, author and source only.
func WhereFilter(ctx context.Context, f memory.Filter, p *Params, d SQL) string {
	var conds []string
	if memory.PrincipalFrom(ctx).Restricted() {
		conds = append(conds, Visible(ctx, "m", p))
	}
	if len(f.Namespaces) > 0 {
		conds = append(conds, d.AnyOf("m.namespace", f.Namespaces, p))
	}
	if len(f.Types) > 0 {
		types := make([]string, len(f.Types))
		for i, t := range f.Types {
			types[i] = string(t)
		}
		conds = append(conds, d.AnyOf("m.memory_type", types, p))
	}
	if f.MinImportance > 0 {
		conds = append(conds, "m.importance >= "+p.Add(f.MinImportance))
	}
	if f.MinConfidence != nil {
		conds = append(conds, "m.confidence >= "+p.Add(*f.MinConfidence))
	}
	if f.MaxConfidence != nil {
		conds = append(conds, "m.confidence <= "+p.Add(*f.MaxConfidence))
	}
	if !f.CreatedAfter.IsZero() {
		conds = append(conds, "m.created_at >= "+p.Add(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		conds = append(conds, "m.created_at < "+p.Add(f.CreatedBefore))
	}
	if len(f.Authors) > 0 {
		conds = append(conds, d.AnyOf("m.author", f.Authors, p))
	}
	if len(f.Sources) > 0 {
		conds = append(conds, d.AnyOf("m.source", f.Sources, p))
	}
	if len(f.IDs) > 0 {
		conds = append(conds, d.AnyOf("m.id", f.IDs, p))
	}
	if !f.IncludeSuperseded {
		conds = append(conds, NotSupersededFor(ctx, p))
	}
	if len(conds) == 0 {
		return "true"
	}
	return strings.Join(conds, " AND ")
}

// NotSuperseded holds for a memory (aliased m) that no supersedes edge
// points at.
const NotSuperseded = `NOT EXISTS (SELECT 1 FROM edges s WHERE s.target_id = m.id AND s.relation = 'supersedes')`

// NotSupersededFor is NotSuperseded as the asker in ctx sees it: only a
// memory they may see can supersede one for them, so another person's
// private memory never hides a shared one from the rest of the team. Edges
// first (by their target), then the source's row: the few supersedes edges
// of m are all there is to check.
func NotSupersededFor(ctx context.Context, p *Params) string {
	if !memory.PrincipalFrom(ctx).Restricted() {
		return NotSuperseded
	}
	return `NOT EXISTS (SELECT 1 FROM edges s WHERE s.target_id = m.id AND s.relation = 'supersedes'
		AND EXISTS (SELECT 1 FROM memories sm WHERE sm.id = s.source_id AND ` + Visible(ctx, "sm", p) + `))`
}
