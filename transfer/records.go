// Package transfer moves Recall's data in and out: a lossless, versioned JSONL
// export and its import, a markdown record a person can read and keep in git,
// and the official MCP memory server's memory.jsonl. It reads and writes
// through the small interfaces below; storage implements them.
package transfer

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// Format and Version name the JSONL export. An import refuses a newer
// version, with a message saying to upgrade; older versions stay readable.
// Version 2 added archived_memory records: a version 1 reader would leave
// them out line by line and keep the rest, losing the archive, so it is told
// to upgrade instead. Version 3 added who stored a memory, an edge or an
// event (author) and the door a memory came in through (source), the trash's
// deleted memories, the capture journal and the memories' vectors with their
// embedding space: a version 2 reader would refuse or lose such lines.
const (
	Format  = "recall-export"
	Version = 3
)

// Record kinds: the value of every line's "record" field.
const (
	KindHeader = "header"
	KindMemory = "memory"
	KindEdge   = "edge"
	KindEvent  = "validation_event"
	// KindChange is an entry of a memory's change log.
	KindChange = "change"
	KindFile   = "file_activity"
	// KindProject is a project binding (root <-> namespace), carried column by
	// column as the database keeps it.
	KindProject = "project"
	// KindArchived is an archived memory as the trash keeps it: the memory,
	// its edges both ways, its validation events and change log, and when it
	// was archived.
	KindArchived = "archived_memory"
	// KindDeleted is a deleted memory in the trash, as KindArchived, with
	// when it was deleted: restorable until the trash lets it go.
	KindDeleted = "deleted_memory"
	// KindJournal is a capture journal entry.
	KindJournal = "journal_entry"
	// KindSpace names the model and dimension of the vectors after it.
	KindSpace = "embedding_space"
	// KindVector is a memory's vector: little-endian float32s in base64.
	KindVector = "vector"
)

// Source is what an export reads.
type Source interface {
	Export(ctx context.Context, v memory.RecordVisitor) error
}

// Sink is what an import writes to: all records in one transaction.
type Sink interface {
	Import(ctx context.Context, r memory.Records) (*memory.ImportResult, error)
}

// header is the first line of an export.
type header struct {
	Record     string    `json:"record"`
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
}

// memoryRecord is a memory line: the fields of memory.Memory in their order
// (every stored field: a field added there is exported and imported too),
// times in RFC 3339 with nanoseconds (lossless). No vector: the importing
// side makes its own with its configured model.
type memoryRecord struct {
	Record string `json:"record,omitempty"` // empty inside an archived record
	memory.Memory
	// EmbeddingPending hides the memory's: whether a vector is pending is
	// the exporting store's state, never written (nil).
	EmbeddingPending *bool `json:"embedding_pending,omitempty"`
	// Source hides the memory's to be always written ("" when it was never
	// recorded); a file without it (before version 3, or written by hand)
	// was imported.
	Source *string `json:"source,omitempty"`
}

type edgeRecord struct {
	Record    string          `json:"record,omitempty"`
	ID        int64           `json:"id"`
	SourceID  string          `json:"source_id"`
	TargetID  string          `json:"target_id"`
	Relation  memory.Relation `json:"relation"`
	Weight    float64         `json:"weight"`
	Metadata  map[string]any  `json:"metadata"`
	CreatedAt time.Time       `json:"created_at"`
	Author    string          `json:"author,omitempty"`
}

type eventRecord struct {
	Record           string           `json:"record,omitempty"`
	ID               int64            `json:"id"`
	MemoryID         string           `json:"memory_id"`
	EventType        memory.EventType `json:"event_type"`
	Context          string           `json:"context"`
	ErrorMsg         string           `json:"error_msg"`
	SessionID        string           `json:"session_id"`
	ConfidenceBefore float64          `json:"confidence_before"`
	ConfidenceAfter  float64          `json:"confidence_after"`
	CreatedAt        time.Time        `json:"created_at"`
	Author           string           `json:"author,omitempty"`
}

type changeRecord struct {
	Record string `json:"record,omitempty"`
	memory.Change
}

type fileRecord struct {
	Record      string            `json:"record"`
	ID          int64             `json:"id"`
	FilePath    string            `json:"file_path"`
	Action      memory.FileAction `json:"action"`
	SessionID   string            `json:"session_id"`
	ProjectRoot string            `json:"project_root"`
	FileType    string            `json:"file_type"`
	Metadata    map[string]any    `json:"metadata"`
	CreatedAt   time.Time         `json:"created_at"`
	// Touches is how many touches the row stands for (1, or more for a
	// summary row folding older touches of one file and action).
	Touches int  `json:"touches,omitempty"`
	Summary bool `json:"summary,omitempty"`
}

// archivedRecord is an archived (or deleted) memory line: the trash's record
// of it, its parts written as the top-level kinds are (without their
// "record" field), and when it was archived (or deleted).
type archivedRecord struct {
	Record     string         `json:"record"`
	ArchivedAt *time.Time     `json:"archived_at,omitempty"`
	DeletedAt  *time.Time     `json:"deleted_at,omitempty"`
	Memory     memoryRecord   `json:"memory"`
	Edges      []edgeRecord   `json:"edges"`
	Events     []eventRecord  `json:"validation_events"`
	Changes    []changeRecord `json:"changes"`
}

