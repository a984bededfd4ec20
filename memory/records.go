package memory

import (
	"fmt"

	"github.com/recall-mcp/recall/capture/journal"
)

// Records moved in bulk: what an export reads from a store and an import (or a
// restore from the trash, or a Python Recall database migrated in place)
// writes into one. They are the domain's rows, so every store and the transfer
// formats share them without importing a store.

// Records are rows moved in bulk. Memories keep their ids and times; edges,
// events, journal entries and file activity keep their ids where those are
// free. A memory arrives with its vector when Vectors holds one made in
// Space and the receiving store's vectors are of that space (or it has none
// yet); otherwise it arrives pending, and the configured model embeds it
// later, in batches.
type Records struct {
	Memories []*Memory
	Edges    []Edge
	Events   []ValidationEvent
	Changes  []Change
	Files    []FileRow
	// Projects are project bindings by column (see RecordVisitor.Project).
	Projects []map[string]any
	// Archived are the trash's records, put back into the trash as they were:
	// archived, or deleted (TrashItem.Archived false, kept until TrashKeep
	// after their delete, as there). They are written after the memories, so
	// a memory live in the same import counts as live.
	Archived []TrashItem
	// Journal are capture journal entries, ids kept where free.
	Journal []journal.Entry
	// Space is the embedding space Vectors were made in.
	Space EmbeddingSpace
	// Vectors are memories' vectors by memory id.
	Vectors map[string][]float32
	// Progress, when set, is told every ProgressStep rows how many of all the
	// rows are written (inside the transaction: nothing is committed yet).
	Progress func(done, total int)
}

// SignAs makes a person's import theirs: every author the records name
// (of memories, links, outcomes, changes, file activity and sessions, the
// trash's included) becomes the person's name, so that nobody can sign rows
// with another person's name by writing it into a file. The administrator's
// and this machine's own imports keep the file's authors: they move a whole
// store and must be lossless.
func (r *Records) SignAs(p Principal) {
	if p.Person == "" {
		return
	}
	name := p.Author()
	for _, m := range r.Memories {
		m.Author = name
	}
	signAll(r.Edges, r.Events, r.Changes, name)
	for i := range r.Files {
		r.Files[i].Author = name
	}
	for i := range r.Journal {
		r.Journal[i].Author = name
	}
	for i := range r.Archived {
		it := &r.Archived[i]
		if it.Memory != nil {
			it.Memory.Author = name
		}
		signAll(it.Edges, it.Events, it.Changes, name)
	}
}

// signAll sets the author of every edge, event and change to name.
func signAll(edges []Edge, events []ValidationEvent, changes []Change, name string) {
	for i := range edges {
		edges[i].Author = name
	}
	for i := range events {
		events[i].Author = name
	}
	for i := range changes {
		changes[i].Author = name
	}
}

// ProgressStep is how many written rows apart Records.Progress is told.
const ProgressStep = 500

// Counter returns the count of written rows a store steps as it writes r,
// telling r.Progress every ProgressStep rows and at the last.
func (r *Records) Counter() *RecordCounter {
	return &RecordCounter{fn: r.Progress, total: len(r.Memories) + len(r.Edges) + len(r.Events) + len(r.Changes) + len(r.Files) +
		len(r.Archived) + len(r.Journal)}
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
// activity by id, then the trash by delete time, then journal entries by id,
// then the embedding space and the memories' vectors by the memories'
// creation. Any of its functions may be nil.
type RecordVisitor struct {
	Memory func(*Memory) error
	Edge   func(*Edge) error
	Event  func(*ValidationEvent) error
	Change func(*Change) error
	File   func(*FileRow) error
	// Project receives each project binding (root <-> namespace) as its
	// columns, when the database keeps them.
	Project func(map[string]any) error
	// Archived receives each memory in the trash (the memory, its edges,
	// events and change log) with its delete time: archived ones, and
	// deleted ones still waiting out TrashKeep (TrashItem.Archived false).
	Archived func(*TrashItem) error
	// Journal receives each capture journal entry.
	Journal func(*journal.Entry) error
	// Space receives the store's embedding space, before the vectors (not
	// called when no vector is stored).
	Space func(EmbeddingSpace) error
	// Vector receives a memory's vector (none for a memory still pending).
	Vector func(id string, vec []float32) error
}

// VectorsFit says whether vectors made in from may be stored beside a
// store's vectors of space to (the same model and dimension, or a store
// without vectors yet), and if not, why they wait to be embedded again.
func VectorsFit(from, to EmbeddingSpace) (bool, string) {
	switch {
	case from.Model == "" || from.Dimension == 0:
		return false, "the export names no embedding model"
	case to.Model == "" && to.Dimension == 0:
		return true, ""
	case from.Model != to.Model || from.Dimension != to.Dimension:
		return false, fmt.Sprintf("the export's vectors are of %s (dimension %d), this store's of %s (dimension %d): they are embedded again",
			from.Model, from.Dimension, to.Model, to.Dimension)
	}
	return true, ""
}
