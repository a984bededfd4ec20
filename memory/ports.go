package memory

import (
	"context"
	"encoding/json"
	"time"
)

// Store is everything a store of Recall implements (storage on one SQLite
// file shared by many processes; storage/postgres for a team): every write is
// one transaction, and an acknowledged write is durable. storage/storetest is
// its contract.
//
// It is larger than a port should be, for a reason: it is the union of the
// small ports below, which is what the Service needs, since the Service is the
// one door every operation on memories goes through (MCP tools, CLI, hooks,
// viewer). Code outside this package declares the few methods it needs
// instead (validation.Store, capture's ports, project.Bindings).
type Store interface {
	MemoryReader
	MemoryWriter
	Searcher
	VectorStore
	Reindexer
	Graph
	EventLog
	FileLog
	Bookkeeping
	TrashStore
	ContradictionResolver
	ProjectLister

	Close() error
}

// MemoryReader reads memories.
type MemoryReader interface {
	// GetMemory returns one memory or an error wrapping ErrNotFound.
	GetMemory(ctx context.Context, id string) (*Memory, error)
	// GetMemories returns the memories that exist among ids, keyed by id.
	GetMemories(ctx context.Context, ids []string) (map[string]*Memory, error)
	// ListMemories lists memories by filter, order and page.
	ListMemories(ctx context.Context, q ListQuery) ([]*Memory, error)
	// CountMemories counts memories by filter.
	CountMemories(ctx context.Context, f Filter) (int, error)
	// CountMemoriesBy counts the memories the asker sees by author or by
	// source, keyed by the value ("" for none recorded).
	CountMemoriesBy(ctx context.Context, by Facet) (map[string]int, error)
	// TouchMemories sets the access time and increments the access count. It
	// is best effort: behind another process's write lock it gives up after a
	// short wait and returns an error, never holding up the read it follows.
	TouchMemories(ctx context.Context, ids []string, at time.Time) error
}

// MemoryWriter adds, changes and deletes memories; every write is one
// transaction.
type MemoryWriter interface {
	// InsertMemory stores m (ID, ContentHash and times already set) with its
	// vector, or with EmbeddingPending when vec is nil. If a memory with the same
	// ContentHash exists in m.Namespace it is returned instead and created is false.
	InsertMemory(ctx context.Context, m *Memory, vec []float32) (stored *Memory, created bool, err error)
	// UpdateMemory reads the memory, calls fn and writes back what fn changed, all
	// in one write transaction, so concurrent read-modify-writes (confidence
	// updates from two processes) never lose one another.
	UpdateMemory(ctx context.Context, id string, fn func(m *Memory) error) (*Memory, error)
	// UpdateMemoryLogged is UpdateMemory whose fn also returns the change log
	// entry describing what it did (nil when it changed nothing); both are
	// written in one transaction, so no change goes unrecorded.
	UpdateMemoryLogged(ctx context.Context, id string, fn func(m *Memory) (*Change, error)) (*Memory, error)
	// UpdateMemoryWithEvent is UpdateMemory whose fn also returns the validation
	// event recording the change and, when the memory was promoted, its change
	// log entry; all are written in one transaction, so a confidence never
	// moves without its event.
	UpdateMemoryWithEvent(ctx context.Context, id string, fn func(m *Memory) (*ValidationEvent, *Change, error)) (*Memory, int64, error)
	// DeleteMemory removes a memory with its vector, edges and events.
	// With keepGolden a golden rule is refused with ErrProtected, judged inside
	// the delete's transaction (a memory promoted meanwhile is kept).
	DeleteMemory(ctx context.Context, id string, keepGolden bool) error
	// TrashMemory deletes like DeleteMemory but keeps the full record for a
	// later restore (the viewer's delete).
	TrashMemory(ctx context.Context, id string, keepGolden bool) error
	// ArchiveMemory deletes like TrashMemory but keeps the record until a
	// restore (the review of stale memories).
	ArchiveMemory(ctx context.Context, id string, keepGolden bool) error
}