func toArchivedRecord(it *memory.TrashItem) archivedRecord {
	r := archivedRecord{Record: KindArchived, ArchivedAt: &it.DeletedAt, Memory: toMemoryRecord(it.Memory),
		Edges: []edgeRecord{}, Events: []eventRecord{}, Changes: []changeRecord{}}
	if !it.Archived {
		r.Record, r.ArchivedAt, r.DeletedAt = KindDeleted, nil, &it.DeletedAt
	}
	r.Memory.Record = ""
	for i := range it.Edges {
		e := toEdgeRecord(&it.Edges[i])
		e.Record = ""
		r.Edges = append(r.Edges, e)
	}
	for i := range it.Events {
		ev := toEventRecord(&it.Events[i])
		ev.Record = ""
		r.Events = append(r.Events, ev)
	}
	for i := range it.Changes {
		r.Changes = append(r.Changes, changeRecord{Change: it.Changes[i]})
	}
	return r
}

func (r archivedRecord) item() memory.TrashItem {
	at := r.ArchivedAt
	if r.Record == KindDeleted {
		at = r.DeletedAt
	}
	var when time.Time
	if at != nil {
		when = at.UTC()
	}
	it := memory.TrashItem{DeletedAt: when, Archived: r.Record == KindArchived, TrashRecord: memory.TrashRecord{
		Memory: r.Memory.memory(), Edges: []memory.Edge{}, Events: []memory.ValidationEvent{}}}
	for _, e := range r.Edges {
		it.Edges = append(it.Edges, e.edge())
	}
	for _, ev := range r.Events {
		it.Events = append(it.Events, ev.event())
	}
	for _, c := range r.Changes {
		it.Changes = append(it.Changes, c.change())
	}
	return it
}

func toMemoryRecord(m *memory.Memory) memoryRecord {
	r := memoryRecord{Record: KindMemory, Memory: *m, Source: &m.Source}
	r.Metadata = orEmpty(m.Metadata)
	return r
}

func (r memoryRecord) memory() *memory.Memory {
	m := r.Memory
	m.Metadata = orEmpty(m.Metadata)
	m.CreatedAt, m.UpdatedAt, m.AccessedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC(), m.AccessedAt.UTC()
	m.EmbeddingPending = false
	m.Source = memory.SourceImport
	if r.Source != nil {
		m.Source = *r.Source
	}
	return &m
}

func toEdgeRecord(e *memory.Edge) edgeRecord {
	return edgeRecord{Record: KindEdge, ID: e.ID, SourceID: e.SourceID, TargetID: e.TargetID, Relation: e.Relation,
		Weight: e.Weight, Metadata: orEmpty(e.Metadata), CreatedAt: e.CreatedAt, Author: e.Author}
}

func (r edgeRecord) edge() memory.Edge {
	return memory.Edge{ID: r.ID, SourceID: r.SourceID, TargetID: r.TargetID, Relation: r.Relation, Weight: r.Weight,
		Metadata: r.Metadata, CreatedAt: r.CreatedAt.UTC(), Author: r.Author}
}

func toEventRecord(ev *memory.ValidationEvent) eventRecord {
	return eventRecord{Record: KindEvent, ID: ev.ID, MemoryID: ev.MemoryID, EventType: ev.EventType, Context: ev.Context,
		ErrorMsg: ev.ErrorMsg, SessionID: ev.SessionID, ConfidenceBefore: ev.ConfidenceBefore,
		ConfidenceAfter: ev.ConfidenceAfter, CreatedAt: ev.CreatedAt, Author: ev.Author}
}

func (r eventRecord) event() memory.ValidationEvent {
	return memory.ValidationEvent{ID: r.ID, MemoryID: r.MemoryID, EventType: r.EventType, Context: r.Context,
		ErrorMsg: r.ErrorMsg, SessionID: r.SessionID, ConfidenceBefore: r.ConfidenceBefore,
		ConfidenceAfter: r.ConfidenceAfter, CreatedAt: r.CreatedAt.UTC(), Author: r.Author}
}

func toChangeRecord(c *memory.Change) changeRecord {
	return changeRecord{Record: KindChange, Change: *c}
}

func (r changeRecord) change() memory.Change {
	c := r.Change
	c.At = c.At.UTC()
	return c
}

func toFileRecord(a *memory.FileRow) fileRecord {
	return fileRecord{Record: KindFile, ID: a.ID, FilePath: a.FilePath, Action: a.Action, SessionID: a.SessionID,
		ProjectRoot: a.ProjectRoot, FileType: a.FileType, Metadata: orEmpty(a.Metadata), CreatedAt: a.CreatedAt,
		Touches: a.Touches, Summary: a.Summary}
}

func (r fileRecord) file() memory.FileRow {
	return memory.FileRow{FileActivity: memory.FileActivity{ID: r.ID, FilePath: r.FilePath, Action: r.Action, SessionID: r.SessionID,
		ProjectRoot: r.ProjectRoot, FileType: r.FileType, Metadata: r.Metadata, CreatedAt: r.CreatedAt.UTC()},
		Touches: max(r.Touches, 1), Summary: r.Summary}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// journalRecord is a capture journal entry line.
type journalRecord struct {
	Record string `json:"record"`
	ID     int64  `json:"id"`
	journal.Entry
}

// spaceRecord names the embedding space of the vector lines after it.
type spaceRecord struct {
	Record    string `json:"record"`
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
}

// vectorRecord is a memory's vector, its float32s little-endian in base64
// (a third of the size of JSON numbers, and exact).
type vectorRecord struct {
	Record   string `json:"record"`
	MemoryID string `json:"memory_id"`
	Vector   string `json:"vector"`
}

func toVectorRecord(id string, vec []float32) vectorRecord {
	b := make([]byte, 4*len(vec))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return vectorRecord{Record: KindVector, MemoryID: id, Vector: base64.StdEncoding.EncodeToString(b)}
}

func (r vectorRecord) vector() ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(r.Vector)
	if err != nil || len(b) == 0 || len(b)%4 != 0 {
		return nil, fmt.Errorf("vector of %s: want little-endian float32s in base64", r.MemoryID)
	}
	vec := make([]float32, len(b)/4)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return vec, nil
}
