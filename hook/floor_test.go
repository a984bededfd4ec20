package hook

import (
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestKeywordFloorKeepsMemoriesSharingAWord(t *testing.T) {
	found := []memory.ScoredMemory{
		{Memory: &memory.Memory{ID: "a", Content: "Orders MUST be cached in Redis"}},
		{Memory: &memory.Memory{ID: "b", Content: "You MUST indent Go code with tabs"}},
		{Memory: &memory.Memory{ID: "c", Content: "The billing caches invoices"}},
	}
	var ids []string
	for _, m := range KeywordFloor("Why is the cache of orders slow?", found) {
		ids = append(ids, m.ID)
	}
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "c" {
		t.Fatalf("kept %v, want [a c]", ids)
	}
	if got := KeywordFloor("what should we do about this?", found); len(got) != 0 {
		t.Fatalf("a prompt of stop words kept %d memories", len(got))
	}
}