// Searcher ranks memories by words and by vectors.
type Searcher interface {
	// SearchKeyword ranks memories by FTS5 BM25 for user text (never FTS5 syntax:
	// the store quotes it). Best first.
	SearchKeyword(ctx context.Context, text string, f Filter, limit int) ([]Hit, error)
	// MatchAllKeywords ranks, like SearchKeyword, only the memories that contain
	// every content word of text (keywords.Terms).
	MatchAllKeywords(ctx context.Context, text string, f Filter, limit int) ([]Hit, error)
	// KeywordCoverage gives, for each existing memory among ids, the fraction of
	// text's content words it contains.
	KeywordCoverage(ctx context.Context, text string, ids []string) (map[string]float64, error)
	// SearchVector ranks memories by cosine distance to vec. Best first.
	SearchVector(ctx context.Context, vec []float32, f Filter, limit int) ([]Hit, error)
}

// CoveringSearcher is a store that finds the memories holding a share of a
// query's words directly. Matching takes its candidates from it when the
// store has it, and from SearchKeyword otherwise.
type CoveringSearcher interface {
	// SearchCovering ranks, like SearchKeyword, only the memories that
	// contain at least share of text's content words, as KeywordCoverage
	// counts them. Best first.
	SearchCovering(ctx context.Context, text string, share float64, f Filter, limit int) ([]Hit, error)
}

// VectorStore keeps the memories' vectors and the space they were made in.
type VectorStore interface {
	// SetEmbedding stores the vector of a memory and clears EmbeddingPending.
	SetEmbedding(ctx context.Context, id string, vec []float32) error
	// PendingEmbeddings returns up to limit memories that still lack a vector.
	PendingEmbeddings(ctx context.Context, limit int) ([]*Memory, error)
	// A memory longer than the embedding model's context has vectors for its
	// later parts too. UnchunkedLongMemories lists memories with a vector,
	// longer than minBytes, whose later parts have none yet (except skip);
	// SetChunkEmbeddings replaces them; SearchChunks ranks memories by their
	// best later part.
	UnchunkedLongMemories(ctx context.Context, minBytes, limit int, skip []string) ([]*Memory, error)
	SetChunkEmbeddings(ctx context.Context, id string, vecs [][]float32) error
	SearchChunks(ctx context.Context, vec []float32, f Filter, limit int) ([]Hit, error)
	// CountPendingEmbeddings counts the memories that still lack a vector.
	CountPendingEmbeddings(ctx context.Context) (int, error)
	// EmbeddingSpace reports the model and dimension the stored vectors were made
	// with (empty and 0 before the first vector).
	EmbeddingSpace(ctx context.Context) (EmbeddingSpace, error)
	// ClaimEmbeddingSpace records space when the store has none yet (atomically:
	// of two processes claiming at once, one wins) and returns the space in force.
	ClaimEmbeddingSpace(ctx context.Context, space EmbeddingSpace) (EmbeddingSpace, error)
	// ResetEmbeddings drops every vector, records the new space and marks every
	// memory pending.
	ResetEmbeddings(ctx context.Context, space EmbeddingSpace) error
	// Embedding returns the stored vector of a memory, or nil when it has none.
	Embedding(ctx context.Context, id string) ([]float32, error)
}

// Reindexer makes every vector again without losing search meanwhile.
type Reindexer interface {
	// A reindex stages new vectors beside the old ones, which stay searchable,
	// and swaps them in when every memory has one. BeginReindex records the
	// target space and returns how many memories an earlier, interrupted run
	// already staged (vectors staged for another space are dropped);
	// ReindexPending lists memories still without a staged vector, except those
	// in skip; StageVectors keeps vectors by memory id; FinishReindex swaps them
	// in, marks the rest pending and returns how many got a vector.
	BeginReindex(ctx context.Context, space EmbeddingSpace) (staged int, err error)
	ReindexPending(ctx context.Context, limit int, skip []string) ([]*Memory, error)
	StageVectors(ctx context.Context, vecs map[string][]float32) error
	FinishReindex(ctx context.Context) (int, error)
}

