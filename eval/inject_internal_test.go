package eval

import (
	"slices"
	"strings"
	"testing"
)

func TestInjectedIDsReadsTheHookIndex(t *testing.T) {
	text := "## Relevant memories (recall)\n" +
		"- [mem_1700000000_ab12] pattern · Use goose for migrations - [not_this] one\n" +
		"- [0b9e6a1c-5f5e-4c1e-9d7a-1d2f3a4b5c6d] decision · Money in cents\n" +
		"Full text and related memories: memory_recall_tool or memory_inspect_graph_tool with an id.\n"
	ids, err := injectedIDs(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mem_1700000000_ab12", "0b9e6a1c-5f5e-4c1e-9d7a-1d2f3a4b5c6d"}; !slices.Equal(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
}

// An answer whose lines are not recognised must not count as "nothing
// injected", which would look like a perfect score on unrelated prompts.
func TestInjectedIDsRefusesAnUnknownFormat(t *testing.T) {
	_, err := injectedIDs("## Relevant memories\n* mem_1_ab (pattern): Use goose\n")
	if err == nil || !strings.Contains(err.Error(), "no memory line") {
		t.Fatalf("err = %v, want a complaint about the format", err)
	}
	if ids, err := injectedIDs(""); err != nil || len(ids) != 0 {
		t.Fatalf("empty answer: ids %v, err %v; want none and no error", ids, err)
	}
}
