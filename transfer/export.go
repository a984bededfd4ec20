package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
)

// ExportCounts says how many records of each kind an export wrote.
type ExportCounts struct {
	Memories, Edges, Events, Changes, Files, Projects, Archived, Deleted, Journal, Vectors int
}

// ExportJSONL writes everything src holds to w, one JSON record a line: a
// header naming the format and version, then memories, edges, validation
// events, change log entries, file activity, project bindings, the trash
// (archived and deleted memories), the capture journal, and the memories'
// vectors with their embedding space. The records are a snapshot of one
// moment.
func ExportJSONL(ctx context.Context, src Source, w io.Writer, now time.Time) (ExportCounts, error) {
	var n ExportCounts
	bw := bufio.NewWriterSize(w, 64*1024)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false) // content is text for people and programs, not HTML
	if err := enc.Encode(header{Record: KindHeader, Format: Format, Version: Version, ExportedAt: now.UTC()}); err != nil {
		return n, err
	}
	err := src.Export(ctx, memory.RecordVisitor{
		Memory: func(m *memory.Memory) error { n.Memories++; return enc.Encode(toMemoryRecord(m)) },
		Edge:   func(e *memory.Edge) error { n.Edges++; return enc.Encode(toEdgeRecord(e)) },
		Event:  func(ev *memory.ValidationEvent) error { n.Events++; return enc.Encode(toEventRecord(ev)) },
		Change: func(c *memory.Change) error { n.Changes++; return enc.Encode(toChangeRecord(c)) },
		File:   func(a *memory.FileRow) error { n.Files++; return enc.Encode(toFileRecord(a)) },
		Project: func(row map[string]any) error {
			n.Projects++
			row["record"] = KindProject
			return enc.Encode(row)
		},
		Archived: func(it *memory.TrashItem) error {
			if it.Archived {
				n.Archived++
			} else {
				n.Deleted++
			}
			return enc.Encode(toArchivedRecord(it))
		},
		Journal: func(e *journal.Entry) error {
			n.Journal++
			return enc.Encode(journalRecord{Record: KindJournal, ID: e.ID, Entry: *e})
		},
		Space: func(sp memory.EmbeddingSpace) error {
			return enc.Encode(spaceRecord{Record: KindSpace, Model: sp.Model, Dimension: sp.Dimension})
		},
		Vector: func(id string, vec []float32) error { n.Vectors++; return enc.Encode(toVectorRecord(id, vec)) },
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}
