package sqlite

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/privacy"
)

// readPython converts the Python Recall's rows to Recall's records. Nothing is
// dropped: a value Recall does not accept (a type such as "general", a
// namespace such as "default", a relation such as "related", a weight above 1)
// is mapped to the nearest accepted one and the original kept in metadata
// under a "python_" key.
func readPython(ctx context.Context, q querier) (memory.Records, error) {
	var recs memory.Records
	steps := []struct {
		table string
		add   func(pyRow)
	}{
		{"memories", func(r pyRow) { recs.Memories = append(recs.Memories, pythonMemory(r)) }},
		{"edges", func(r pyRow) { recs.Edges = append(recs.Edges, pythonEdge(r)) }},
		{"validation_events", func(r pyRow) { recs.Events = append(recs.Events, pythonEvent(r)) }},
		{"file_activity", func(r pyRow) {
			recs.Files = append(recs.Files, memory.FileRow{FileActivity: pythonFile(r), Touches: 1})
		}},
	}
	for _, st := range steps {
		rows, err := readTable(ctx, q, st.table)
		if err != nil {
			return recs, fmt.Errorf("%s: %w", st.table, err)
		}
		for _, r := range rows {
			st.add(r)
		}
	}
	return recs, nil
}

// pythonMemory converts a Python Recall memory. Its content is cleaned as
// every way text enters Recall is (<private> sections dropped, secrets
// redacted: privacy.Clean); the backup made before the conversion keeps it
// as it was.
func pythonMemory(r pyRow) *memory.Memory {
	content := privacy.Clean(r.text("content"))
	m := &memory.Memory{
		ID:          r.text("id"),
		Content:     content,
		ContentHash: memory.ContentHash(content), // the first 16 of the 64 hex Python stores
		Metadata:    r.metadata("metadata"),
		CreatedAt:   orNowUTC(r.time("created_at")),
		AccessCount: int(numberOr(r, 0, "access_count")),
		Importance:  numberOr(r, memory.DefaultImportance, "importance"),
		Confidence:  numberOr(r, memory.DefaultConfidence, "confidence"),
		Source:      memory.SourceImport, // migrated from the Python version's database
	}
	m.UpdatedAt = orTime(r.time("updated_at"), m.CreatedAt)
	m.AccessedAt = orTime(r.time("accessed_at", "last_accessed"), m.CreatedAt)
	m.Importance, m.Confidence = clamp01(m.Importance), clamp01(m.Confidence)

	typ := r.text("type", "memory_type")
	if t, err := memory.ParseType(typ); err == nil {
		m.Type = t
	} else {
		m.Type = memory.TypeSession // the Python Recall reads unknown types as session too
		m.Metadata["python_type"] = typ
	}
	ns := r.text("namespace")
	if memory.ValidateNamespace(ns) == nil {
		m.Namespace = ns
	} else {
		m.Namespace = memory.GlobalNamespace
		m.Metadata["python_namespace"] = ns
	}
	return m
}

// pythonRelations maps the Python Recall's older edge types onto Recall's.
var pythonRelations = map[string]memory.Relation{"related": memory.RelationRelatesTo, "related_to": memory.RelationRelatesTo}

func pythonEdge(r pyRow) memory.Edge {
	id, _ := r.number("id")
	e := memory.Edge{
		ID:        int64(id),
		SourceID:  r.text("source_id"),
		TargetID:  r.text("target_id"),
		Weight:    numberOr(r, memory.DefaultEdgeWeight, "weight"),
		Metadata:  r.metadata("metadata"),
		CreatedAt: orNowUTC(r.time("created_at")),
	}
	typ := r.text("edge_type", "relation")
	if rel, err := memory.ParseRelation(typ); err == nil {
		e.Relation = rel
	} else {
		e.Relation = memory.RelationRelatesTo
		if mapped, ok := pythonRelations[typ]; ok {
			e.Relation = mapped
		}
		e.Metadata["python_edge_type"] = typ
	}
	if e.Weight <= 0 || e.Weight > 1 || math.IsNaN(e.Weight) {
		e.Metadata["python_weight"] = e.Weight
		e.Weight = max(math.SmallestNonzeroFloat32, min(1, e.Weight))
		if math.IsNaN(e.Weight) {
			e.Weight = memory.DefaultEdgeWeight
		}
	}
	return e
}

func pythonEvent(r pyRow) memory.ValidationEvent {
	id, _ := r.number("id")
	before := numberOr(r, memory.DefaultConfidence, "confidence_before", "old_confidence")
	return memory.ValidationEvent{
		ID:               int64(id),
		MemoryID:         r.text("memory_id"),
		EventType:        memory.EventType(r.text("event_type")),
		Context:          privacy.Clean(r.text("context")),
		ErrorMsg:         privacy.Clean(r.text("error_msg", "error_message")),
		SessionID:        r.text("session_id"),
		ConfidenceBefore: before,
		ConfidenceAfter:  numberOr(r, before, "confidence_after", "new_confidence"),
		CreatedAt:        orNowUTC(r.time("created_at", "timestamp")),
	}
}

func pythonFile(r pyRow) memory.FileActivity {
	id, _ := r.number("id")
	return memory.FileActivity{
		ID:          int64(id),
		FilePath:    r.text("file_path"),
		Action:      memory.FileAction(r.text("action")),
		SessionID:   r.text("session_id"),
		ProjectRoot: r.text("project_root"),
		FileType:    r.text("file_type"),
		Metadata:    r.metadata("metadata"),
		CreatedAt:   orNowUTC(r.time("created_at", "timestamp", "accessed_at")),
	}
}

func numberOr(r pyRow, fallback float64, names ...string) float64 {
	if v, ok := r.number(names...); ok {
		return v
	}
	return fallback
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return max(0, min(1, v))
}

func orTime(t, fallback time.Time) time.Time {
	if t.IsZero() {
		return fallback
	}
	return t
}

func orNowUTC(t time.Time) time.Time { return orTime(t, time.Now().UTC()) }
