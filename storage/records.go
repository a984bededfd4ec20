package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// The steps of an import (memory.Records written in one transaction) whose
// SQL both engines share. Memories go first; ids maps each incoming memory
// id to the id it is stored under (itself, or the stored memory with the
// same content), and the records that name memories follow it.

// ResolveEnds maps memory ids through ids, falling back to memories already
// stored; "" for one that is nowhere.
func (s Statements) ResolveEnds(ctx context.Context, ids map[string]string, ends ...string) ([]string, error) {
	out := make([]string, len(ends))
	for i, id := range ends {
		if mapped, ok := ids[id]; ok {
			out[i] = mapped
			continue
		}
		var found string
		err := s.SQL.QueryRow(ctx, `SELECT id FROM memories WHERE id = $1`, id).Scan(&found)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		ids[id] = found
		out[i] = found
	}
	return out, nil
}

// WriteEdges writes imported edges between the memories they name, keeping
// their ids where free; one with an end missing is skipped, the same triple
// again adds nothing.
func (s Statements) WriteEdges(ctx context.Context, es []memory.Edge, ids map[string]string, res *memory.ImportResult, p *memory.RecordCounter) error {
	for _, e := range es {
		p.Step()
		ends, err := s.ResolveEnds(ctx, ids, e.SourceID, e.TargetID)
		if err != nil {
			return err
		}
		src, tgt := ends[0], ends[1]
		if src == "" || tgt == "" || src == tgt {
			res.Skipped = append(res.Skipped, fmt.Sprintf("edge %d %s -> %s: a memory at either end is missing", e.ID, e.SourceID, e.TargetID))
			continue
		}
		meta, err := memory.EncodeMetadata(e.Metadata)
		if err != nil {
			return fmt.Errorf("edge %d: %w", e.ID, err)
		}
		n, err := s.SQL.Exec(ctx, `INSERT INTO edges (id, source_id, target_id, relation, weight, metadata, created_at, author)
			VALUES (`+s.SQL.KeepID("edges")+`, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (source_id, target_id, relation) DO NOTHING`,
			e.ID, src, tgt, string(e.Relation), e.Weight, meta, e.CreatedAt, e.Author)
		if err != nil {
			return fmt.Errorf("edge %d: %w", e.ID, err)
		}
		if n == 1 {
			res.Edges++
		}
	}
	return nil
}

