package postgres

import (
	"context"
	"strings"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage"
)

// The one visibility rule of a team, as on SQLite: a person (the
// memory.Principal in the context) sees the shared namespaces and their own
// user:<name>, never another person's. Every query over memories adds
// visibleCond, and every lookup by id checks the row it read, so another
// person's private memory is not found, whichever tool asks.

// visibleCond is the condition on the memories table aliased alias that the
// asker sees the row, binding its value in p (storage.Visible, the rule
// both stores share).
func visibleCond(ctx context.Context, alias string, p *params) string {
	return storage.Visible(ctx, alias, (*storage.Params)(p))
}

// visibleSQL is visibleCond with the asker's namespace as a quoted literal,
// for statements that take no parameters (an export's); names are checked
// (memory.ValidatePersonName) before they reach a principal.
func visibleSQL(ctx context.Context, alias string) string {
	who := memory.PrincipalFrom(ctx)
	if !who.Restricted() {
		return "true"
	}
	ns := alias + ".namespace"
	own := strings.ReplaceAll(who.OwnNamespace(), "'", "''")
	return "(left(" + ns + ", 5) <> '" + memory.PersonNamespacePref + "' OR " + ns + " = '" + own + "')"
}

// ownWork is the condition that a row of the journal or of file activity
// (table alias; none when empty) records the asker's own sessions, binding
// its value in p; "true" when they read every one. A person's prompts and
// tool calls are theirs alone, as on SQLite.
func ownWork(ctx context.Context, alias string, p *params) string {
	who := memory.PrincipalFrom(ctx)
	if !who.Restricted() {
		return "true"
	}
	col := "author"
	if alias != "" {
		col = alias + ".author"
	}
	return col + " = " + p.add(who.Person)
}

// ownJobs is the condition that a job (table alias) is about what the asker
// may see, binding its values in p; "true" when they see every one. A
// summary job's subject is a session: the asker's when its journal is
// theirs; any other job's is a memory they may see.
func ownJobs(ctx context.Context, alias string, p *params) string {
	who := memory.PrincipalFrom(ctx)
	if !who.Restricted() {
		return "true"
	}
	return `(CASE WHEN ` + alias + `.kind = '` + journal.SummaryJobKind + `'
		THEN EXISTS (SELECT 1 FROM journal e WHERE e.session_id = ` + alias + `.subject AND e.author = ` + p.add(who.Person) + `)
		ELSE EXISTS (SELECT 1 FROM memories m WHERE m.id = ` + alias + `.subject AND ` + visibleCond(ctx, "m", p) + `) END)`
}
