package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Change is one entry of a memory's change log: what changed, when, from
// where and why. The store writes it in the transaction of the change.
type Change struct {
	ID        int64         `json:"id"`
	MemoryID  string        `json:"memory_id"`
	Namespace string        `json:"namespace"`
	At        time.Time     `json:"at"`
	Action    ChangeAction  `json:"action"`
	Source    string        `json:"source"`
	Fields    []FieldChange `json:"fields"`
	Reason    string        `json:"reason,omitempty"`
	// RelatedID is the other memory of a contradiction resolution.
	RelatedID string `json:"related_id,omitempty"`
	// Author is who made the change (see Principal.Author); the store fills it.
	Author string `json:"author,omitempty"`
}

// FieldChange is one field's value before and after a change (nil when it
// is not known, as for entries older than the change log).
type FieldChange struct {
	Field  string `json:"field"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// ChangeAction names what a change did.
type ChangeAction string

const (
	ChangeEdit    ChangeAction = "edit"
	ChangePromote ChangeAction = "promote"
	ChangeDemote  ChangeAction = "demote"
	ChangeDelete  ChangeAction = "delete"
	ChangeArchive ChangeAction = "archive" // deleted, kept in the trash until restored
	ChangeRestore ChangeAction = "restore"
	// Contradiction resolutions, recorded on both memories: the memory
	// superseded its related one, was superseded by it, both hold, or the
	// two were judged not to contradict (a later scan leaves the pair alone).
	ChangeSupersede        ChangeAction = "supersede"
	ChangeSupersededBy     ChangeAction = "superseded_by"
	ChangeBothHold         ChangeAction = "both_hold"
	ChangeNotContradiction ChangeAction = "not_contradiction"
)

// Where a change came from, and through which door a memory was stored
// (Memory.Source).
const (
	SourceViewer   = "viewer"
	SourceMCP      = "mcp"
	SourceCLI      = "cli"
	SourceHook     = "hook"
	SourceCuration = "curation" // Recall's own work: the automatic promotion, the curation worker
	SourceCapture  = "capture"  // a session's summary, written from what the hooks captured
	SourceImport   = "import"   // an import: recall import (without a recorded source), a memory server's file, the Python version's database
)

// SourceHeader carries a request's source over HTTP where it is not the
// endpoint's own: a client machine's CLI using the viewer's API sends
// SourceCLI, and its changes are recorded as the CLI's.
const SourceHeader = "Recall-Source"

type sourceKey struct{}

// WithSource says which door the work done with ctx came through (SourceCLI,
// say): a memory stored with ctx records it (Memory.Source), and so do the
// changes that have no field of their own to say it (a restore from the
// trash). Each door sets it once, where its requests come in.
func WithSource(ctx context.Context, source string) context.Context {
	return context.WithValue(ctx, sourceKey{}, source)
}

// SourceFrom is the source WithSource put in ctx, else fallback.
func SourceFrom(ctx context.Context, fallback string) string {
	if s, ok := ctx.Value(sourceKey{}).(string); ok && s != "" {
		return s
	}
	return fallback
}

// ValidateSource checks a door's name as a filter or an import gives it: a
// short lowercase word (SourceMCP, SourceCLI, ...; an import keeps the names
// another Recall recorded).
func ValidateSource(source string) error {
	ok := source != "" && len(source) <= 32
	for _, r := range source {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}
	if !ok {
		return invalid("source", source, "a door's name of at most 32 lowercase letters, digits, '-' or '_': "+strings.Join(Sources, ", "))
	}
	return nil
}

// Sources are the doors a memory comes in through, as recorded in
// Memory.Source.
var Sources = []string{SourceMCP, SourceCLI, SourceViewer, SourceCapture, SourceImport}

// ChangeQuery selects change log entries, newest first: one memory's, or
// those of some actions in some namespaces.
type ChangeQuery struct {
	MemoryID   string
	Namespaces []string
	Actions    []ChangeAction
	Limit      int
}

// MaxChanges is the most entries one listing returns.
const MaxChanges = 500

// Changes lists a memory's change log, newest first (at most MaxChanges).
func (s *Service) Changes(ctx context.Context, id string) ([]Change, error) {
	if err := ValidateID("memory_id", id); err != nil {
		return nil, err
	}
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	return s.store.Changes(ctx, ChangeQuery{MemoryID: id, Limit: MaxChanges})
}

// GoldenAudit lists every promotion and demotion of golden rules in the
// namespaces, newest first (at most MaxChanges).
func (s *Service) GoldenAudit(ctx context.Context, namespaces []string) ([]Change, error) {
	return s.store.Changes(ctx, ChangeQuery{Namespaces: namespaces, Actions: []ChangeAction{ChangePromote, ChangeDemote}, Limit: MaxChanges})
}

// ResolutionRequest records a person's verdict on a contradiction between
// MemoryID and RelatedID (the edges themselves are changed by the graph
// operations): Action is one of the resolution actions, as seen from MemoryID.
type ResolutionRequest struct {
	MemoryID  string
	RelatedID string
	Action    ChangeAction
	Reason    string
	Source    string
}

// RecordResolution writes a resolution on both memories' logs, each seen
// from its side, in one transaction.
func (s *Service) RecordResolution(ctx context.Context, req ResolutionRequest) error {
	if err := ValidateID("memory_id", req.MemoryID); err != nil {
		return err
	}
	if err := ValidateID("related_id", req.RelatedID); err != nil {
		return err
	}
	reason, err := optionalReason(req.Reason)
	if err != nil {
		return err
	}
	mirror := map[ChangeAction]ChangeAction{
		ChangeSupersede: ChangeSupersededBy, ChangeSupersededBy: ChangeSupersede,
		ChangeBothHold: ChangeBothHold, ChangeNotContradiction: ChangeNotContradiction,
	}
	other, ok := mirror[req.Action]
	if !ok {
		return invalid("action", string(req.Action), "supersede, superseded_by, both_hold, not_contradiction")
	}
	ms, err := s.store.GetMemories(ctx, []string{req.MemoryID, req.RelatedID})
	if err != nil {
		return err
	}
	for _, id := range []string{req.MemoryID, req.RelatedID} {
		if ms[id] == nil {
			return NotFound("memory", id)
		}
	}
	now := s.now()
	source := changeSource(req.Source)
	return s.store.AddChanges(ctx,
		Change{MemoryID: req.MemoryID, Namespace: ms[req.MemoryID].Namespace, At: now, Action: req.Action, Source: source, Reason: reason, RelatedID: req.RelatedID},
		Change{MemoryID: req.RelatedID, Namespace: ms[req.RelatedID].Namespace, At: now, Action: other, Source: source, Reason: reason, RelatedID: req.MemoryID},
	)
}

// optionalReason trims a reason a person may leave empty.
func optionalReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if len(reason) > maxReasonLen {
		return "", invalid("reason", reason[:40]+"...", fmt.Sprintf("at most %d bytes", maxReasonLen))
	}
	return reason, nil
}

// changeSource is where a change came from: the caller's name, "unknown"
// without one.
func changeSource(source string) string {
	source = strings.TrimSpace(source)
	if source == "" {
		return "unknown"
	}
	if len(source) > 64 {
		source = source[:64]
	}
	return source
}

// Of ties the entry to m as it is after the change: m's id, and m's namespace
// and update time unless the entry already has them. Every store calls it
// before writing the entry.
func (c *Change) Of(m *Memory) {
	c.MemoryID = m.ID
	if c.Namespace == "" {
		c.Namespace = m.Namespace
	}
	if c.At.IsZero() {
		c.At = m.UpdatedAt
	}
}
