package memory

// Requests and results of the Service's operations. Their JSON names are the MCP
// tools' parameter and result fields (see the tool table of the design), so the
// server can pass results through unchanged.

// StoreRequest stores one memory. Zero Type and Namespace take the defaults;
// Importance nil takes the configured default.
type StoreRequest struct {
	Content    string         `json:"content"`
	Type       Type           `json:"memory_type,omitempty"`
	Namespace  string         `json:"namespace,omitempty"`
	Importance *float64       `json:"importance,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// StoreResult reports a stored (or deduplicated) memory.
type StoreResult struct {
	ID                string             `json:"id"`
	ContentHash       string             `json:"content_hash"`
	Namespace         string             `json:"namespace"`
	MemoryType        Type               `json:"memory_type"`
	Duplicate         bool               `json:"duplicate"`
	EmbeddingPending  bool               `json:"embedding_pending"`
	AutoRelationships []AutoRelationship `json:"auto_relationships"`
	Warning           string             `json:"warning,omitempty"`
}

// RecallRequest searches memories. Zero numeric fields take the tool defaults
// (n_results 5, max_depth 1, max_expanded 20, decay_factor 0.7).
type RecallRequest struct {
	Query             string     `json:"query"`
	NResults          int        `json:"n_results,omitempty"`
	Namespace         string     `json:"namespace,omitempty"`
	Type              Type       `json:"memory_type,omitempty"`
	MinImportance     float64    `json:"min_importance,omitempty"`
	IncludeRelated    bool       `json:"include_related,omitempty"`
	MaxDepth          int        `json:"max_depth,omitempty"`
	MaxExpanded       int        `json:"max_expanded,omitempty"`
	DecayFactor       float64    `json:"decay_factor,omitempty"`
	IncludeEdgeTypes  []Relation `json:"include_edge_types,omitempty"`
	ExcludeEdgeTypes  []Relation `json:"exclude_edge_types,omitempty"`
	IncludeSuperseded bool       `json:"include_superseded,omitempty"`
	// SkipAccessUpdate leaves access counts and times alone: the caller shows
	// only some of the results and marks those with MarkAccessed.
	SkipAccessUpdate bool `json:"-"`
	// Bounds are the viewer's confidence and date filters.
	Bounds Bounds `json:"-"`
}

// ScoredMemory is a memory with the score that ranked it.
type ScoredMemory struct {
	*Memory
	Score float64 `json:"score"`
	// Set on memories reached by graph expansion.
	Hop       int      `json:"hop,omitempty"`
	ViaEdge   Relation `json:"via_relation,omitempty"`
	ViaID     string   `json:"via_memory_id,omitempty"`
	Expansion bool     `json:"expanded,omitempty"`
}

// RecallResult is a ranked list of memories.
type RecallResult struct {
	Memories []ScoredMemory `json:"memories"`
	// Expanded holds memories reached along edges from the direct hits.
	Expanded []ScoredMemory `json:"expanded,omitempty"`
	Total    int            `json:"total"`
	// SearchMode is what contributed: "hybrid" (keywords + vectors) or
	// "keyword" (no vector to compare: Ollama down, nothing embedded yet...).
	SearchMode string `json:"search_mode"`
	// Degraded is true when vectors could not be used; Reason says why.
	Degraded bool   `json:"degraded"`
	Reason   string `json:"degraded_reason,omitempty"`
	// VectorWeight is how much the vector ranking counted in hybrid mode, from
	// 0 (the vectors look meaningless) to 1 (see vectorShare).
	VectorWeight float64 `json:"vector_weight"`
	// PendingEmbeddings is how many memories still wait for a vector (found by
	// keywords only meanwhile).
	PendingEmbeddings int `json:"pending_embeddings"`
}

// RelateRequest links two memories.
type RelateRequest struct {
	SourceID string   `json:"source_id"`
	TargetID string   `json:"target_id"`
	Relation Relation `json:"relation"`
	Weight   *float64 `json:"weight,omitempty"` // default 1.0
	// Force lets a supersedes edge mark a golden rule as superseded (see
	// Service.ResolveContradiction: the same rule at every door).
	Force bool `json:"force,omitempty"`
}

// EdgeForgetRequest removes edges by id, by memory (with direction), or by pair;
// Relation narrows any of them.
type EdgeForgetRequest struct {
	EdgeID    int64     `json:"edge_id,omitempty"`
	MemoryID  string    `json:"memory_id,omitempty"`
	Direction Direction `json:"direction,omitempty"`
	SourceID  string    `json:"source_id,omitempty"`
	TargetID  string    `json:"target_id,omitempty"`
	Relation  Relation  `json:"relation,omitempty"`
}

// EdgeForgetResult lists the removed edges.
type EdgeForgetResult struct {
	DeletedIDs   []int64 `json:"deleted_ids"`
	DeletedCount int     `json:"deleted_count"`
}

// InspectRequest walks the graph around a memory.
type InspectRequest struct {
	MemoryID      string     `json:"memory_id"`
	MaxDepth      int        `json:"max_depth,omitempty"` // default 2
	Direction     Direction  `json:"direction,omitempty"` // default both
	EdgeTypes     []Relation `json:"edge_types,omitempty"`
	IncludeScores bool       `json:"include_scores"`
	DecayFactor   float64    `json:"decay_factor,omitempty"`  // default 0.7
	OutputFormat  string     `json:"output_format,omitempty"` // json (default) or mermaid
}

// GraphNode is a memory in an inspected graph.
type GraphNode struct {
	ID         string  `json:"id"`
	Content    string  `json:"content_preview"`
	Type       Type    `json:"memory_type"`
	Namespace  string  `json:"namespace"`
	Confidence float64 `json:"confidence"`
	Importance float64 `json:"importance"`
	Depth      int     `json:"depth"`
}

// GraphPath is the way from the origin to a node, with its relevance
// (product of edge weights times decay per hop).
type GraphPath struct {
	NodeIDs   []string   `json:"node_ids"`
	Relations []Relation `json:"relations"`
	Relevance float64    `json:"relevance,omitempty"`
}

// GraphStats summarises an inspected graph.
type GraphStats struct {
	NodeCount       int              `json:"node_count"`
	EdgeCount       int              `json:"edge_count"`
	MaxDepthReached int              `json:"max_depth_reached"`
	RelationCounts  map[Relation]int `json:"relation_counts"`
}

// InspectResult is the neighbourhood of a memory.
type InspectResult struct {
	Origin  string      `json:"origin_id"`
	Nodes   []GraphNode `json:"nodes"`
	Edges   []Edge      `json:"edges"`
	Paths   []GraphPath `json:"paths"`
	Stats   GraphStats  `json:"stats"`
	Mermaid string      `json:"mermaid,omitempty"`
}

// ForgetRequest deletes memories by id, by query, or by Input (an id or a query,
// told apart by LooksLikeID). Golden rules are refused unless Force.
type ForgetRequest struct {
	MemoryID  string `json:"memory_id,omitempty"`
	Query     string `json:"query,omitempty"`
	Input     string `json:"input,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	NResults  int    `json:"n_results,omitempty"` // default 5
	// Confirm false makes a dry run: what would be deleted is reported, nothing is.
	Confirm bool `json:"confirm"`
	Force   bool `json:"force,omitempty"`
	// Trash keeps what is deleted restorable for a while (the viewer's delete,
	// where a person can undo). Tools and the CLI delete for good.
	Trash bool `json:"-"`
	// Archive sets what is deleted aside until a person restores it (the
	// viewer's review of stale memories); it is never purged.
	Archive bool `json:"-"`
}

