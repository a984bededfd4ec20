package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Statements are the steps whose SQL is the same on both engines, run on an
// engine's connection or transaction (see SQL). An engine's transaction for
// Shared embeds them and adds the steps whose SQL is its own.
type Statements struct{ SQL SQL }

// Visible is the condition that the principal in ctx may see a row of the
// memories table aliased alias (its value added to p): every namespace but
// the other people's user:<name>. "TRUE" for the machine's own processes and
// the administrator.
func Visible(ctx context.Context, alias string, p *Params) string {
	who := memory.PrincipalFrom(ctx)
	if !who.Restricted() {
		return "TRUE"
	}
	ns := alias + ".namespace"
	return "(substr(" + ns + ", 1, 5) <> '" + memory.PersonNamespacePref + "' OR " + ns + " = " + p.Add(who.OwnNamespace()) + ")"
}

// Meta reads a value of the meta table; "" when it has none.
func (s Statements) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.SQL.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta writes a value of the meta table.
func (s Statements) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.SQL.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// AddEvent writes a validation event (its author: the asker unless given)
// and returns its id.
func (s Statements) AddEvent(ctx context.Context, ev *memory.ValidationEvent) (int64, error) {
	if _, err := memory.ParseEventType(string(ev.EventType)); err != nil {
		return 0, err
	}
	ev.Author = memory.AuthorOr(ctx, ev.Author)
	created := ev.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	var id int64
	err := s.SQL.QueryRow(ctx, `INSERT INTO validation_events (memory_id, event_type, context,
		error_msg, session_id, confidence_before, confidence_after, created_at, author)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		ev.MemoryID, string(ev.EventType), ev.Context, ev.ErrorMsg, ev.SessionID,
		ev.ConfidenceBefore, ev.ConfidenceAfter, created, ev.Author).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add event: %w", err)
	}
	return id, nil
}

// DeleteRow deletes a memory (its edges, events, jobs and vectors go with it
// by the schema's cascades and triggers); with keepGolden a golden rule
// stays, judged by the row as it is now.
func (s Statements) DeleteRow(ctx context.Context, id string, keepGolden bool) (bool, error) {
	n, err := s.SQL.Exec(ctx, `DELETE FROM memories WHERE id = $1 AND NOT ($2 AND memory_type = $3)`,
		id, keepGolden, string(memory.TypeGoldenRule))
	return n > 0, err
}

// NotContradiction reports whether a person judged a and b not to
// contradict each other.
func (s Statements) NotContradiction(ctx context.Context, a, b string) (bool, error) {
	var found bool
	err := s.SQL.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM change_log
		WHERE memory_id = $1 AND related_id = $2 AND action = $3)`, a, b, string(memory.ChangeNotContradiction)).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("read change log: %w", err)
	}
	return found, nil
}

