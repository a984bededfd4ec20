package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
)

// maxLineBytes bounds one line: a memory's content and metadata at their
// limits, JSON-escaped, fit with room to spare.
const maxLineBytes = 4 << 20

// Formats an import recognises from its first record.
const (
	FormatRecall       = "recall-export"
	FormatMemoryServer = "mcp-memory-server"
)

// LineError is a line left out of an import, and why.
type LineError struct {
	Line int    `json:"line"`
	Err  string `json:"error"`
}

func (e LineError) String() string { return fmt.Sprintf("line %d: %s", e.Line, e.Err) }

// ImportReport says what an import read, wrote and left out.
type ImportReport struct {
	Format   string               `json:"format"`
	Lines    int                  `json:"lines"`
	BadLines []LineError          `json:"bad_lines"`
	Result   *memory.ImportResult `json:"result"`
	// Mapping says how a foreign format was mapped onto memories and edges.
	Mapping string `json:"mapping,omitempty"`
}

// Progress, when set, is told how many records have been written so far.
type Progress func(done, total int)

// Import reads a JSONL file (Recall's export, or the MCP memory server's
// memory.jsonl, told apart by the first record), checks every line, and writes
// the good ones in one transaction: a bad line is reported by number and left
// out; an error while writing leaves nothing written. A person's import is
// signed with their name (memory.Records.SignAs).
func Import(ctx context.Context, sink Sink, r io.Reader, opts ImportOptions) (*ImportReport, error) {
	// "private" is the asker's own namespace, as everywhere.
	ns, err := memory.ResolveOptionalNamespace(ctx, opts.Namespace)
	if err != nil {
		return nil, err
	}
	opts.Namespace = ns
	lines, err := readLines(r)
	if err != nil {
		return nil, err
	}
	rep := &ImportReport{Lines: len(lines), BadLines: []LineError{}}
	var recs memory.Records
	switch detectFormat(lines) {
	case FormatMemoryServer:
		rep.Format, rep.Mapping = FormatMemoryServer, memoryServerMapping
		recs, rep.BadLines = parseMemoryServer(lines, opts)
	default:
		rep.Format = FormatRecall
		if recs, rep.BadLines, err = parseRecall(lines); err != nil {
			return nil, err
		}
	}
	recs.Progress = opts.Progress
	recs.SignAs(memory.PrincipalFrom(ctx))
	if rep.Result, err = sink.Import(ctx, recs); err != nil {
		return nil, fmt.Errorf("import: nothing was written: %w", err)
	}
	return rep, nil
}

// ImportOptions tune an import.
type ImportOptions struct {
	// Namespace receives the memories of a memory server file (default global).
	Namespace string
	Progress  Progress
}

// line is one non-empty line of the input with its number.
type line struct {
	n    int
	text []byte
}

func readLines(r io.Reader) ([]line, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineBytes)
	var out []line
	for n := 1; sc.Scan(); n++ {
		text := []byte(strings.TrimSpace(sc.Text()))
		if len(text) > 0 {
			out = append(out, line{n: n, text: text})
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d is longer than %d bytes: not a Recall or memory server JSONL file", len(out)+1, maxLineBytes)
		}
		return nil, err
	}
	return out, nil
}

// detectFormat reads the first record: Recall's export starts with a header;
// the memory server's lines carry "type": "entity" or "relation".
func detectFormat(lines []line) string {
	for _, l := range lines {
		var probe struct {
			Record string `json:"record"`
			Type   string `json:"type"`
		}
		if json.Unmarshal(l.text, &probe) != nil {
			continue
		}
		if probe.Record == "" && (probe.Type == "entity" || probe.Type == "relation") {
			return FormatMemoryServer
		}
		return FormatRecall
	}
	return FormatRecall
}

// parseRecall checks every line of a Recall export. A header of a newer
// version is an error for the whole file: its records may mean something this
// build cannot know.
func parseRecall(lines []line) (memory.Records, []LineError, error) {
	var recs memory.Records
	bad := []LineError{}
	for _, l := range lines {
		var probe struct {
			Record  string `json:"record"`
			Format  string `json:"format"`
			Version int    `json:"version"`
		}
		if err := json.Unmarshal(l.text, &probe); err != nil {
			bad = append(bad, LineError{l.n, "not JSON: " + err.Error()})
			continue
		}
		if probe.Record == KindHeader {
			if probe.Format != Format || probe.Version > Version {
				return recs, nil, fmt.Errorf("line %d: an export of format %q version %d; this recall reads %s up to version %d: upgrade recall", l.n, probe.Format, probe.Version, Format, Version)
			}
			continue
		}
		if err := addRecord(&recs, probe.Record, l.text); err != nil {
			bad = append(bad, LineError{l.n, err.Error()})
		}
	}
	return recs, bad, nil
}

