package storage

import (
	"context"
	"fmt"

	"github.com/recall-mcp/recall/memory"
)

// Shared holds the port methods whose steps are the same on every engine:
// updating a memory with the event and change log entry that record it,
// deleting one (for good, to the trash, or archived), adding an edge (once),
// renaming and merging projects, starting a reindex.
// Each engine's DB embeds it and gives it its write transactions (Tx: the
// steps whose SQL is the engine's, and the shared Statements) and its
// statements on the connection pool, for reads (Read).
type Shared struct {
	Tx   Writes
	Read Statements
}

// Writes runs fn in one write transaction of the engine: all of it is kept,
// or, when fn fails, none.
type Writes interface {
	Write(ctx context.Context, fn func(Tx) error) error
}

// Tx is an engine's write transaction, one method a step, grouped by what
// the steps touch.
//
// It is the union of the groups, well over ten methods, because one
// transaction of Shared takes steps of several (resolving a contradiction
// locks the pair, deletes the edge and writes both change logs; a restore
// reads the trash and writes the change log). An engine implements it
// once, as its sharedTx; each group alone is small.
type Tx interface {
	MemoryTx
	EdgeTx
	ProjectTx
	ReindexTx
	SpaceTx
	TrashTx
	JournalTx
}

// A MemoryTx is an engine's write transaction, one method a step.
type MemoryTx interface {
	// ReadMemory reads a memory to change it, its row locked where the
	// engine locks rows. One the principal in ctx may not see is
	// ErrNotFound.
	ReadMemory(ctx context.Context, id string) (*memory.Memory, error)
	// WriteMemory writes m's changed fields over memory id (its metadata
	// encoded); when its content changed, its vectors wait to be made
	// again (pending). Another memory of its namespace with its content
	// already is a *memory.DuplicateError.
	WriteMemory(ctx context.Context, id string, m *memory.Memory, meta string, contentChanged bool) error
	// HolderOf returns the id of the memory of namespace other than id
	// that holds content of the hash; "" when none does.
	HolderOf(ctx context.Context, namespace, contentHash, id string) (string, error)
	// AddEvent writes a validation event and returns its id.
	AddEvent(ctx context.Context, ev *memory.ValidationEvent) (int64, error)
	// AddChange writes a change log entry and returns its id.
	AddChange(ctx context.Context, c *memory.Change) (int64, error)
	// KeepInTrash writes the memory's full record (edges, events, change
	// log) to the trash; archived ones are kept until restored.
	KeepInTrash(ctx context.Context, m *memory.Memory, archived bool) error
	// DeleteRow deletes the memory, its edges, events, jobs and vectors; with
	// keepGolden a golden rule stays (deleted false), judged by the row as
	// it is at the delete.
	DeleteRow(ctx context.Context, id string, keepGolden bool) (deleted bool, err error)
	// RecordForgotten keeps who forgot m for good, and when.
	RecordForgotten(ctx context.Context, m *memory.Memory) error
}

