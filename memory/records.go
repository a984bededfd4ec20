package memory

// Records moved in bulk: what an export reads from a store and an import (or a
// restore from the trash, or a Python Recall database migrated in place)
// writes into one. They are the domain's rows, so every store and the transfer
// formats share them without importing a store.

// Records are rows moved in bulk. Memories keep their ids and times; edges,
// events and file activity keep their ids where those are free. Every memory
// arrives without a vector (pending): vectors are made by the configured
// model, later, in batches.
type Records struct {
	Memories []*Memory
	Edges    []Edge
	Events   []ValidationEvent
	Changes  []Change
	Files    []FileRow
	// Projects are project bindings by column (see RecordVisitor.Project).
	Projects []map[string]any
	// Archived are archived memories' trash records, put back into the trash
	// as archived (after the memories, so a memory live in the same import
	// counts as live).
	Archived []TrashItem
	// Progress, when set, is told every ProgressStep rows how many of all the
	// rows are written (inside the transaction: nothing is committed yet).
	Progress func(done, total int)
}

// ProgressStep is how many written rows apart Records.Progress is told.
const ProgressStep = 500

// Counter returns the count of written rows a store steps as it writes r,
// telling r.Progress every ProgressStep rows and at the last.
func (r *Records) Counter() *RecordCounter {
	return &RecordCounter{fn: r.Progress, total: len(r.Memories) + len(r.Edges) + len(r.Events) + len(r.Changes) + len(r.Files) + len(r.Archived)}
}

// RecordCounter counts written rows for Records.Progress.
type RecordCounter struct {
	fn          func(done, total int)
	done, total int
}

// Step counts one written row.
func (c *RecordCounter) Step() {
	c.done++
	if c.fn != nil && (c.done%ProgressStep == 0 || c.done == c.total) {
		c.fn(c.done, c.total)
	}
}

// FileRow is a file activity row as stored: one touch, or (Summary) the
// folded count of older touches of one file and action.
type FileRow struct {
	FileActivity
	Touches int  `json:"touches"`
	Summary bool `json:"summary"`
}

// RecordVisitor receives every row of an export, one at a time, in a stable
// order: memories by creation, then edges, validation events and file
// activity by id, then archived memories by archive time. Any of its
// functions may be nil.
type RecordVisitor struct {
	Memory func(*Memory) error
	Edge   func(*Edge) error
	Event  func(*ValidationEvent) error
	Change func(*Change) error
	File   func(*FileRow) error
	// Project receives each project binding (root <-> namespace) as its
	// columns, when the database keeps them.
	Project func(map[string]any) error
	// Archived receives each archived memory's trash record (the memory, its
	// edges, events and change log) with its archive time. Deleted memories
	// waiting out TrashKeep are not exported: a delete means gone.
	Archived func(*TrashItem) error
}