// addDecoded decodes one record of type R, makes it the row conv gives and,
// when check accepts that, adds it to list.
func addDecoded[R, T any](list *[]T, text []byte, conv func(R) T, check func(T) error) error {
	var r R
	if err := strictDecode(text, &r); err != nil {
		return err
	}
	row := conv(r)
	if err := check(row); err != nil {
		return err
	}
	*list = append(*list, row)
	return nil
}

// checkChange checks a change record: whose change, what, by whom and when.
func checkChange(c memory.Change) error {
	if err := memory.ValidateID("memory_id", c.MemoryID); err != nil {
		return err
	}
	if c.Action == "" || c.Source == "" || c.At.IsZero() {
		return fmt.Errorf("change %d: want an action, a source and a time", c.ID)
	}
	return nil
}

// addRecord decodes and checks one record and adds it to recs.
func addRecord(recs *memory.Records, kind string, text []byte) error {
	switch kind {
	case KindMemory:
		return addDecoded(&recs.Memories, text, memoryRecord.memory, checkMemory)
	case KindEdge:
		return addDecoded(&recs.Edges, text, edgeRecord.edge, checkEdge)
	case KindEvent:
		return addDecoded(&recs.Events, text, eventRecord.event, func(e memory.ValidationEvent) error {
			_, err := memory.ParseEventType(string(e.EventType))
			return err
		})
	case KindChange:
		return addDecoded(&recs.Changes, text, changeRecord.change, checkChange)
	case KindFile:
		return addDecoded(&recs.Files, text, fileRecord.file, func(f memory.FileRow) error {
			if _, err := memory.ParseFileAction(string(f.Action)); err != nil || f.FilePath == "" {
				return fmt.Errorf("file_activity: file_path %q, action %q: want a path and one of read, write, edit, multiedit", f.FilePath, f.Action)
			}
			return nil
		})
	case KindProject:
		row := map[string]any{}
		if err := strictDecode(text, &row); err != nil {
			return err
		}
		delete(row, "record")
		recs.Projects = append(recs.Projects, row)
	case KindArchived, KindDeleted:
		return addDecoded(&recs.Archived, text, archivedRecord.item, func(it memory.TrashItem) error {
			if err := checkArchived(it); err != nil {
				return fmt.Errorf("%s %s: %w", strings.ReplaceAll(kind, "_", " "), it.Memory.ID, err)
			}
			return nil
		})
	case KindJournal:
		var r journalRecord
		if err := strictDecode(text, &r); err != nil {
			return err
		}
		e := r.Entry
		e.ID = r.ID
		if e.Title == "" || e.Kind == "" || e.CreatedAt.IsZero() {
			return fmt.Errorf("journal entry %d: want a kind, a title and a time", r.ID)
		}
		if err := memory.ValidateNamespace(e.Namespace); err != nil {
			return fmt.Errorf("journal entry %d: %w", r.ID, err)
		}
		e.Title, e.Body = privacy.Clean(e.Title), privacy.Clean(e.Body)
		e.CreatedAt = e.CreatedAt.UTC()
		recs.Journal = append(recs.Journal, e)
	case KindSpace:
		var r spaceRecord
		if err := strictDecode(text, &r); err != nil {
			return err
		}
		if r.Model == "" {
			return fmt.Errorf("embedding_space: want a model name")
		}
		if err := memory.CheckDimension("dimension", r.Dimension); err != nil {
			return err
		}
		recs.Space = memory.EmbeddingSpace{Model: r.Model, Dimension: r.Dimension}
	case KindVector:
		var r vectorRecord
		if err := strictDecode(text, &r); err != nil {
			return err
		}
		if err := memory.ValidateID("memory_id", r.MemoryID); err != nil {
			return err
		}
		vec, err := r.vector()
		if err != nil {
			return err
		}
		if err := memory.CheckVector(vec); err != nil {
			return fmt.Errorf("vector of %s: %w", r.MemoryID, err)
		}
		if recs.Space.Dimension == 0 || len(vec) != recs.Space.Dimension {
			return fmt.Errorf("vector of %s: %d numbers, want an embedding_space line before it naming their dimension", r.MemoryID, len(vec))
		}
		if recs.Vectors == nil {
			recs.Vectors = map[string][]float32{}
		}
		recs.Vectors[r.MemoryID] = vec
	default:
		return fmt.Errorf("record %q is not one of %s (a newer recall's export? upgrade recall)", kind,
			strings.Join([]string{KindMemory, KindEdge, KindEvent, KindChange, KindFile, KindProject, KindArchived,
				KindDeleted, KindJournal, KindSpace, KindVector}, ", "))
	}
	return nil
}

