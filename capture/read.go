package capture

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/recall-mcp/recall/history"
	"github.com/recall-mcp/recall/memory"
)

// Memories is what reading needs of the curated store. memory.Service has it.
type Memories interface {
	Recall(ctx context.Context, req memory.RecallRequest) (*memory.RecallResult, error)
	Get(ctx context.Context, id string) (*memory.Memory, error)
}

// Reader answers the three reading steps over the journal and the memories.
type Reader struct {
	Store    EntryReader
	Memories Memories
	// TranscriptRoot is Claude Code's projects directory: where a record's
	// conversation is looked up by session when its transcript path is gone.
	// Empty, only the path the record names is read.
	TranscriptRoot string
}

// IndexItem is one line of an index: enough to decide whether to read more.
type IndexItem struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"` // a memory type, or prompt, observation, summary
	Title   string  `json:"title"`
	Date    string  `json:"date"`
	Project string  `json:"project"`
	Score   float64 `json:"score,omitempty"`
}

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
	indexTitleRunes    = 100
)

// SearchRequest asks for an index of what matches a query.
type SearchRequest struct {
	Query     string
	Namespace string // a project's namespace: it and global; empty: everywhere
	Limit     int
}

// Search returns a compact index of memories and journal entries matching the
// query, best first.
func (r *Reader) Search(ctx context.Context, req SearchRequest) ([]IndexItem, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, memory.Invalidf("query", `""`, "words to search for")
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultSearchLimit
	}
	if limit < 1 || limit > MaxSearchLimit {
		return nil, memory.Invalidf("limit", limit, fmt.Sprintf("a whole number from 1 to %d", MaxSearchLimit))
	}
	var namespaces []string
	if req.Namespace != "" {
		ns, err := memory.ResolveNamespace(ctx, req.Namespace)
		if err != nil {
			return nil, err
		}
		namespaces = []string{ns, memory.GlobalNamespace}
	}
	mems, err := r.searchMemories(ctx, req.Query, namespaces, limit)
	if err != nil {
		return nil, err
	}
	hits, err := r.Store.SearchEntries(ctx, req.Query, namespaces, limit)
	if err != nil {
		return nil, err
	}
	// A summary answers "what did we do about X" in one record: summaries
	// come first among the journal's matches, each group in BM25 order.
	slices.SortStableFunc(hits, func(a, b EntryHit) int {
		return cmp.Compare(kindRank(a.Entry.Kind), kindRank(b.Entry.Kind))
	})
	entries := make([]IndexItem, len(hits))
	for i, h := range hits {
		entries[i] = EntryItem(h.Entry)
	}
	return fuse(limit, mems, entries), nil
}

func kindRank(k Kind) int {
	if k == KindSummary {
		return 0
	}
	return 1
}

func (r *Reader) searchMemories(ctx context.Context, query string, namespaces []string, limit int) ([]IndexItem, error) {
	if r.Memories == nil {
		return nil, nil
	}
	scopes := namespaces
	if len(scopes) == 0 {
		scopes = []string{""}
	}
	var out []memory.ScoredMemory
	for _, ns := range scopes {
		res, err := r.Memories.Recall(ctx, memory.RecallRequest{Query: query, NResults: limit, Namespace: ns})
		if err != nil {
			return nil, err
		}
		out = append(out, res.Memories...)
	}
	slices.SortStableFunc(out, func(a, b memory.ScoredMemory) int { return cmp.Compare(b.Score, a.Score) })
	items := make([]IndexItem, len(out))
	for i, m := range out {
		items[i] = MemoryItem(m.Memory)
	}
	return items, nil
}

// fuse merges ranked lists by reciprocal rank and keeps the best limit.
func fuse(limit int, lists ...[]IndexItem) []IndexItem {
	score := map[string]float64{}
	byID := map[string]IndexItem{}
	for _, l := range lists {
		for rank, it := range l {
			score[it.ID] += memory.RRF(rank)
			byID[it.ID] = it
		}
	}
	out := make([]IndexItem, 0, len(byID))
	for id, it := range byID {
		it.Score = math.Round(score[id]*memory.RRFK*1000) / 1000 // 1.0 is a first place in one list
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b IndexItem) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.Date, a.Date)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// MemoryItem is a memory as an index line.
func MemoryItem(m *memory.Memory) IndexItem {
	return IndexItem{ID: m.ID, Kind: string(m.Type), Title: memory.Preview(m.Content, indexTitleRunes), Date: day(m.CreatedAt), Project: m.Namespace}
}

