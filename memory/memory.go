// Package memory is Recall's domain: memories, edges, validation events and file
// activity, the rules that hold for every memory, the interfaces the domain needs
// from the outside world (Store, Embedder, Judge, Curator) and the Service that
// carries out every operation. It imports nothing else of the project.
package memory

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Type is the kind of a memory.
type Type string

const (
	TypePreference  Type = "preference"
	TypeDecision    Type = "decision"
	TypePattern     Type = "pattern"
	TypeSession     Type = "session"
	TypeFileContext Type = "file_context"
	TypeGoldenRule  Type = "golden_rule"
)

// Types lists every memory type in a stable order (used in messages and context).
var Types = []Type{TypePreference, TypeDecision, TypePattern, TypeSession, TypeFileContext, TypeGoldenRule}

// ParseType validates a type name; the error lists what is accepted.
func ParseType(s string) (Type, error) {
	return parseName("memory_type", s, Types...)
}

// Promotable reports whether a memory of this type becomes a golden rule when its
// confidence reaches GoldenRuleThreshold.
func (t Type) Promotable() bool {
	return t == TypePreference || t == TypeDecision || t == TypePattern
}

// Relation is the kind of an edge between two memories.
type Relation string

const (
	RelationRelatesTo   Relation = "relates_to"
	RelationSupersedes  Relation = "supersedes"
	RelationCausedBy    Relation = "caused_by"
	RelationContradicts Relation = "contradicts"
)

// Relations lists every relation in a stable order.
var Relations = []Relation{RelationRelatesTo, RelationSupersedes, RelationCausedBy, RelationContradicts}

// ParseRelation validates a relation name; the error lists what is accepted.
func ParseRelation(s string) (Relation, error) {
	return parseName("relation", s, Relations...)
}

// Confidence rules of the validation loop.
const (
	DefaultConfidence    = 0.3
	SuccessDelta         = 0.1
	FailureDelta         = 0.15
	GoldenRuleThreshold  = 0.9
	LowConfidenceCutoff  = 0.15
	DefaultImportance    = 0.5
	MaxContentBytes      = 64 * 1024 // a memory is a note, not a file dump
	MaxMetadataBytes     = 16 * 1024
	MaxQueryBytes        = 4 * 1024
	MaxListLimit         = 1000
	GlobalNamespace      = "global"
	ProjectNamespacePref = "project:"
)

// Memory is one remembered thing.
type Memory struct {
	ID          string         `json:"id"`
	Content     string         `json:"content"`
	ContentHash string         `json:"content_hash"`
	Type        Type           `json:"memory_type"`
	Namespace   string         `json:"namespace"`
	Importance  float64        `json:"importance"`
	Confidence  float64        `json:"confidence"`
	Metadata    map[string]any `json:"metadata"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
	AccessedAt  time.Time      `json:"accessed_at"`
	AccessCount int            `json:"access_count"`
	// EmbeddingPending is true while the memory has no vector yet (Ollama was
	// unreachable when it was stored); it is searchable by keywords meanwhile.
	EmbeddingPending bool `json:"embedding_pending,omitempty"`
	// Author is who stored it on a team server (see Principal.Author).
	Author string `json:"author,omitempty"`
	// Source is the door it came in through: SourceMCP, SourceCLI,
	// SourceViewer, SourceCapture or SourceImport (see WithSource); empty
	// for memories stored before Recall recorded it.
	Source string `json:"source,omitempty"`
}

// IsGolden reports whether the memory is a golden rule.
func (m *Memory) IsGolden() bool { return m.Type == TypeGoldenRule }

// Edge is a directed, typed link between two memories.
type Edge struct {
	ID        int64          `json:"id"`
	SourceID  string         `json:"source_id"`
	TargetID  string         `json:"target_id"`
	Relation  Relation       `json:"relation"`
	Weight    float64        `json:"weight"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	Author    string         `json:"author,omitempty"` // who related the two (see Principal.Author)
}

// EventType is the kind of a validation event.
type EventType string

const (
	EventApplied   EventType = "applied"
	EventSucceeded EventType = "succeeded"
	EventFailed    EventType = "failed"
)

// ParseEventType validates an event type name.
func ParseEventType(s string) (EventType, error) {
	return parseName("event_type", s, EventApplied, EventSucceeded, EventFailed)
}

// ValidationEvent records one step of the validation loop.
type ValidationEvent struct {
	ID               int64     `json:"id"`
	MemoryID         string    `json:"memory_id"`
	EventType        EventType `json:"event_type"`
	Context          string    `json:"context,omitempty"`
	ErrorMsg         string    `json:"error_msg,omitempty"`
	SessionID        string    `json:"session_id,omitempty"`
	ConfidenceBefore float64   `json:"confidence_before"`
	ConfidenceAfter  float64   `json:"confidence_after"`
	CreatedAt        time.Time `json:"created_at"`
	Author           string    `json:"author,omitempty"` // who applied or validated (see Principal.Author)
}

// FileAction is what was done to a file.
type FileAction string

const (
	ActionRead      FileAction = "read"
	ActionWrite     FileAction = "write"
	ActionEdit      FileAction = "edit"
	ActionMultiEdit FileAction = "multiedit"
)