// Graph keeps the edges between memories.
type Graph interface {
	// InsertEdge adds an edge; the same (source, target, relation) again updates
	// the weight and returns the existing edge's id. Both ends must exist.
	// A supersedes edge against one the other way round is refused
	// (ErrInvalid): both memories would leave recall.
	InsertEdge(ctx context.Context, e *Edge) (id int64, err error)
	// LinkOnce adds e unless an edge of its relation already links its two
	// memories either way, in one transaction, so that two servers judging
	// the same pair at once leave one edge; it returns the edge's id and
	// whether it is new. A contradicts edge for a pair a person judged not to
	// contradict is not added (id 0, false).
	LinkOnce(ctx context.Context, e *Edge) (id int64, created bool, err error)
	// Edges lists edges touching ids in the direction and of the relations asked
	// (all relations when empty).
	Edges(ctx context.Context, q EdgeQuery) ([]Edge, error)
	// DeleteEdges removes the edges matching q and returns their ids.
	DeleteEdges(ctx context.Context, q EdgeQuery) ([]int64, error)
}

// EventLog keeps what happened to memories: validation events and change
// logs.
type EventLog interface {
	// AddEvent records a validation event and returns its id.
	AddEvent(ctx context.Context, ev *ValidationEvent) (int64, error)
	// Events lists a memory's events, newest first, optionally of one type.
	Events(ctx context.Context, memoryID string, eventType EventType, limit int) ([]ValidationEvent, error)
	// AddChanges appends entries to memories' change logs in one transaction
	// (a contradiction resolved, recorded on both memories).
	AddChanges(ctx context.Context, changes ...Change) error
	// Changes lists change log entries, newest first.
	Changes(ctx context.Context, q ChangeQuery) ([]Change, error)
	// NotContradiction reports whether a person judged that a and b do not
	// contradict each other (a not_contradiction entry on either's log).
	NotContradiction(ctx context.Context, a, b string) (bool, error)
	// LastEventTimes gives the time of the latest event of each memory among
	// ids that has one, in one query.
	LastEventTimes(ctx context.Context, ids []string) (map[string]time.Time, error)
}

// FileLog keeps which files agents touched.
type FileLog interface {
	// AddFileActivity records one touch of a file.
	AddFileActivity(ctx context.Context, a *FileActivity) (int64, error)
	// RecentFiles aggregates activity per file since a time, most recent first.
	RecentFiles(ctx context.Context, projectRoot string, since time.Time, limit int) ([]FileSummary, error)
	// SummarizeFileActivity folds touches older than before into one summary row
	// per file, project and action, and returns how many rows it removed. With
	// nothing to fold it only reads.
	SummarizeFileActivity(ctx context.Context, before time.Time) (int64, error)
}

// Bookkeeping is the rest a running Recall records and reports.
type Bookkeeping interface {
	// RecordModelHealth records the outcome of a call to a model role ("chat",
	// "embed"): errMsg empty for a success, else what went wrong and what to
	// check. Failures in a row are counted; a success resets them.
	RecordModelHealth(ctx context.Context, role, errMsg string, at time.Time) error
	// UpsertSession records a Claude Code session's start or end.
	UpsertSession(ctx context.Context, s *Session) error
	// Stats counts what the database holds.
	Stats(ctx context.Context) (*Stats, error)
}

// ContradictionResolver writes a person's verdict on a contradiction (see
// Service.ResolveContradiction) in one transaction: ErrNotFound when the edge
// is gone, ErrInvalid when it is no longer a contradicts edge.
type ContradictionResolver interface {
	ResolveContradiction(ctx context.Context, r Resolution) error
}

// ProjectLister lists the project namespaces (see ProjectSummary).
type ProjectLister interface {
	// ProjectSummaries lists every project namespace that holds memories or
	// is bound to a root, by namespace.
	ProjectSummaries(ctx context.Context) ([]ProjectSummary, error)
}