func strictDecode(text []byte, v any) error {
	if err := json.Unmarshal(text, v); err != nil {
		return fmt.Errorf("not a valid record: %w", err)
	}
	return nil
}

// checkMemory applies the rules every stored memory obeys, and cleans its
// content as every store does (<private> sections dropped, secrets redacted):
// an import is one more way in.
func checkMemory(m *memory.Memory) error {
	if err := memory.ValidateID("id", m.ID); err != nil {
		return err
	}
	m.Content = privacy.Clean(m.Content)
	if strings.TrimSpace(m.Content) == "" || len(m.Content) > memory.MaxContentBytes {
		return memory.Invalidf("content", fmt.Sprintf("of %d bytes", len(m.Content)), fmt.Sprintf("non-empty text of at most %d bytes", memory.MaxContentBytes))
	}
	if _, err := memory.ParseType(string(m.Type)); err != nil {
		return err
	}
	if err := memory.ValidateNamespace(m.Namespace); err != nil {
		return err
	}
	for name, v := range map[string]float64{"importance": m.Importance, "confidence": m.Confidence} {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return memory.Invalidf(name, v, "a number from 0 to 1")
		}
	}
	if m.CreatedAt.IsZero() {
		return memory.Invalidf("created_at", "(missing)", "an RFC 3339 time")
	}
	if m.Author != "" {
		if err := memory.ValidatePersonName(m.Author); err != nil {
			return fmt.Errorf("author: %w", err)
		}
	}
	if m.Source != "" {
		if err := memory.ValidateSource(m.Source); err != nil {
			return err
		}
	}
	// The hash is the dedup key: computed here, never trusted from the file,
	// so an edited line cannot slip a duplicate past it.
	m.ContentHash = memory.ContentHash(m.Content)
	return nil
}

// checkArchived applies the rules of each part to an archived memory's record:
// its edges, events and change log all belong to that memory.
func checkArchived(it memory.TrashItem) error {
	if it.DeletedAt.IsZero() {
		name := "deleted_at"
		if it.Archived {
			name = "archived_at"
		}
		return memory.Invalidf(name, "(missing)", "an RFC 3339 time")
	}
	m := it.Memory
	if err := checkMemory(m); err != nil {
		return err
	}
	for _, e := range it.Edges {
		if err := checkEdge(e); err != nil {
			return err
		}
		if e.SourceID != m.ID && e.TargetID != m.ID {
			return fmt.Errorf("edge %d %s -> %s does not touch the memory", e.ID, e.SourceID, e.TargetID)
		}
	}
	for _, ev := range it.Events {
		if _, err := memory.ParseEventType(string(ev.EventType)); err != nil {
			return err
		}
		if ev.MemoryID != m.ID {
			return fmt.Errorf("validation event %d is of memory %s", ev.ID, ev.MemoryID)
		}
	}
	for _, c := range it.Changes {
		if c.MemoryID != m.ID || c.Action == "" || c.Source == "" || c.At.IsZero() {
			return fmt.Errorf("change %d: want an action, a source and a time of this memory", c.ID)
		}
	}
	return nil
}

func checkEdge(e memory.Edge) error {
	if err := memory.ValidateID("source_id", e.SourceID); err != nil {
		return err
	}
	if err := memory.ValidateID("target_id", e.TargetID); err != nil {
		return err
	}
	if _, err := memory.ParseRelation(string(e.Relation)); err != nil {
		return err
	}
	if math.IsNaN(e.Weight) || e.Weight <= 0 || e.Weight > 1 {
		return memory.Invalidf("weight", e.Weight, "a number greater than 0 and at most 1")
	}
	return nil
}