// EntryItem is a journal entry as an index line.
func EntryItem(e *Entry) IndexItem {
	return IndexItem{ID: EntryID(e.ID), Kind: string(e.Kind), Title: memory.Preview(e.Title, indexTitleRunes), Date: day(e.CreatedAt), Project: e.Namespace}
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// Timeline limits.
const (
	DefaultAround = 3
	MaxAround     = 20
)

// Timeline returns what happened around an id, oldest first: for a journal
// entry, its neighbours in the same session; for a memory, the journal entries
// and memories of its project around the moment it was stored, with the
// memory itself.
func (r *Reader) Timeline(ctx context.Context, id string, before, after int) ([]IndexItem, error) {
	for _, n := range []struct {
		name string
		v    int
	}{{"before", before}, {"after", after}} {
		if n.v < 0 || n.v > MaxAround {
			return nil, memory.Invalidf(n.name, n.v, fmt.Sprintf("a whole number from 0 to %d", MaxAround))
		}
	}
	if n, ok := ParseEntryID(id); ok {
		es, err := r.Store.Around(ctx, n, before, after)
		if errors.Is(err, memory.ErrNotFound) {
			return nil, errNoEntry(id)
		}
		if err != nil {
			return nil, err
		}
		return entryItems(es), nil
	}
	m, err := r.memory(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.memoryTimeline(ctx, m, before, after)
}

// memoryTimeline is what came around a memory: the journal of its project
// (of every project for a global memory, which any session may have stored)
// and the memories stored before and after it in its namespace, nearest
// first on each side, then oldest first.
func (r *Reader) memoryTimeline(ctx context.Context, m *memory.Memory, before, after int) ([]IndexItem, error) {
	journalNS := m.Namespace
	if m.Namespace == memory.GlobalNamespace {
		journalNS = ""
	}
	es, err := r.Store.NamespaceAround(ctx, journalNS, m.CreatedAt, before, after)
	if err != nil {
		return nil, err
	}
	type timed struct {
		at   time.Time
		item IndexItem
	}
	var older, newer []timed
	for _, e := range es {
		t := timed{e.CreatedAt, EntryItem(e)}
		if e.CreatedAt.After(m.CreatedAt) {
			newer = append(newer, t)
		} else {
			older = append(older, t)
		}
	}
	if lister, ok := r.Memories.(MemoryLister); ok {
		for _, side := range []struct {
			n     int
			bound memory.Bounds
			desc  bool
			into  *[]timed
		}{
			{before, memory.Bounds{CreatedBefore: m.CreatedAt}, true, &older},
			{after, memory.Bounds{CreatedAfter: m.CreatedAt.Add(time.Nanosecond)}, false, &newer},
		} {
			if side.n == 0 {
				continue
			}
			desc := side.desc
			res, err := lister.List(ctx, memory.ListRequest{Namespace: m.Namespace, Limit: side.n, OrderBy: string(memory.OrderCreatedAt), Descending: &desc, Bounds: side.bound})
			if err != nil {
				return nil, err
			}
			for _, n := range res.Memories {
				if n.ID != m.ID {
					*side.into = append(*side.into, timed{n.CreatedAt, MemoryItem(n)})
				}
			}
		}
	}
	byTime := func(a, b timed) int { return a.at.Compare(b.at) }
	slices.SortStableFunc(older, byTime)
	slices.SortStableFunc(newer, byTime)
	older = older[max(0, len(older)-before):]
	newer = newer[:min(len(newer), after)]
	items := make([]IndexItem, 0, len(older)+1+len(newer))
	for _, t := range older {
		items = append(items, t.item)
	}
	items = append(items, MemoryItem(m))
	for _, t := range newer {
		items = append(items, t.item)
	}
	return items, nil
}

// MemoryLister lists memories; a Reader's Memories that has it gives a
// memory's timeline the memories stored around it.
type MemoryLister interface {
	List(ctx context.Context, req memory.ListRequest) (*memory.ListResult, error)
}

func entryItems(es []*Entry) []IndexItem {
	out := make([]IndexItem, len(es))
	for i, e := range es {
		out[i] = EntryItem(e)
	}
	return out
}

func (r *Reader) memory(ctx context.Context, id string) (*memory.Memory, error) {
	if r.Memories == nil || !memory.LooksLikeID(id) {
		return nil, errNoEntry(id)
	}
	m, err := r.Memories.Get(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, errNoEntry(id)
	}
	return m, err
}

// Record is one full record: a memory or a journal entry.
type Record struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Project    string   `json:"project"`
	Date       string   `json:"date"`
	Title      string   `json:"title,omitempty"`
	Text       string   `json:"text"`
	Tool       string   `json:"tool,omitempty"`
	Files      []string `json:"files,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	// TrimmedBytes is how much of a huge tool output was not kept.
	TrimmedBytes int            `json:"trimmed_bytes,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	// Anchor leads to the conversation in Claude Code's transcript.
	Anchor *TranscriptAnchor `json:"anchor,omitempty"`
	// Transcript is the conversation around the anchor's turn, read from the
	// transcript and cleaned of private sections and secrets; the turn has
	// is_match true. TranscriptNote says why it is missing when it was asked for.
	Transcript     []history.View `json:"transcript,omitempty"`
	TranscriptNote string         `json:"transcript_note,omitempty"`
}

// TranscriptAnchor places a record in a Claude Code transcript.
type TranscriptAnchor struct {
	SessionID      string `json:"session_id"`
	TurnID         string `json:"turn_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	// The record's own message: a tool call's id, a prompt's id.
	ToolUseID string `json:"tool_use_id,omitempty"`
	PromptID  string `json:"prompt_id,omitempty"`
	// Offset is the transcript's size when the record was captured.
	Offset int64 `json:"offset,omitempty"`
}

// MaxDetailIDs bounds one details request: details are for the few ids the
// index showed to matter.
const MaxDetailIDs = 20

// Transcript windows of details: a trimmed record gets DefaultTranscriptAround
// messages before and after its turn unaided; asked, any journal record gets
// up to MaxTranscriptAround.
const (
	DefaultTranscriptAround = 3
	MaxTranscriptAround     = 20
)

// DetailsRequest asks for the full records of ids. Around, when positive, adds
// that many transcript messages before and after each journal record's turn;
// zero adds DefaultTranscriptAround to the records whose body was trimmed.
type DetailsRequest struct {
	IDs    []string
	Around int
}

// Details returns the full records of ids, in their order. Ids that match
// nothing are returned in missing; none matching at all is an error.
func (r *Reader) Details(ctx context.Context, req DetailsRequest) (records []Record, missing []string, err error) {
	ids := req.IDs
	if len(ids) == 0 || len(ids) > MaxDetailIDs {
		return nil, nil, memory.Invalidf("ids", fmt.Sprintf("%d ids", len(ids)), fmt.Sprintf("1 to %d ids from the search or timeline tools", MaxDetailIDs))
	}
	if req.Around < 0 || req.Around > MaxTranscriptAround {
		return nil, nil, memory.Invalidf("around", req.Around, fmt.Sprintf("a whole number from 0 to %d", MaxTranscriptAround))
	}
	var entryIDs []int64
	for _, id := range ids {
		if n, ok := ParseEntryID(id); ok {
			entryIDs = append(entryIDs, n)
		}
	}
	es, err := r.Store.Entries(ctx, entryIDs)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string]*Entry{}
	for _, e := range es {
		byID[EntryID(e.ID)] = e
	}
	windows := map[string]transcriptWindow{}
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			rec := entryRecord(e)
			if n := windowSize(e, req.Around); n > 0 {
				r.addTranscript(&rec, e, n, windows)
			}
			records = append(records, rec)
			continue
		}
		m, err := r.memory(ctx, id)
		if err != nil {
			missing = append(missing, id)
			continue
		}
		records = append(records, memoryRecord(m))
	}
	if len(records) == 0 {
		return nil, missing, errNoEntry(strings.Join(ids, ", "))
	}
	return records, missing, nil
}

func entryRecord(e *Entry) Record {
	rec := Record{ID: EntryID(e.ID), Kind: string(e.Kind), Project: e.Namespace, Date: day(e.CreatedAt),
		Title: e.Title, Text: e.Body, Tool: e.ToolName, Files: e.Files, TrimmedBytes: e.TrimmedBytes}
	if e.SessionID != "" {
		rec.Anchor = &TranscriptAnchor{SessionID: e.SessionID, TurnID: e.TurnID, TranscriptPath: e.TranscriptPath, Offset: max(e.TranscriptOffset, 0)}
		switch e.Kind {
		case KindObservation:
			rec.Anchor.ToolUseID = e.AnchorID
		case KindPrompt:
			rec.Anchor.PromptID = e.AnchorID
		}
	}
	if e.MemoryID != "" {
		rec.Metadata = map[string]any{"memory_id": e.MemoryID}
	}
	return rec
}

func memoryRecord(m *memory.Memory) Record {
	c := m.Confidence
	return Record{ID: m.ID, Kind: string(m.Type), Project: m.Namespace, Date: day(m.CreatedAt),
		Text: m.Content, Confidence: &c, Metadata: m.Metadata}
}

// windowSize is how many transcript messages a details request shows on each
// side of an entry's turn: around when asked, else some when the body was
// trimmed (the transcript holds what the journal left out), else none.
func windowSize(e *Entry, around int) int {
	switch {
	case around > 0:
		return around
	case e.TrimmedBytes > 0:
		return DefaultTranscriptAround
	}
	return 0
}

// transcriptWindow is one read of a transcript, shared by the records of one
// details request anchored to the same turn.
type transcriptWindow struct {
	views []history.View
	note  string
}

// addTranscript adds the conversation around an entry's turn to its record.
func (r *Reader) addTranscript(rec *Record, e *Entry, n int, windows map[string]transcriptWindow) {
	key := strings.Join([]string{e.TranscriptPath, e.SessionID, e.TurnID, e.AnchorID, fmt.Sprint(e.TranscriptOffset, e.Kind, n)}, "\x00")
	w, ok := windows[key]
	if !ok {
		w = r.readTranscript(e, n)
		windows[key] = w
	}
	rec.Transcript, rec.TranscriptNote = w.views, w.note
}

// readTranscript reads n messages on each side of an entry's own message:
// from the transcript the entry names, near where it was captured, else from
// its session's transcripts under TranscriptRoot. The history reader cleans
// what it returns (privacy.Clean).
func (r *Reader) readTranscript(e *Entry, n int) transcriptWindow {
	a, ok := entryAnchor(e)
	if !ok {
		return r.readTurn(e, n)
	}
	var msgs []history.Message
	anchor := -1
	err := errors.New("no transcript path")
	if e.TranscriptPath != "" {
		msgs, anchor, err = history.Reader{}.AroundAnchor(e.TranscriptPath, a, n, n)
	}
	if err != nil && e.SessionID != "" && r.TranscriptRoot != "" && (a.ToolUseID != "" || a.PromptID != "") {
		// A subagent's tool call is in the subagent's transcript; a file
		// rewritten since is read whole.
		var err2 error
		if msgs, anchor, err2 = history.ReadAnchored(r.TranscriptRoot, e.SessionID, a, n, n); err2 == nil {
			err = nil
		}
	}
	if err != nil {
		return transcriptWindow{note: "transcript not readable: " + err.Error()}
	}
	return window(msgs, anchor)
}

// entryAnchor is where an entry's own message is in its transcript; ok is
// false for a record without one (a summary; an entry captured before
// entries kept their message's id), which is placed by its turn.
func entryAnchor(e *Entry) (history.Anchor, bool) {
	if e.TranscriptOffset < 0 {
		return history.Anchor{}, false
	}
	switch {
	case e.Kind == KindObservation && e.AnchorID != "":
		return history.Anchor{ToolUseID: e.AnchorID, Offset: e.TranscriptOffset}, true
	case e.Kind == KindPrompt && e.AnchorID != "":
		return history.Anchor{PromptID: e.AnchorID, Offset: e.TranscriptOffset}, true
	case e.Kind == KindPrompt:
		// Claude Code before 2.1 names no prompt id: the prompt is the first
		// written after the hook ran.
		return history.Anchor{Prompt: true, Offset: e.TranscriptOffset}, true
	}
	return history.Anchor{}, false
}

// readTurn reads n messages on each side of an entry's turn (the prompt it
// came under): from the transcript the entry names, else from its session's
// transcript under TranscriptRoot.
func (r *Reader) readTurn(e *Entry, n int) transcriptWindow {
	if e.TurnID == "" || (e.TranscriptPath == "" && (e.SessionID == "" || r.TranscriptRoot == "")) {
		return transcriptWindow{note: "no transcript turn is recorded for this entry"}
	}
	var msgs []history.Message
	anchor := -1
	err := errors.New("no transcript path")
	if e.TranscriptPath != "" {
		msgs, anchor, err = history.Reader{}.Around(e.TranscriptPath, e.TurnID, n, n)
	}
	if err != nil && e.SessionID != "" && r.TranscriptRoot != "" {
		msgs, anchor, err = history.ReadAround(r.TranscriptRoot, e.SessionID, e.TurnID, n, n)
	}
	if err != nil {
		return transcriptWindow{note: "transcript not readable: " + err.Error()}
	}
	return window(msgs, anchor)
}

// window is a transcript's messages as details show them, the anchor marked.
func window(msgs []history.Message, anchor int) transcriptWindow {
	views := make([]history.View, len(msgs))
	for i, m := range msgs {
		isAnchor := i == anchor
		views[i] = history.View{Role: m.Role, Content: m.Text, UUID: m.UUID, IsMatch: &isAnchor}
		if !m.Timestamp.IsZero() {
			views[i].Timestamp = m.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z")
		}
	}
	return transcriptWindow{views: views}
}
