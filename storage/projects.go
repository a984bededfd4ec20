package storage

import (
	"sort"

	"github.com/recall-mcp/recall/memory"
)

// ProjectSummaries assembles the project list: every project namespace that
// holds memories (counts, by namespace) or is bound to a root, by namespace.
func ProjectSummaries(counts map[string]int, bindings []memory.ProjectBinding) []memory.ProjectSummary {
	byNS := map[string]*memory.ProjectSummary{}
	get := func(ns string) *memory.ProjectSummary {
		if byNS[ns] == nil {
			byNS[ns] = &memory.ProjectSummary{Namespace: ns, Roots: []string{}}
		}
		return byNS[ns]
	}
	for ns, n := range counts {
		get(ns).Memories = n
	}
	for _, b := range bindings {
		p := get(b.Namespace)
		p.Roots = append(p.Roots, b.Root)
	}
	out := make([]memory.ProjectSummary, 0, len(byNS))
	for _, p := range byNS {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}
