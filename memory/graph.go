package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Graph defaults and limits.
const (
	DefaultEdgeWeight   = 1.0
	DefaultInspectDepth = 2
	previewRunes        = 100
)

// Inspect output formats.
const (
	FormatJSON    = "json"
	FormatMermaid = "mermaid"
)

// Relate links two existing, distinct memories and returns the edge id. The
// same (source, target, relation) again updates the weight of the existing
// edge. Weights lie in (0, 1], default 1: expansion and path relevance multiply
// by them, so a weight above 1 would rank a related memory above the memory it
// was reached from. A supersedes edge follows the rule of every door
// (maySupersede): a golden rule only with Force, never against the edge the
// other way round.
func (s *Service) Relate(ctx context.Context, req RelateRequest) (int64, error) {
	if err := ValidateID("source_id", req.SourceID); err != nil {
		return 0, err
	}
	if err := ValidateID("target_id", req.TargetID); err != nil {
		return 0, err
	}
	if req.SourceID == req.TargetID {
		return 0, invalid("target_id", req.TargetID, "a memory other than source_id (no self-edges)")
	}
	rel, err := ParseRelation(string(req.Relation))
	if err != nil {
		return 0, err
	}
	weight := DefaultEdgeWeight
	if req.Weight != nil {
		weight = *req.Weight
	}
	if math.IsNaN(weight) || weight <= 0 || weight > 1 {
		return 0, Invalidf("weight", weight, "a number greater than 0 and at most 1")
	}
	found, err := s.store.GetMemories(ctx, []string{req.SourceID, req.TargetID})
	if err != nil {
		return 0, fmt.Errorf("loading memories: %w", err)
	}
	if found[req.SourceID] == nil {
		return 0, NotFound("source memory", req.SourceID)
	}
	if found[req.TargetID] == nil {
		return 0, NotFound("target memory", req.TargetID)
	}
	if rel == RelationSupersedes {
		if err := s.maySupersede(ctx, req.SourceID, req.TargetID, req.Force); err != nil {
			return 0, err
		}
	}
	id, err := s.store.InsertEdge(ctx, &Edge{
		SourceID:  req.SourceID,
		TargetID:  req.TargetID,
		Relation:  rel,
		Weight:    weight,
		CreatedAt: s.now(),
	})
	if err != nil {
		return 0, fmt.Errorf("storing edge: %w", err)
	}
	return id, nil
}

// ForgetEdges removes edges selected by exactly one of: EdgeID; MemoryID with
// Direction (default both); SourceID and TargetID (edges from source to
// target; with Direction both, either way round). Relation narrows any of them.
// Nothing matching is not an error: the count is zero.
func (s *Service) ForgetEdges(ctx context.Context, req EdgeForgetRequest) (*EdgeForgetResult, error) {
	q, err := parseEdgeForget(req)
	if err != nil {
		return nil, err
	}
	ids, err := s.store.DeleteEdges(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("deleting edges: %w", err)
	}
	if ids == nil {
		ids = []int64{}
	}
	return &EdgeForgetResult{DeletedIDs: ids, DeletedCount: len(ids)}, nil
}

func parseEdgeForget(req EdgeForgetRequest) (EdgeQuery, error) {
	var q EdgeQuery
	selectors := 0
	if req.EdgeID != 0 {
		selectors++
		if req.EdgeID < 0 {
			return q, Invalidf("edge_id", req.EdgeID, "a positive edge id")
		}
		q.EdgeIDs = []int64{req.EdgeID}
	}
	if req.MemoryID != "" {
		selectors++
		if err := ValidateID("memory_id", req.MemoryID); err != nil {
			return q, err
		}
		q.MemoryIDs = []string{req.MemoryID}
		q.Direction = DirectionBoth
	}
	if req.SourceID != "" || req.TargetID != "" {
		selectors++
		if err := ValidateID("source_id", req.SourceID); err != nil {
			return q, err
		}
		if err := ValidateID("target_id", req.TargetID); err != nil {
			return q, err
		}
		q.SourceID, q.TargetID = req.SourceID, req.TargetID
		q.Direction = DirectionOutgoing
	}
	if selectors != 1 {
		return q, Invalidf("edge selector", fmt.Sprintf("(%d given)", selectors), "exactly one of edge_id, memory_id (with direction), or source_id and target_id")
	}
	if req.Direction != "" {
		d, err := ParseDirection(string(req.Direction))
		if err != nil {
			return q, err
		}
		if q.EdgeIDs == nil {
			q.Direction = d
		}
	}
	if req.Relation != "" {
		r, err := ParseRelation(string(req.Relation))
		if err != nil {
			return q, err
		}
		q.Relations = []Relation{r}
	}
	return q, nil
}