// ForgetResult lists what was (or, unconfirmed, would be) deleted and what was
// refused as a protected golden rule.
type ForgetResult struct {
	DeletedIDs   []string `json:"deleted_ids"`
	DeletedCount int      `json:"deleted_count"`
	// Deleted names every deleted memory with the start of its content.
	Deleted   []ForgottenMemory `json:"deleted"`
	Protected []string          `json:"protected_ids,omitempty"`
	DryRun    bool              `json:"dry_run,omitempty"`
	Mode      string            `json:"mode"` // "id" or "query"
	// Message says what happened in words, "nothing deleted" included.
	Message string `json:"message"`
}

// ForgottenMemory is one memory a forget deleted (or, in a dry run, would).
type ForgottenMemory struct {
	ID      string `json:"id"`
	Preview string `json:"preview"`
}

// ListRequest pages through memories.
type ListRequest struct {
	Namespace         string `json:"namespace,omitempty"`
	Type              Type   `json:"memory_type,omitempty"`
	Limit             int    `json:"limit,omitempty"`    // default 100, max 1000
	Offset            int    `json:"offset,omitempty"`   // default 0
	OrderBy           string `json:"order_by,omitempty"` // default created_at
	Descending        *bool  `json:"descending,omitempty"`
	IncludeSuperseded bool   `json:"include_superseded,omitempty"`
	Bounds            Bounds `json:"-"` // the viewer's confidence and date filters
}

// ListResult is one page of memories.
type ListResult struct {
	Memories []*Memory `json:"memories"`
	Count    int       `json:"count"`
	Total    int       `json:"total"`
	Limit    int       `json:"limit"`
	Offset   int       `json:"offset"`
	HasMore  bool      `json:"has_more"`
}

// CountRequest counts memories.
type CountRequest struct {
	Namespace string `json:"namespace,omitempty"`
	Type      Type   `json:"memory_type,omitempty"`
}

// FileActivityRequest records one touch of a file.
type FileActivityRequest struct {
	FilePath    string         `json:"file_path"`
	Action      string         `json:"action"`
	SessionID   string         `json:"session_id,omitempty"`
	ProjectRoot string         `json:"project_root,omitempty"`
	FileType    string         `json:"file_type,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// RecentFilesRequest asks for recently touched files.
type RecentFilesRequest struct {
	ProjectRoot string `json:"project_root,omitempty"`
	Limit       int    `json:"limit,omitempty"` // default 20
	Days        int    `json:"days,omitempty"`  // default 14
}
