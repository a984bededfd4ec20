package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

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
