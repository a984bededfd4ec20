// Package pyrecall builds, for tests, a database as the Python Recall leaves
// it: its schema statement for statement and rows written the way its
// SQLiteStore writes them (REAL epoch times, the full 64-hex SHA-256 as
// content_hash, JSON metadata or NULL, an outbox row per memory).
package pyrecall

import (
	"crypto/sha256"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"

	_ "github.com/mattn/go-sqlite3" // the plain driver: the Python Recall knows nothing of ours
)

//go:embed schema.sql
var schema string

// Memory is a row of the Python Recall's memories table.
type Memory struct {
	ID          string
	Content     string
	Type        string
	Namespace   string
	Importance  float64
	Confidence  float64
	CreatedAt   float64 // time.time()
	AccessedAt  float64
	AccessCount int
	Metadata    map[string]any // nil is stored as NULL, as json.dumps is skipped for None
}

// Edge is a row of its edges table.
type Edge struct {
	Source, Target, Type string
	Weight               float64
	CreatedAt            float64
	Metadata             map[string]any
}

// Event is a row of its validation_events table.
type Event struct {
	MemoryID, Type, Context, SessionID, ErrorMsg string
	CreatedAt                                    float64
}

// File is a row of its file_activity table.
type File struct {
	Path, Action, SessionID, ProjectRoot, FileType string
	CreatedAt                                      float64
}

// Data is what a Python Recall database holds.
type Data struct {
	Memories []Memory
	Edges    []Edge
	Events   []Event
	Files    []File
}

// Create writes a Python Recall database at path with data.
func Create(path string, d Data) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return fmt.Errorf("python schema: %w", err)
	}
	for _, m := range d.Memories {
		sum := sha256.Sum256([]byte(m.Content))
		if _, err := tx.Exec(`INSERT INTO memories (id, content, content_hash, type, namespace, importance,
			created_at, accessed_at, access_count, metadata, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.ID, m.Content, hex.EncodeToString(sum[:]), m.Type, m.Namespace, m.Importance,
			m.CreatedAt, m.AccessedAt, m.AccessCount, jsonOrNull(m.Metadata), m.Confidence); err != nil {
			return fmt.Errorf("memory %s: %w", m.ID, err)
		}
		if _, err := tx.Exec(`INSERT INTO outbox (memory_id, operation, created_at) VALUES (?, 'add', ?)`, m.ID, m.CreatedAt); err != nil {
			return err
		}
	}
	for _, e := range d.Edges {
		if _, err := tx.Exec(`INSERT INTO edges (source_id, target_id, edge_type, weight, created_at, metadata) VALUES (?, ?, ?, ?, ?, ?)`,
			e.Source, e.Target, e.Type, e.Weight, e.CreatedAt, jsonOrNull(e.Metadata)); err != nil {
			return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
		}
	}
	for _, ev := range d.Events {
		if _, err := tx.Exec(`INSERT INTO validation_events (memory_id, event_type, context, session_id, error_msg, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			ev.MemoryID, ev.Type, ev.Context, ev.SessionID, ev.ErrorMsg, ev.CreatedAt); err != nil {
			return err
		}
	}
	for _, f := range d.Files {
		if _, err := tx.Exec(`INSERT INTO file_activity (file_path, action, session_id, project_root, file_type, metadata, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)`,
			f.Path, f.Action, f.SessionID, f.ProjectRoot, f.FileType, f.CreatedAt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func jsonOrNull(m map[string]any) any {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Sample is a small Python Recall database with one of everything: every
// memory type the Python Recall writes (and its sqlite layer's defaults
// "general" and "default"), a golden rule, edges of each kind including the
// old "related", validation events and file activity.
func Sample() Data {
	t0 := 1735689600.123456 // 2025-01-01T00:00:00.123456Z
	return Data{
		Memories: []Memory{
			{ID: "mem_1735689600123456_0a1b2c3d", Content: "User prefers dark mode in every editor", Type: "preference", Namespace: "global", Importance: 0.8, Confidence: 0.6, CreatedAt: t0, AccessedAt: t0 + 3600, AccessCount: 4, Metadata: map[string]any{"source": "chat"}},
			{ID: "3f2b8c1e-5d4a-4b6f-9e8d-7c6b5a4f3e2d", Content: "Use PostgreSQL for the billing service", Type: "decision", Namespace: "project:billing", Importance: 0.9, Confidence: 0.3, CreatedAt: t0 + 60, AccessedAt: t0 + 60},
			{ID: "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", Content: "Wrap errors with context before returning them", Type: "pattern", Namespace: "global", Importance: 0.5, Confidence: 0.1, CreatedAt: t0 + 120, AccessedAt: t0 + 120},
			{ID: "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", Content: "Never commit secrets to the repository", Type: "golden_rule", Namespace: "global", Importance: 1.0, Confidence: 0.95, CreatedAt: t0 + 180, AccessedAt: t0 + 180, Metadata: map[string]any{"promoted_from": "preference"}},
			{ID: "mem_1735689840000000_deadbeef", Content: "Session: refactored the billing importer", Type: "session", Namespace: "project:billing", Importance: 0.4, Confidence: 0.3, CreatedAt: t0 + 240, AccessedAt: t0 + 240},
			{ID: "mem_1735689900000000_cafebabe", Content: "An old note from the first release", Type: "general", Namespace: "default", Importance: 0.5, Confidence: 0.3, CreatedAt: t0 + 300, AccessedAt: t0 + 300},
			{ID: "mem_1735689960000000_feedface", Content: "Use MySQL for the billing service", Type: "decision", Namespace: "project:billing", Importance: 0.45, Confidence: 0.2, CreatedAt: t0 + 360, AccessedAt: t0 + 360},
		},
		Edges: []Edge{
			{Source: "3f2b8c1e-5d4a-4b6f-9e8d-7c6b5a4f3e2d", Target: "mem_1735689960000000_feedface", Type: "contradicts", Weight: 1.0, CreatedAt: t0 + 400, Metadata: map[string]any{"reason": "two databases"}},
			{Source: "mem_1735689840000000_deadbeef", Target: "3f2b8c1e-5d4a-4b6f-9e8d-7c6b5a4f3e2d", Type: "caused_by", Weight: 0.8, CreatedAt: t0 + 410},
			{Source: "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", Target: "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", Type: "relates_to", Weight: 0.5, CreatedAt: t0 + 420},
			{Source: "mem_1735689900000000_cafebabe", Target: "mem_1735689600123456_0a1b2c3d", Type: "related", Weight: 1.0, CreatedAt: t0 + 430},
		},
		Events: []Event{
			{MemoryID: "mem_1735689600123456_0a1b2c3d", Type: "applied", Context: "set up the editor", SessionID: "s1", CreatedAt: t0 + 500},
			{MemoryID: "mem_1735689600123456_0a1b2c3d", Type: "succeeded", SessionID: "s1", CreatedAt: t0 + 510},
			{MemoryID: "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d", Type: "failed", SessionID: "s2", ErrorMsg: "lost the stack", CreatedAt: t0 + 520},
		},
		Files: []File{
			{Path: "/src/billing/main.go", Action: "edit", SessionID: "s1", ProjectRoot: "/src/billing", FileType: "go", CreatedAt: t0 + 600},
			{Path: "/src/billing/README.md", Action: "read", SessionID: "s1", ProjectRoot: "/src/billing", FileType: "markdown", CreatedAt: t0 + 610},
		},
	}
}