// ParseFileAction validates an action name (case-insensitive, so hook tool names
// such as "MultiEdit" map directly).
func ParseFileAction(s string) (FileAction, error) {
	actions := []FileAction{ActionRead, ActionWrite, ActionEdit, ActionMultiEdit}
	if a, err := parseName("action", strings.ToLower(s), actions...); err == nil {
		return a, nil
	}
	return "", invalid("action", s, joinNames(actions))
}

// FileActivity is one recorded touch of a file.
type FileActivity struct {
	ID          int64          `json:"id"`
	FilePath    string         `json:"file_path"`
	Action      FileAction     `json:"action"`
	SessionID   string         `json:"session_id,omitempty"`
	ProjectRoot string         `json:"project_root,omitempty"`
	FileType    string         `json:"file_type,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
	Author      string         `json:"author,omitempty"` // whose session (empty: this machine's); a person reads their own alone
}

// FileSummary aggregates the activity of one file.
type FileSummary struct {
	FilePath     string         `json:"file_path"`
	FileType     string         `json:"file_type,omitempty"`
	ProjectRoot  string         `json:"project_root,omitempty"`
	AccessCount  int            `json:"access_count"`
	LastAccessed time.Time      `json:"last_accessed"`
	LastAction   FileAction     `json:"last_action"`
	Actions      map[string]int `json:"actions"`
}

// ValidateNamespace accepts "global", "project:<name>" with a non-empty name,
// and a person's "user:<name>".
func ValidateNamespace(ns string) error {
	if ns == GlobalNamespace {
		return nil
	}
	if person, ok := strings.CutPrefix(ns, PersonNamespacePref); ok {
		if ValidatePersonName(person) != nil {
			return invalid("namespace", ns, `"user:<name>" with a person's name (lowercase letters, digits, '-' and '_')`)
		}
		return nil
	}
	name, ok := strings.CutPrefix(ns, ProjectNamespacePref)
	if !ok || strings.TrimSpace(name) == "" || len(ns) > maxNamespaceBytes {
		return invalid("namespace", ns, `"global", "project:<name>" (a name of at most 248 bytes), "user:<name>" or "private"`)
	}
	// A namespace that looks like another one could hide memories from
	// whoever reads the first: no surrounding space, nothing invisible.
	switch {
	case !utf8.ValidString(name):
		return Invalidf("namespace", fmt.Sprintf("%q (not valid UTF-8)", ns), `"project:<name>" with a name in UTF-8`)
	case strings.TrimSpace(name) != name:
		return Invalidf("namespace", fmt.Sprintf("%q (space before or after the name)", ns), `"project:<name>" with no space around the name`)
	case strings.ContainsFunc(name, invisible):
		i := strings.IndexFunc(name, invisible)
		r, _ := utf8.DecodeRuneInString(name[i:])
		return Invalidf("namespace", fmt.Sprintf("%q (invisible character %U)", ns, r), `"project:<name>" with a name of visible characters (no control, zero-width or direction marks)`)
	}
	return nil
}

// maxIDBytes bounds a memory id: minted ones are 26 bytes, UUIDs 36.
const maxIDBytes = 64

// maxNamespaceBytes bounds a namespace, "project:" included.
const maxNamespaceBytes = 256

// ProjectNamespace returns the namespace of a project name.
func ProjectNamespace(name string) string { return ProjectNamespacePref + name }

// ContentHash is the dedup key, computed as the Python Recall computes it so
// that the same content deduplicates across the two: SHA-256 of the content's
// UTF-8 bytes, first 16 hex characters. Content is trimmed before it is stored
// and hashed; nothing else is normalised (Python does not), so "Run gofmt" and
// "run gofmt" are two memories in both.
func ContentHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])[:16]
}

// The id forms are compiled on first use: every process links this package,
// few check an id.
var (
	mintedID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^mem_[0-9]+_[0-9a-f]+$`) })
	uuidID   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	})
)

// NewID mints a memory id in the Python Recall's own form: mem_<unix ms>_<8 hex>.
func NewID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "mem_" + strconv.FormatInt(now.UnixMilli(), 10) + "_" + hex.EncodeToString(b[:])
}

// LooksLikeID reports whether s has the form of a memory id (ours or a UUID);
// forget uses it to tell an id from a query.
func LooksLikeID(s string) bool { return mintedID().MatchString(s) || uuidID().MatchString(s) }

// ValidateID checks the form of a memory id given by a caller.
func ValidateID(field, id string) error {
	if len(id) > maxIDBytes {
		// Not echoed: an error should not hand a megabyte back to the caller.
		return Invalidf(field, fmt.Sprintf("of %d bytes", len(id)), fmt.Sprintf("a memory id (mem_<digits>_<hex> or a UUID, at most %d bytes)", maxIDBytes))
	}
	if LooksLikeID(id) {
		return nil
	}
	return invalid(field, id, "a memory id (mem_<digits>_<hex> or a UUID)")
}

// parseName returns the one of names that s spells, or an error on field that
// lists them.
func parseName[T ~string](field, s string, names ...T) (T, error) {
	for _, n := range names {
		if string(n) == s {
			return n, nil
		}
	}
	return "", invalid(field, s, joinNames(names))
}

func joinNames[T ~string](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = string(x)
	}
	return strings.Join(parts, ", ")
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return fmt.Sprintf("%q", s)
}