// Inspect walks the graph around a memory breadth first, up to MaxDepth hops
// in Direction along EdgeTypes (all when empty), and returns the nodes, the
// edges among them, the shortest path from the origin to every other node (with
// its relevance, the product of edge weights x DecayFactor^depth, when
// IncludeScores) and a Mermaid diagram when OutputFormat is mermaid.
func (s *Service) Inspect(ctx context.Context, req InspectRequest) (*InspectResult, error) {
	q, err := parseInspect(req)
	if err != nil {
		return nil, err
	}
	origin, err := s.store.GetMemory(ctx, req.MemoryID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, NotFound("memory", req.MemoryID)
		}
		return nil, err
	}
	g, err := s.walk(ctx, origin, q)
	if err != nil {
		return nil, err
	}
	res := g.result(origin.ID, req.IncludeScores)
	if q.format == FormatMermaid {
		res.Mermaid = mermaid(res)
	}
	return res, nil
}

type inspectQuery struct {
	depth     int
	direction Direction
	relations []Relation
	decay     float64
	format    string
}

func parseInspect(req InspectRequest) (inspectQuery, error) {
	var q inspectQuery
	var err error
	if err = ValidateID("memory_id", req.MemoryID); err != nil {
		return q, err
	}
	if q.depth, err = intInRange("max_depth", req.MaxDepth, DefaultInspectDepth, 1, MaxGraphDepth); err != nil {
		return q, err
	}
	q.direction = DirectionBoth
	if req.Direction != "" {
		if q.direction, err = ParseDirection(string(req.Direction)); err != nil {
			return q, err
		}
	}
	if q.relations, err = parseRelations("edge_types", req.EdgeTypes); err != nil {
		return q, err
	}
	if q.decay, err = checkDecay(req.DecayFactor, DefaultDecayFactor); err != nil {
		return q, err
	}
	switch req.OutputFormat {
	case "", FormatJSON:
		q.format = FormatJSON
	case FormatMermaid:
		q.format = FormatMermaid
	default:
		return q, invalid("output_format", req.OutputFormat, "json, mermaid")
	}
	return q, nil
}

// graphWalk is the state of a breadth-first walk from one memory.
type graphWalk struct {
	order []*Memory         // nodes in discovery order, origin first
	depth map[string]int    // node id -> hops from the origin
	via   map[string]Edge   // node id -> edge it was reached by
	from  map[string]string // node id -> node it was reached from
	rel   map[string]float64
	edges map[int64]Edge
	decay float64
}

func (s *Service) walk(ctx context.Context, origin *Memory, q inspectQuery) (*graphWalk, error) {
	g := &graphWalk{
		order: []*Memory{origin},
		depth: map[string]int{origin.ID: 0},
		via:   map[string]Edge{},
		from:  map[string]string{},
		rel:   map[string]float64{origin.ID: 1},
		edges: map[int64]Edge{},
		decay: q.decay,
	}
	frontier := []string{origin.ID}
	for d := 1; d <= q.depth && len(frontier) > 0; d++ {
		edges, err := s.store.Edges(ctx, EdgeQuery{MemoryIDs: frontier, Direction: q.direction, Relations: q.relations})
		if err != nil {
			return nil, fmt.Errorf("reading edges: %w", err)
		}
		inFrontier := map[string]bool{}
		for _, id := range frontier {
			inFrontier[id] = true
		}
		var next []string
		for _, e := range edges {
			g.edges[e.ID] = e
			for _, step := range g.steps(e, q.direction) {
				from, to := step[0], step[1]
				if !inFrontier[from] {
					continue
				}
				rel := g.rel[from] * e.Weight
				if seenDepth, ok := g.depth[to]; ok {
					if seenDepth == d && rel > g.rel[to] { // a better way at the same depth
						g.rel[to], g.via[to], g.from[to] = rel, e, from
					}
					continue
				}
				g.depth[to], g.rel[to], g.via[to], g.from[to] = d, rel, e, from
				next = append(next, to)
			}
		}
		if len(next) == 0 {
			break
		}
		found, err := s.store.GetMemories(ctx, next)
		if err != nil {
			return nil, fmt.Errorf("loading memories: %w", err)
		}
		frontier = frontier[:0:0]
		for _, id := range next {
			if m := found[id]; m != nil {
				g.order = append(g.order, m)
				frontier = append(frontier, id)
			} else { // deleted meanwhile
				delete(g.depth, id)
			}
		}
	}
	return g, nil
}

