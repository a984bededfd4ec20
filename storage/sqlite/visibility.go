package sqlite

import (
	"context"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// The one visibility rule of a team: a person (memory.Principal in the
// request's context) sees every namespace but the other people's user:<name>.
// Every query that reads memories applies it here, through whereFilter or
// visibleCond, and every lookup by id goes through getMemory, so that another
// person's private memory answers exactly as a missing one. The
// administrator's token and the processes of this machine see everything.

// visibleCond is the condition, on the memories table aliased alias, that the
// principal in ctx may see a row, with its argument; "1" when it sees all.
func visibleCond(ctx context.Context, alias string) (string, []any) {
	p := memory.PrincipalFrom(ctx)
	if !p.Restricted() {
		return "1", nil
	}
	ns := alias + ".namespace"
	return "(substr(" + ns + ", 1, 5) <> '" + memory.PersonNamespacePref + "' OR " + ns + " = ?)", []any{p.OwnNamespace()}
}

// hiddenCount counts the memories the principal in ctx may not see (others'
// private ones), for searches that filter them out after ranking and must
// ask for that many more.
func hiddenCount(ctx context.Context, q querier) (int, error) {
	p := memory.PrincipalFrom(ctx)
	if !p.Restricted() {
		return 0, nil
	}
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM memories
		WHERE namespace >= 'user:' AND namespace < 'user;' AND namespace <> ?`, p.OwnNamespace()).Scan(&n)
	return n, err
}

// ownWork is the condition that a row of the journal or of file activity
// (table alias; none when empty) records the asker's own sessions, with its argument; "1" when
// they read every one. A person's prompts and tool calls are theirs alone,
// whatever namespace they were captured in; the administrator and this
// machine read them all.
func ownWork(ctx context.Context, alias string) (string, []any) {
	p := memory.PrincipalFrom(ctx)
	if !p.Restricted() {
		return "1", nil
	}
	col := "author"
	if alias != "" {
		col = alias + ".author"
	}
	return col + " = ?", []any{p.Person}
}

// ownJobs is the condition that a job (table alias) is about what the asker
// may see, with its arguments; "1" when they see every one. A summary job's
// subject is a session: the asker's when its journal is theirs; any other
// job's is a memory they may see.
func ownJobs(ctx context.Context, alias string) (string, []any) {
	p := memory.PrincipalFrom(ctx)
	if !p.Restricted() {
		return "1", nil
	}
	visible, args := visibleCond(ctx, "m")
	return `(CASE WHEN ` + alias + `.kind = '` + journal.SummaryJobKind + `'
		THEN EXISTS (SELECT 1 FROM journal e WHERE e.session_id = ` + alias + `.subject AND e.author = ?)
		ELSE EXISTS (SELECT 1 FROM memories m WHERE m.id = ` + alias + `.subject AND ` + visible + `) END)`,
		append([]any{p.Person}, args...)
}
