package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// The official MCP memory server (@modelcontextprotocol/server-memory) keeps a
// knowledge graph in memory.jsonl: entities with observations, and relations
// between entities named in the active voice.

const memoryServerMapping = "each entity became one session memory whose content is its name, its type and its observations (one a line), " +
	"with the entity kept in metadata (mcp_entity, mcp_entity_type, mcp_observations); each relation became a relates_to edge " +
	"from entity to entity, its relationType kept in metadata.mcp_relation_type"

type msEntity struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

type msRelation struct {
	Type         string `json:"type"`
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

// parseMemoryServer maps a memory.jsonl onto memories and edges.
func parseMemoryServer(lines []line, opts ImportOptions) (memory.Records, []LineError) {
	var recs memory.Records
	bad := []LineError{}
	ns := opts.Namespace
	if ns == "" {
		ns = memory.GlobalNamespace
	}
	now := time.Now().UTC()
	byName := map[string]string{}
	var relations []struct {
		n int
		r msRelation
	}
	for _, l := range lines {
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(l.text, &probe); err != nil {
			bad = append(bad, LineError{l.n, "not JSON: " + err.Error()})
			continue
		}
		switch probe.Type {
		case "entity":
			var e msEntity
			if err := json.Unmarshal(l.text, &e); err != nil || strings.TrimSpace(e.Name) == "" {
				bad = append(bad, LineError{l.n, "entity: want a name, an entityType and observations"})
				continue
			}
			if _, dup := byName[e.Name]; dup {
				bad = append(bad, LineError{l.n, fmt.Sprintf("entity %q appears twice", e.Name)})
				continue
			}
			m := entityMemory(e, ns, now.Add(time.Duration(len(recs.Memories))*time.Microsecond))
			if err := checkMemory(m); err != nil {
				bad = append(bad, LineError{l.n, fmt.Sprintf("entity %q: %v", e.Name, err)})
				continue
			}
			byName[e.Name] = m.ID
			recs.Memories = append(recs.Memories, m)
		case "relation":
			var r msRelation
			if err := json.Unmarshal(l.text, &r); err != nil {
				bad = append(bad, LineError{l.n, "relation: want from, to and relationType"})
				continue
			}
			relations = append(relations, struct {
				n int
				r msRelation
			}{l.n, r})
		default:
			bad = append(bad, LineError{l.n, fmt.Sprintf("type %q is neither entity nor relation", probe.Type)})
		}
	}
	for _, rel := range relations {
		src, tgt := byName[rel.r.From], byName[rel.r.To]
		if src == "" || tgt == "" || src == tgt {
			bad = append(bad, LineError{rel.n, fmt.Sprintf("relation %q -> %q names an entity the file does not have", rel.r.From, rel.r.To)})
			continue
		}
		recs.Edges = append(recs.Edges, memory.Edge{SourceID: src, TargetID: tgt, Relation: memory.RelationRelatesTo,
			Weight: memory.DefaultEdgeWeight, Metadata: map[string]any{"mcp_relation_type": rel.r.RelationType}, CreatedAt: now})
	}
	return recs, bad
}

// entityMemory is an entity as a memory a person and a search can read.
func entityMemory(e msEntity, ns string, at time.Time) *memory.Memory {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", e.Name, e.EntityType)
	for _, o := range e.Observations {
		b.WriteString("\n- " + o)
	}
	obs := make([]any, len(e.Observations))
	for i, o := range e.Observations {
		obs[i] = o
	}
	return &memory.Memory{
		ID: memory.NewID(at), Content: b.String(), Type: memory.TypeSession, Namespace: ns,
		Importance: memory.DefaultImportance, Confidence: memory.DefaultConfidence,
		Metadata:  map[string]any{"mcp_entity": e.Name, "mcp_entity_type": e.EntityType, "mcp_observations": obs},
		CreatedAt: at, UpdatedAt: at, AccessedAt: at, Source: memory.SourceImport,
	}
}

// ExportMemoryServer writes src as a memory.jsonl the MCP memory server reads:
// memories that came from it become their entities again; any other memory
// becomes an entity named by its id, typed by its memory type, with its
// content as the one observation; edges become relations.
func ExportMemoryServer(ctx context.Context, src Source, w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	names := map[string]string{}
	err := src.Export(ctx, memory.RecordVisitor{
		Memory: func(m *memory.Memory) error {
			e := memoryEntity(m)
			names[m.ID] = e.Name
			return enc.Encode(e)
		},
		Edge: func(e *memory.Edge) error {
			rel, _ := e.Metadata["mcp_relation_type"].(string)
			if rel == "" {
				rel = string(e.Relation)
			}
			return enc.Encode(msRelation{Type: "relation", From: names[e.SourceID], To: names[e.TargetID], RelationType: rel})
		},
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func memoryEntity(m *memory.Memory) msEntity {
	name, _ := m.Metadata["mcp_entity"].(string)
	if name == "" {
		return msEntity{Type: "entity", Name: m.ID, EntityType: string(m.Type), Observations: []string{m.Content}}
	}
	typ, _ := m.Metadata["mcp_entity_type"].(string)
	raw, _ := m.Metadata["mcp_observations"].([]any)
	obs := make([]string, 0, len(raw))
	for _, o := range raw {
		if s, ok := o.(string); ok {
			obs = append(obs, s)
		}
	}
	return msEntity{Type: "entity", Name: name, EntityType: typ, Observations: obs}
}