// EdgeBetween returns the id of an edge of rel from source to target, or
// either way round when both; 0 when none.
func (s Statements) EdgeBetween(ctx context.Context, source, target string, rel memory.Relation, both bool) (int64, error) {
	var id int64
	err := s.SQL.QueryRow(ctx, `SELECT id FROM edges WHERE relation = $3
		AND ((source_id = $1 AND target_id = $2) OR ($4 AND source_id = $2 AND target_id = $1))
		ORDER BY id LIMIT 1`, source, target, string(rel), both).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// ReadEdge returns an edge's relation and ends; one with an end the
// principal in ctx may not see is ErrNotFound, as a missing one.
func (s Statements) ReadEdge(ctx context.Context, id int64) (memory.Relation, string, string, error) {
	var rel, a, b string
	p := Params{id}
	err := s.SQL.QueryRow(ctx, `SELECT relation, source_id, target_id FROM edges WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM memories m
		WHERE m.id IN (edges.source_id, edges.target_id) AND NOT `+Visible(ctx, "m", &p)+`)`, p...).Scan(&rel, &a, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", "", memory.NotFound("edge", strconv.FormatInt(id, 10))
	}
	return memory.Relation(rel), a, b, err
}

// DeleteEdge deletes an edge.
func (s Statements) DeleteEdge(ctx context.Context, id int64) error {
	_, err := s.SQL.Exec(ctx, `DELETE FROM edges WHERE id = $1`, id)
	return err
}

// DropStaged forgets the vectors a reindex staged.
func (s Statements) DropStaged(ctx context.Context) error {
	_, err := s.SQL.Exec(ctx, `DELETE FROM reindex_vectors`)
	return err
}

// CountStaged counts the staged vectors of memories whose content has not
// changed since.
func (s Statements) CountStaged(ctx context.Context) (int, error) {
	var n int
	err := s.SQL.QueryRow(ctx, `SELECT count(*) FROM reindex_vectors r JOIN memories m ON m.seq = r.seq
		WHERE r.content_hash = m.content_hash`).Scan(&n)
	return n, err
}

// CountRoots counts the roots bound to a namespace.
func (s Statements) CountRoots(ctx context.Context, ns string) (int, error) {
	var n int
	err := s.SQL.QueryRow(ctx, `SELECT count(*) FROM project_roots WHERE namespace = $1`, ns).Scan(&n)
	return n, err
}

// ProjectInUse reports whether a namespace holds memories or is bound to a
// root.
func (s Statements) ProjectInUse(ctx context.Context, ns string) (bool, error) {
	var used bool
	err := s.SQL.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE namespace = $1)
		OR EXISTS (SELECT 1 FROM project_roots WHERE namespace = $1)`, ns).Scan(&used)
	return used, err
}

// MoveNamespace moves every memory, root binding and session of from to to
// and returns how many memories moved.
func (s Statements) MoveNamespace(ctx context.Context, from, to string) (int, error) {
	n, err := s.SQL.Exec(ctx, `UPDATE memories SET namespace = $1 WHERE namespace = $2`, to, from)
	if err != nil {
		return 0, fmt.Errorf("move memories: %w", err)
	}
	for _, q := range []string{
		`UPDATE project_roots SET namespace = $1 WHERE namespace = $2`,
		`UPDATE sessions SET namespace = $1 WHERE namespace = $2`,
		`UPDATE change_log SET namespace = $1 WHERE namespace = $2`, // the golden rules' audit trail is by project
	} {
		if _, err := s.SQL.Exec(ctx, q, to, from); err != nil {
			return 0, fmt.Errorf("move project: %w", err)
		}
	}
	return int(n), nil
}

// FoldDuplicates deletes the memories of from whose content into holds too,
// after moving their edges, validation events and change log to the copy in
// into.
func (s Statements) FoldDuplicates(ctx context.Context, from, into string) ([]memory.MergedDuplicate, error) {
	rows, err := s.SQL.Query(ctx, `SELECT a.id, b.id FROM memories a
		JOIN memories b ON b.namespace = $1 AND b.content_hash = a.content_hash
		WHERE a.namespace = $2 ORDER BY a.seq`, into, from)
	if err != nil {
		return nil, fmt.Errorf("find duplicates: %w", err)
	}
	dups, err := ReadAll(rows, func() (memory.MergedDuplicate, error) {
		var d memory.MergedDuplicate
		err := rows.Scan(&d.Deleted, &d.KeptID)
		return d, err
	})
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("find duplicates: %w", err)
	}
	if dups == nil {
		dups = []memory.MergedDuplicate{}
	}
	for _, d := range dups {
		for _, q := range []string{
			// An edge the kept memory already has stays; the duplicate's copy
			// goes with the duplicate.
			`UPDATE edges SET source_id = $1 WHERE source_id = $2 AND NOT EXISTS (SELECT 1 FROM edges x
				WHERE x.source_id = $1 AND x.target_id = edges.target_id AND x.relation = edges.relation)`,
			`UPDATE edges SET target_id = $1 WHERE target_id = $2 AND NOT EXISTS (SELECT 1 FROM edges x
				WHERE x.target_id = $1 AND x.source_id = edges.source_id AND x.relation = edges.relation)`,
			`UPDATE validation_events SET memory_id = $1 WHERE memory_id = $2`,
			`UPDATE change_log SET memory_id = $1 WHERE memory_id = $2`, // its history, verdicts included
			`UPDATE change_log SET related_id = $1 WHERE related_id = $2`,
		} {
			if _, err := s.SQL.Exec(ctx, q, d.KeptID, d.Deleted); err != nil {
				return nil, fmt.Errorf("fold duplicate %s into %s: %w", d.Deleted, d.KeptID, err)
			}
		}
		if _, err := s.SQL.Exec(ctx, `DELETE FROM edges WHERE source_id = target_id`); err != nil {
			return nil, fmt.Errorf("fold duplicate %s: %w", d.Deleted, err)
		}
		if _, err := s.SQL.Exec(ctx, `DELETE FROM memories WHERE id = $1`, d.Deleted); err != nil {
			return nil, fmt.Errorf("delete duplicate %s: %w", d.Deleted, err)
		}
	}
	return dups, nil
}

// ProjectBindings lists every root with its namespace, by root.
func (s Shared) ProjectBindings(ctx context.Context) ([]memory.ProjectBinding, error) {
	out, err := QueryAll(ctx, s.Read.SQL, func(r Row) (memory.ProjectBinding, error) {
		var b memory.ProjectBinding
		err := r.Scan(&b.Root, &b.Namespace, &b.CreatedAt)
		return b, err
	}, `SELECT root, namespace, created_at FROM project_roots ORDER BY root`)
	if err != nil {
		return nil, fmt.Errorf("list project roots: %w", err)
	}
	return out, nil
}

// BindRoot returns root's binding, binding it first when it has none: to
// the first of candidates that no other root holds. The engine runs it in a
// transaction in which two processes binding at once take turns.
func (s Statements) BindRoot(ctx context.Context, root string, candidates []string) (memory.ProjectBinding, error) {
	b := memory.ProjectBinding{Root: root}
	err := s.SQL.QueryRow(ctx, `SELECT namespace, created_at FROM project_roots WHERE root = $1`, root).Scan(&b.Namespace, &b.CreatedAt)
	if err == nil {
		return b, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return b, fmt.Errorf("read project root: %w", err)
	}
	for _, ns := range candidates {
		var taken bool
		if err := s.SQL.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM project_roots WHERE namespace = $1)`, ns).Scan(&taken); err != nil {
			return b, fmt.Errorf("read project roots: %w", err)
		}
		if taken {
			continue
		}
		b.Namespace, b.CreatedAt = ns, time.Now().UTC()
		if _, err := s.SQL.Exec(ctx, `INSERT INTO project_roots (root, namespace, created_at) VALUES ($1, $2, $3)`,
			root, ns, b.CreatedAt); err != nil {
			return b, fmt.Errorf("bind project root: %w", err)
		}
		return b, nil
	}
	return b, fmt.Errorf("every namespace proposed for %s (%s) is bound to another root", root, strings.Join(candidates, ", "))
}

// ProjectSummaries lists every project namespace that holds memories or is
// bound to a root, by namespace.
func (s Shared) ProjectSummaries(ctx context.Context) ([]memory.ProjectSummary, error) {
	rows, err := s.Read.SQL.Query(ctx, `SELECT namespace, count(*) FROM memories WHERE namespace LIKE 'project:%' GROUP BY namespace`)
	if err != nil {
		return nil, fmt.Errorf("count project memories: %w", err)
	}
	counts := map[string]int{}
	err = ReadCounts(rows, counts)
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("count project memories: %w", err)
	}
	bindings, err := s.ProjectBindings(ctx)
	if err != nil {
		return nil, err
	}
	return ProjectSummaries(counts, bindings), nil
}

// HolderOf returns the id of the memory of namespace other than id that
// holds content of the hash; "" when none does.
func (s Statements) HolderOf(ctx context.Context, namespace, contentHash, id string) (string, error) {
	var other string
	err := s.SQL.QueryRow(ctx, `SELECT id FROM memories WHERE namespace = $1 AND content_hash = $2 AND id <> $3`,
		namespace, contentHash, id).Scan(&other)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return other, err
}