// ModelHealth is how a model role fared lately (see Store.RecordModelHealth).
type ModelHealth struct {
	Role         string    `json:"role"`
	Failures     int       `json:"failures_in_a_row"`
	LastError    string    `json:"last_error,omitempty"`
	FailingSince time.Time `json:"failing_since,omitzero"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Session is one Claude Code session seen through its hooks.
type Session struct {
	ID        string     `json:"session_id"`
	Namespace string     `json:"namespace"`
	Cwd       string     `json:"cwd,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	EndReason string     `json:"end_reason,omitempty"`
}

// Stats is what the database holds.
type Stats struct {
	Memories          int            `json:"memories"`
	ByNamespace       map[string]int `json:"by_namespace"`
	ByType            map[string]int `json:"by_type"`
	ByAuthor          map[string]int `json:"by_author,omitempty"` // who stored them ("": this machine's processes)
	BySource          map[string]int `json:"by_source,omitempty"` // through which door ("": not recorded, stored before it was)
	Edges             int            `json:"edges"`
	ValidationEvents  int            `json:"validation_events"`
	FileActivity      int            `json:"file_activity"`
	PendingEmbeddings int            `json:"pending_embeddings"`
	PendingJobs       int            `json:"pending_jobs"`
	// RetryingJobs are pending jobs that failed before and wait for their next
	// attempt; OldestJobAt is when the oldest pending job was queued.
	RetryingJobs int       `json:"retrying_jobs"`
	OldestJobAt  time.Time `json:"oldest_job_at,omitzero"`
	LastJobError string    `json:"last_job_error,omitempty"`
	// FailedJobs failed for good (a cause no retry can fix) and are kept on
	// record; LastJobFailure says which and why, newest first.
	FailedJobs       int    `json:"failed_jobs"`
	LastJobFailure   string `json:"last_job_failure,omitempty"`
	JournalEntries   int    `json:"journal_entries"`   // captured prompts, tool calls, summaries
	TrimmedEntries   int    `json:"trimmed_entries"`   // of those, kept in part (huge payloads)
	PendingSummaries int    `json:"pending_summaries"` // sessions waiting for their summary
	// SpooledWrites are hook writes that met another process's write lock and
	// wait beside the database to be applied; FailedSpooledWrites could never
	// be applied and were moved aside.
	SpooledWrites       int `json:"spooled_writes"`
	FailedSpooledWrites int `json:"failed_spooled_writes"`
	// LostWrites are hook writes that neither the database nor the spool
	// could take (a full disk, a read-only directory): what they captured is
	// missing. LastLostWrite says when the last was lost and why.
	LostWrites    int    `json:"lost_writes"`
	LastLostWrite string `json:"last_lost_write,omitempty"`
	// ModelHealth lists the model roles that failed lately (none when all is well).
	ModelHealth    []ModelHealth `json:"model_health,omitempty"`
	EmbeddingModel string        `json:"embedding_model"`
	EmbeddingDim   int           `json:"embedding_dimension"`
	SchemaVersion  int           `json:"schema_version"`
	FileBytes      int64         `json:"file_bytes"`
}

// TallyMemories sets Memories to the sum of ByType, once the store has
// counted by type the memories the asker may see: a person's figures leave
// out the other people's private memories, and the total agrees with them.
func (s *Stats) TallyMemories() {
	s.Memories = 0
	for _, n := range s.ByType {
		s.Memories += n
	}
}

// Filter narrows searches, lists and counts. Zero values mean "any".
type Filter struct {
	Namespaces        []string // any of these namespaces
	Types             []Type   // any of these types
	MinImportance     float64
	IncludeSuperseded bool // memories that are the target of a supersedes edge are left out unless set
	IDs               []string
	Bounds
}