// steps lists the (from, to) moves an edge allows in a direction.
func (g *graphWalk) steps(e Edge, d Direction) [][2]string {
	switch d {
	case DirectionOutgoing:
		return [][2]string{{e.SourceID, e.TargetID}}
	case DirectionIncoming:
		return [][2]string{{e.TargetID, e.SourceID}}
	}
	return [][2]string{{e.SourceID, e.TargetID}, {e.TargetID, e.SourceID}}
}

func (g *graphWalk) result(originID string, scores bool) *InspectResult {
	res := &InspectResult{
		Origin: originID,
		Nodes:  make([]GraphNode, 0, len(g.order)),
		Edges:  []Edge{},
		Paths:  []GraphPath{},
		Stats:  GraphStats{RelationCounts: map[Relation]int{}},
	}
	for _, m := range g.order {
		d := g.depth[m.ID]
		res.Nodes = append(res.Nodes, GraphNode{
			ID: m.ID, Content: Preview(m.Content, previewRunes), Type: m.Type, Namespace: m.Namespace,
			Confidence: m.Confidence, Importance: m.Importance, Depth: d,
		})
		res.Stats.MaxDepthReached = max(res.Stats.MaxDepthReached, d)
		if m.ID != originID {
			res.Paths = append(res.Paths, g.path(m.ID, scores))
		}
	}
	for _, e := range g.edges {
		_, srcIn := g.depth[e.SourceID]
		_, tgtIn := g.depth[e.TargetID]
		if srcIn && tgtIn {
			res.Edges = append(res.Edges, e)
			res.Stats.RelationCounts[e.Relation]++
		}
	}
	sortEdges(res.Edges)
	res.Stats.NodeCount = len(res.Nodes)
	res.Stats.EdgeCount = len(res.Edges)
	return res
}

// path follows the discovery links back from a node to the origin.
func (g *graphWalk) path(id string, scores bool) GraphPath {
	var nodes []string
	var rels []Relation
	for cur := id; ; cur = g.from[cur] {
		nodes = append(nodes, cur)
		e, ok := g.via[cur]
		if !ok {
			break
		}
		rels = append(rels, e.Relation)
	}
	reverse(nodes)
	reverse(rels)
	p := GraphPath{NodeIDs: nodes, Relations: rels}
	if scores {
		p.Relevance = g.rel[id] * math.Pow(g.decay, float64(g.depth[id]))
	}
	return p
}

func reverse[T any](xs []T) {
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
}

func sortEdges(es []Edge) {
	slices.SortFunc(es, func(a, b Edge) int { return cmp.Compare(a.ID, b.ID) })
}

// Preview shortens content to n runes on one line, for lists that show a
// memory by its start.
func Preview(content string, n int) string {
	flat := strings.Join(strings.Fields(content), " ")
	r := []rune(flat)
	if len(r) <= n {
		return flat
	}
	return string(r[:n-1]) + "…"
}

// EdgeMetadata refuses an edge no store keeps (none, or an unknown
// relation) and returns its metadata encoded for the store.
func EdgeMetadata(e *Edge) (string, error) {
	if e == nil {
		return "", Invalidf("edge", "nil", "an edge")
	}
	if _, err := ParseRelation(string(e.Relation)); err != nil {
		return "", err
	}
	return EncodeMetadata(e.Metadata)
}
