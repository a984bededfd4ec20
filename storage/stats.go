package storage

import "github.com/recall-mcp/recall/memory"

// NewStats is an empty memory.Stats whose per-group counts are ready to
// fill, and those counts by the memories' column they group by (a person's
// groups leave out the other people's private memories).
func NewStats() (*memory.Stats, map[string]map[string]int) {
	st := &memory.Stats{ByNamespace: map[string]int{}, ByType: map[string]int{}, ByAuthor: map[string]int{}, BySource: map[string]int{}}
	return st, map[string]map[string]int{"namespace": st.ByNamespace, "memory_type": st.ByType, "author": st.ByAuthor, "source": st.BySource}
}

// FacetColumn is the memories' column CountMemoriesBy counts by.
func FacetColumn(by memory.Facet) (string, error) {
	switch by {
	case memory.FacetAuthor, memory.FacetSource:
		return string(by), nil // the column has the facet's name
	}
	return "", memory.Invalidf("facet", by, "author or source")
}