// WriteChanges writes imported change log entries of the memories they
// name; an entry of a missing memory is skipped, one already stored (same
// memory, time and action: the same export read twice) adds nothing.
func (s Statements) WriteChanges(ctx context.Context, cs []memory.Change, ids map[string]string, res *memory.ImportResult, p *memory.RecordCounter) error {
	for _, c := range cs {
		p.Step()
		ends, err := s.ResolveEnds(ctx, ids, c.MemoryID, c.RelatedID)
		if err != nil {
			return err
		}
		if ends[0] == "" {
			res.Skipped = append(res.Skipped, fmt.Sprintf("change %d: memory %s is missing", c.ID, c.MemoryID))
			continue
		}
		c.MemoryID = ends[0]
		if ends[1] != "" {
			c.RelatedID = ends[1]
		}
		var dup bool
		if err := s.SQL.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM change_log WHERE memory_id = $1 AND at = $2 AND action = $3)`,
			c.MemoryID, c.At, string(c.Action)).Scan(&dup); err != nil {
			return err
		}
		if dup {
			continue
		}
		if _, err := s.AddChange(ctx, &c); err != nil {
			return err
		}
		res.Changes++
	}
	return nil
}

// WriteArchived puts the trash's records back into the trash, archived or
// deleted as they were, with their id and archive (or delete) time. One
// whose id is a live memory, or already in the trash, is left as it is and
// counted in ArchivedExisting, so an import read twice adds nothing.
func (s Statements) WriteArchived(ctx context.Context, items []memory.TrashItem, res *memory.ImportResult, p *memory.RecordCounter) error {
	for _, it := range items {
		p.Step()
		id := it.Memory.ID
		body, err := json.Marshal(it.TrashRecord)
		if err != nil {
			return fmt.Errorf("archived memory %s: %w", id, err)
		}
		n, err := s.SQL.Exec(ctx, `INSERT INTO trash (memory_id, deleted_at, record, archived)
			SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM memories WHERE id = $1)
			ON CONFLICT (memory_id) DO NOTHING`, id, it.DeletedAt, string(body), it.Archived)
		if err != nil {
			return fmt.Errorf("archived memory %s: %w", id, err)
		}
		switch {
		case n == 0:
			res.ArchivedExisting++
		case it.Archived:
			res.Archived++
		default:
			res.Deleted++
		}
	}
	return nil
}

// WriteEvents writes imported validation events of the memories they name,
// keeping their ids where free; one of a missing memory is skipped. An
// event already stored (same memory, kind, time, session and text) is not
// added again: the same export read twice must not count a success twice,
// as confidence and supersede decisions read these events.
func (s Statements) WriteEvents(ctx context.Context, evs []memory.ValidationEvent, ids map[string]string, res *memory.ImportResult, p *memory.RecordCounter) error {
	for _, ev := range evs {
		p.Step()
		ends, err := s.ResolveEnds(ctx, ids, ev.MemoryID)
		if err != nil {
			return err
		}
		if ends[0] == "" {
			res.Skipped = append(res.Skipped, fmt.Sprintf("validation event %d: memory %s is missing", ev.ID, ev.MemoryID))
			continue
		}
		n, err := s.SQL.Exec(ctx, `INSERT INTO validation_events (id, memory_id, event_type, context,
			error_msg, session_id, confidence_before, confidence_after, created_at, author)
			SELECT `+s.SQL.KeepID("validation_events")+`, $2, $3, $4, $5, $6, $7, $8, $9, $10
			WHERE NOT EXISTS (SELECT 1 FROM validation_events WHERE memory_id = $2 AND event_type = $3
				AND created_at = $9 AND session_id = $6 AND context = $4 AND error_msg = $5)`,
			ev.ID, ends[0], string(ev.EventType), ev.Context, ev.ErrorMsg, ev.SessionID,
			ev.ConfidenceBefore, ev.ConfidenceAfter, ev.CreatedAt, ev.Author)
		if err != nil {
			return fmt.Errorf("validation event %d: %w", ev.ID, err)
		}
		if n == 1 {
			res.Events++
		}
	}
	return nil
}

// WriteFiles writes imported rows of file activity, keeping their ids where
// free. A row already stored (same file, action, time, session and root) is
// not added again, so an import read twice adds nothing.
func (s Statements) WriteFiles(ctx context.Context, fs []memory.FileRow, res *memory.ImportResult, p *memory.RecordCounter) error {
	for _, a := range fs {
		p.Step()
		meta, err := memory.EncodeMetadata(a.Metadata)
		if err != nil {
			return fmt.Errorf("file activity %d: %w", a.ID, err)
		}
		n, err := s.SQL.Exec(ctx, `INSERT INTO file_activity (id, file_path, action, session_id,
			project_root, file_type, metadata, created_at, touches, summary)
			SELECT `+s.SQL.KeepID("file_activity")+`, $2, $3, $4, $5, $6, $7, $8, $9, $10
			WHERE NOT EXISTS (SELECT 1 FROM file_activity WHERE file_path = $2 AND action = $3
				AND created_at = $8 AND session_id = $4 AND project_root = $5 AND summary = $10)`,
			a.ID, a.FilePath, string(a.Action), a.SessionID, a.ProjectRoot, a.FileType,
			meta, a.CreatedAt, max(a.Touches, 1), a.Summary)
		if err != nil {
			return fmt.Errorf("file activity %d: %w", a.ID, err)
		}
		if n == 1 {
			res.Files++
		}
	}
	return nil
}

// An ImportTx is an engine's transaction as an import writes the records
// whose SQL is the engine's own through it.
type ImportTx interface {
	// ImportJournal writes journal entries, keeping their ids where free;
	// one already stored is left out.
	ImportJournal(ctx context.Context, es []journal.Entry, res *memory.ImportResult, p *memory.RecordCounter) error
}

// WriteMemories writes imported memories (each in a namespace the asker may
// write) and returns the id each incoming id is stored under:
// itself, or the stored memory with its id or with its content in its
// namespace.
func (s Statements) WriteMemories(ctx context.Context, ms []*memory.Memory, res *memory.ImportResult, p *memory.RecordCounter) (map[string]string, error) {
	ids := make(map[string]string, len(ms))
	for _, m := range ms {
		p.Step()
		if m.ContentHash == "" {
			m.ContentHash = memory.ContentHash(m.Content)
		}
		// An export made before the change log carries it in metadata.edits.
		legacy := memory.LegacyEdits(m)
		meta, err := memory.EncodeMetadata(m.Metadata)
		if err != nil {
			return nil, fmt.Errorf("memory %s: %w", m.ID, err)
		}
		inserted, err := s.InsertImported(ctx, m, meta)
		if err != nil {
			return nil, fmt.Errorf("memory %s: %w", m.ID, err)
		}
		if inserted {
			ids[m.ID] = m.ID
			res.Memories++
			for _, c := range legacy {
				if _, err := s.AddChange(ctx, &c); err != nil {
					return nil, err
				}
			}
			continue
		}
		var id, ns string
		if err := s.SQL.QueryRow(ctx, `SELECT id, namespace FROM memories WHERE id = $1 OR (namespace = $2 AND content_hash = $3)
			ORDER BY id = $1 DESC LIMIT 1`, m.ID, m.Namespace, m.ContentHash).Scan(&id, &ns); err != nil {
			return nil, fmt.Errorf("memory %s: finding the stored copy: %w", m.ID, err)
		}
		if err := memory.CheckWritable(ctx, ns); err != nil {
			// Its id is another person's private memory: what names it
			// must not reach that one.
			res.Skipped = append(res.Skipped, fmt.Sprintf("memory %s: its id is taken", m.ID))
			ids[m.ID] = ""
			continue
		}
		ids[m.ID] = id
		res.Existing++
	}
	return ids, nil
}

// WriteRecords writes records in the transaction of s and own, in the
// order their references need: memories first, then what names them. It
// returns the id each incoming memory id is stored under ("" for a memory
// left out: what names it is left out too).
func (s Statements) WriteRecords(ctx context.Context, own ImportTx, r memory.Records) (*memory.ImportResult, map[string]string, error) {
	res := &memory.ImportResult{}
	p := r.Counter()
	writable, refused := writableMemories(ctx, r.Memories, res, p)
	ids, err := s.WriteMemories(ctx, writable, res, p)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range refused {
		if _, ok := ids[id]; !ok {
			ids[id] = ""
		}
	}
	steps := []func() error{
		func() error { return s.WriteEdges(ctx, r.Edges, ids, res, p) },
		func() error { return s.WriteEvents(ctx, r.Events, ids, res, p) },
		func() error { return s.WriteChanges(ctx, r.Changes, ids, res, p) },
		func() error { return s.WriteFiles(ctx, r.Files, res, p) },
		func() error { return s.WriteProjects(ctx, r.Projects, res) },
		func() error { return s.WriteArchived(ctx, r.Archived, res, p) },
		func() error { return own.ImportJournal(ctx, mappedEntries(r.Journal, ids), res, p) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, nil, err
		}
	}
	return res, ids, nil
}

// writableMemories is ms without the memories in a namespace the asker may
// not write (another person's user:<name>): the import writes the rest and
// lists these in res.Skipped, and refused holds their ids.
func writableMemories(ctx context.Context, ms []*memory.Memory, res *memory.ImportResult, p *memory.RecordCounter) (writable []*memory.Memory, refused []string) {
	for _, m := range ms {
		if err := memory.CheckWritable(ctx, m.Namespace); err != nil {
			p.Step()
			res.Skipped = append(res.Skipped, fmt.Sprintf("memory %s: %v", m.ID, err))
			refused = append(refused, m.ID)
			continue
		}
		writable = append(writable, m)
	}
	return writable, refused
}

// WriteProjects adds imported project bindings: a root bound to a
// namespace, bound since created_at (RFC 3339; now when missing or
// unreadable); other keys are passed over. A binding without a root, or to
// a namespace Recall does not accept or the asker may not write, is left
// out and listed in res.Skipped; a root already bound keeps its binding.
func (s Statements) WriteProjects(ctx context.Context, rows []map[string]any, res *memory.ImportResult) error {
	for _, row := range rows {
		root, _ := row["root"].(string)
		ns, _ := row["namespace"].(string)
		if root == "" {
			res.Skipped = append(res.Skipped, fmt.Sprintf("project binding %v: want a root (the project's directory)", row))
			continue
		}
		if err := cmp.Or(memory.ValidateNamespace(ns), memory.CheckWritable(ctx, ns)); err != nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("project binding of %s: %v", root, err))
			continue
		}
		created := time.Now()
		if at, ok := row["created_at"].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
				created = t
			}
		}
		n, err := s.SQL.Exec(ctx, `INSERT INTO project_roots (root, namespace, created_at) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, root, ns, created)
		if err != nil {
			return fmt.Errorf("project binding of %s: %w", root, err)
		}
		if n == 1 {
			res.Projects++
		}
	}
	return nil
}

// mappedEntries is es with the memory each names mapped through ids, as
// edges' ends are.
func mappedEntries(es []journal.Entry, ids map[string]string) []journal.Entry {
	out := slices.Clone(es)
	for i, e := range out {
		if to, ok := ids[e.MemoryID]; ok {
			out[i].MemoryID = to
		}
	}
	return out
}
