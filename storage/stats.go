package storage

import (
	"context"

	"github.com/recall-mcp/recall/memory"
)

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

// CountMemoriesBy counts the memories the asker sees by author or by source.
func (s Shared) CountMemoriesBy(ctx context.Context, by memory.Facet) (map[string]int, error) {
	col, err := FacetColumn(by)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	return counts, s.Read.CountMemoriesInto(ctx, col, counts)
}

// CountMemoriesInto counts the memories the asker sees (a person's counts
// leave out the other people's private memories) by the value of col.
func (s Statements) CountMemoriesInto(ctx context.Context, col string, counts map[string]int) error {
	var p Params
	rows, err := s.SQL.Query(ctx, `SELECT `+col+`, count(*) FROM memories m WHERE `+Visible(ctx, "m", &p)+` GROUP BY `+col, p...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return ReadCounts(rows, counts)
}