// UpdateMemory reads the memory, lets fn change it and writes back the
// changes in the same transaction.
func (s Shared) UpdateMemory(ctx context.Context, id string, fn func(m *memory.Memory) error) (*memory.Memory, error) {
	var out *memory.Memory
	err := s.Tx.Write(ctx, func(tx Tx) error {
		var err error
		out, err = updateMemory(ctx, tx, id, fn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// updateMemory is the read-modify-write of one memory in tx (see
// memory.MemoryWriter.UpdateMemory).
func updateMemory(ctx context.Context, tx Tx, id string, fn func(m *memory.Memory) error) (*memory.Memory, error) {
	before, err := tx.ReadMemory(ctx, id)
	if err != nil {
		return nil, err
	}
	m, write, err := memory.ApplyUpdate(before, fn)
	if err != nil || !write {
		return m, err
	}
	if m.Namespace != before.Namespace {
		if err := memory.CheckWritable(ctx, m.Namespace); err != nil {
			return nil, err
		}
	}
	meta, err := memory.EncodeMetadata(m.Metadata)
	if err != nil {
		return nil, err
	}
	if m.Namespace != before.Namespace || m.ContentHash != before.ContentHash {
		// Dedup is per namespace: say which memory already holds this text
		// (asked first: a refused statement ends a PostgreSQL transaction).
		other, err := tx.HolderOf(ctx, m.Namespace, m.ContentHash, id)
		if err != nil {
			return nil, fmt.Errorf("update memory %s: %w", id, err)
		}
		if other != "" {
			return nil, &memory.DuplicateError{MemoryID: id, Namespace: m.Namespace, ExistingID: other}
		}
	}
	if err := tx.WriteMemory(ctx, id, m, meta, m.Content != before.Content); err != nil {
		return nil, err
	}
	return tx.ReadMemory(ctx, id)
}

// UpdateMemoryLogged is UpdateMemory whose fn also returns the change log
// entry describing what it did (nil: none); both are written in one
// transaction.
func (s Shared) UpdateMemoryLogged(ctx context.Context, id string, fn func(m *memory.Memory) (*memory.Change, error)) (*memory.Memory, error) {
	out, _, err := s.updateWithEvent(ctx, id, func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error) {
		c, err := fn(m)
		return nil, c, err
	}, false)
	return out, err
}

// UpdateMemoryWithEvent is UpdateMemory whose fn also returns the validation
// event that records the change and, optionally, a change log entry (a
// promotion); all are written in one transaction, so a confidence never
// moves without its event.
func (s Shared) UpdateMemoryWithEvent(ctx context.Context, id string, fn func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error)) (*memory.Memory, int64, error) {
	return s.updateWithEvent(ctx, id, fn, true)
}

// updateWithEvent updates the memory and writes what fn returns with it; an
// event is required when needEvent.
func (s Shared) updateWithEvent(ctx context.Context, id string, fn func(m *memory.Memory) (*memory.ValidationEvent, *memory.Change, error), needEvent bool) (*memory.Memory, int64, error) {
	var out *memory.Memory
	var eventID int64
	err := s.Tx.Write(ctx, func(tx Tx) error {
		var ev *memory.ValidationEvent
		var change *memory.Change
		var err error
		out, err = updateMemory(ctx, tx, id, func(m *memory.Memory) error {
			ev, change, err = fn(m)
			return err
		})
		if err != nil {
			return err
		}
		if needEvent {
			if ev == nil {
				return memory.Invalidf("event", "nil", "a validation event")
			}
			ev.MemoryID = id
			if eventID, err = tx.AddEvent(ctx, ev); err != nil {
				return err
			}
		}
		if change == nil {
			return nil
		}
		change.Of(out)
		_, err = tx.AddChange(ctx, change)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, eventID, nil
}

// DeleteMemory removes a memory for good with its edges, events, jobs and
// vectors; who forgot it stays on record. With keepGolden a golden rule is
// refused (ErrProtected), decided by the row as it is at the delete: a
// memory promoted since the caller read it is kept.
func (s Shared) DeleteMemory(ctx context.Context, id string, keepGolden bool) error {
	return s.delete(ctx, id, keepGolden, deleteForGood)
}

// TrashMemory is DeleteMemory that first keeps the memory's full record in
// the trash, in the same transaction, so that RestoreMemory can bring it
// back within TrashKeep. Only a person's delete in the viewer goes there: a
// forget through the tools or the CLI means gone.
func (s Shared) TrashMemory(ctx context.Context, id string, keepGolden bool) error {
	return s.delete(ctx, id, keepGolden, deleteToTrash)
}

// ArchiveMemory is TrashMemory for a memory a person sets aside rather than
// deletes: its record stays in the trash, marked archived, until restored,
// and is never purged.
func (s Shared) ArchiveMemory(ctx context.Context, id string, keepGolden bool) error {
	return s.delete(ctx, id, keepGolden, deleteToArchive)
}

// deleteKind is what a delete keeps of the memory.
type deleteKind int

const (
	deleteForGood deleteKind = iota
	deleteToTrash
	deleteToArchive
)

func (s Shared) delete(ctx context.Context, id string, keepGolden bool, kind deleteKind) error {
	return s.Tx.Write(ctx, func(tx Tx) error {
		m, err := tx.ReadMemory(ctx, id)
		if err != nil {
			return err // not found, or not the asker's to see
		}
		if kind != deleteForGood {
			// A refused delete rolls the trash row back with it.
			if err := tx.KeepInTrash(ctx, m, kind == deleteToArchive); err != nil {
				return err
			}
		}
		deleted, err := tx.DeleteRow(ctx, id, keepGolden)
		if err != nil {
			return fmt.Errorf("delete memory %s: %w", id, err)
		}
		if !deleted {
			return fmt.Errorf("memory %s is a golden rule: %w; use force=true to delete it", id, memory.ErrProtected)
		}
		if kind != deleteForGood {
			return nil // the trash keeps the record and its change log
		}
		// Gone for good with its change log: who forgot it stays on record.
		if err := tx.RecordForgotten(ctx, m); err != nil {
			return fmt.Errorf("delete memory %s: %w", id, err)
		}
		return nil
	})
}
