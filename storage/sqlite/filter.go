package sqlite

import (
	"context"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// whereFilter turns a filter into SQL conditions on the memories table aliased m,
// joined with AND, and their arguments, the visibility rule of the principal in
// ctx among them (see visibleCond). An empty filter seen by everyone yields "1".
func whereFilter(ctx context.Context, f memory.Filter) (string, []any) {
	var conds []string
	var args []any
	if cond, vargs := visibleCond(ctx, "m"); vargs != nil {
		conds = append(conds, cond)
		args = append(args, vargs...)
	}
	if len(f.Namespaces) > 0 {
		conds = append(conds, "m.namespace IN ("+placeholders(len(f.Namespaces))+")")
		args = append(args, anySlice(f.Namespaces)...)
	}
	if len(f.Types) > 0 {
		conds = append(conds, "m.memory_type IN ("+placeholders(len(f.Types))+")")
		for _, t := range f.Types {
			args = append(args, string(t))
		}
	}
	if f.MinImportance > 0 {
		conds = append(conds, "m.importance >= ?")
		args = append(args, f.MinImportance)
	}
	if f.MinConfidence != nil {
		conds = append(conds, "m.confidence >= ?")
		args = append(args, *f.MinConfidence)
	}
	if f.MaxConfidence != nil {
		conds = append(conds, "m.confidence <= ?")
		args = append(args, *f.MaxConfidence)
	}
	if !f.CreatedAfter.IsZero() {
		conds = append(conds, "m.created_at >= ?")
		args = append(args, formatTime(f.CreatedAfter))
	}
	if !f.CreatedBefore.IsZero() {
		conds = append(conds, "m.created_at < ?")
		args = append(args, formatTime(f.CreatedBefore))
	}
	if len(f.Authors) > 0 {
		conds = append(conds, "m.author IN ("+placeholders(len(f.Authors))+")")
		args = append(args, anySlice(f.Authors)...)
	}
	if len(f.Sources) > 0 {
		conds = append(conds, "m.source IN ("+placeholders(len(f.Sources))+")")
		args = append(args, anySlice(f.Sources)...)
	}
	if len(f.IDs) > 0 {
		conds = append(conds, "m.id IN ("+placeholders(len(f.IDs))+")")
		args = append(args, anySlice(f.IDs)...)
	}
	if !f.IncludeSuperseded {
		cond, sargs := notSupersededFor(ctx)
		conds = append(conds, cond)
		args = append(args, sargs...)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// notSuperseded holds for a memory that no supersedes edge points at.
const notSuperseded = `NOT EXISTS (SELECT 1 FROM edges s WHERE s.target_id = m.id AND s.relation = 'supersedes')`

// notSupersededFor is notSuperseded as the asker in ctx sees it: only a
// memory they may see can supersede one for them, so another person's
// private memory never hides a shared one from the rest of the team.
func notSupersededFor(ctx context.Context) (string, []any) {
	cond, args := visibleCond(ctx, "sm")
	if args == nil {
		return notSuperseded, nil
	}
	// Edges first (by their target), then the source's row: the few
	// supersedes edges of m are all there is to check.
	return `NOT EXISTS (SELECT 1 FROM edges s WHERE s.target_id = m.id AND s.relation = 'supersedes'
		AND EXISTS (SELECT 1 FROM memories sm WHERE sm.id = s.source_id AND ` + cond + `))`, args
}