// Bounds narrow a listing or a search by confidence, creation time and
// author: the viewer's filters (no MCP tool takes them). Nil or zero bounds
// are open.
type Bounds struct {
	MinConfidence, MaxConfidence *float64  // inclusive
	CreatedAfter                 time.Time // created at or after
	CreatedBefore                time.Time // created before
	// Authors keeps the memories stored by any of these (see Memory.Author;
	// "" stands for no author: this machine's own processes).
	Authors []string
	// Sources keeps the memories stored through any of these doors (see
	// Memory.Source; "" stands for memories stored before it was recorded).
	Sources []string
}

// Set reports whether any bound is given.
func (b Bounds) Set() bool {
	return b.MinConfidence != nil || b.MaxConfidence != nil || !b.CreatedAfter.IsZero() || !b.CreatedBefore.IsZero() ||
		len(b.Authors) > 0 || len(b.Sources) > 0
}

// Facet is what CountMemoriesBy counts memories by.
type Facet string

const (
	FacetAuthor Facet = "author" // Memory.Author
	FacetSource Facet = "source" // Memory.Source
)

// OrderBy is the sort key of ListMemories.
type OrderBy string

const (
	OrderCreatedAt  OrderBy = "created_at"
	OrderAccessedAt OrderBy = "accessed_at"
	OrderImportance OrderBy = "importance"
	OrderConfidence OrderBy = "confidence"
)

// ParseOrderBy validates a sort key.
func ParseOrderBy(s string) (OrderBy, error) {
	return parseName("order_by", s, OrderCreatedAt, OrderAccessedAt, OrderImportance, OrderConfidence)
}

// ListQuery is a filtered, ordered page of memories.
type ListQuery struct {
	Filter
	OrderBy    OrderBy
	Descending bool
	Limit      int
	Offset     int
}

// Hit is one search result: a memory id and its rank score in that search
// (BM25 for keywords, cosine similarity 1-distance for vectors).
type Hit struct {
	ID    string
	Score float64
}

// Direction selects edges relative to a memory.
type Direction string

const (
	DirectionOutgoing Direction = "outgoing"
	DirectionIncoming Direction = "incoming"
	DirectionBoth     Direction = "both"
)

// ParseDirection validates a direction name.
func ParseDirection(s string) (Direction, error) {
	return parseName("direction", s, DirectionOutgoing, DirectionIncoming, DirectionBoth)
}

// EdgeQuery selects edges: by ids, or touching MemoryIDs in Direction, or between
// SourceID and TargetID (either way round when Direction is both), optionally of
// some relations only. At least one selector must be set.
type EdgeQuery struct {
	EdgeIDs   []int64
	MemoryIDs []string
	Direction Direction
	SourceID  string
	TargetID  string
	Relations []Relation
}

// EmbeddingSpace names the model and dimension that made a set of vectors;
// vectors of different spaces are never compared.
type EmbeddingSpace struct {
	Model     string
	Dimension int
}

// Embedder turns text into vectors. embedding implements it with Ollama.
type Embedder interface {
	// Model names the embedding model.
	Model() string
	// EmbedDocuments embeds texts to be stored, in one batch request.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery embeds a search query, with the model's query instruction.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Judge asks the chat model for a structured judgment. embedding implements it
// with Ollama's chat API, the JSON schema in `format` and temperature 0; a reply
// that does not parse into out is an error, never a crash.
type Judge interface {
	JudgeJSON(ctx context.Context, system, prompt string, schema json.RawMessage, out any) error
}

// Curator is told of every newly stored memory so it can infer relationships and
// look for contradictions. It must return quickly: slow model work is queued.
// validation implements it; cmd plugs it in.
type Curator interface {
	MemoryStored(ctx context.Context, m *Memory) []AutoRelationship
}

// AutoRelationship is an edge curation inferred for a newly stored memory.
type AutoRelationship struct {
	EdgeID     int64    `json:"edge_id,omitempty"`
	SourceID   string   `json:"source_id"`
	TargetID   string   `json:"target_id"`
	Relation   Relation `json:"relation"`
	Confidence float64  `json:"confidence"`
	Reason     string   `json:"reason,omitempty"`
}
