package eval_test

import (
	"strings"
	"testing"

	"github.com/recall-mcp/recall/eval"
	"github.com/recall-mcp/recall/memory"
)

// Sizes the dataset keeps at least, so its figures mean something.
const (
	minMemories         = 300
	minQueries          = 150
	minUnrelated        = 50
	minPerCategory      = 20
	minProjects         = 3
	minMemoriesPerSpace = 40
)

func TestDatasetIsWholeAndConsistent(t *testing.T) {
	d, err := eval.Load() // Load runs Check: ids, namespaces, types, judgments
	if err != nil {
		t.Fatalf("the dataset does not load: %v", err)
	}
	if len(d.Memories) < minMemories {
		t.Errorf("%d memories, want at least %d", len(d.Memories), minMemories)
	}
	if len(d.Queries) < minQueries {
		t.Errorf("%d queries, want at least %d", len(d.Queries), minQueries)
	}
	if n := len(d.ByCategory(eval.Unrelated)); n < minUnrelated {
		t.Errorf("%d unrelated prompts, want at least %d", n, minUnrelated)
	}
	for _, c := range eval.Categories {
		if n := len(d.ByCategory(c)); n < minPerCategory {
			t.Errorf("category %s has %d queries, want at least %d", c, n, minPerCategory)
		}
	}

	perSpace := map[string]int{}
	types := map[memory.Type]bool{}
	for _, m := range d.Memories {
		perSpace[m.Namespace]++
		types[m.Type] = true
	}
	if perSpace[memory.GlobalNamespace] < minMemoriesPerSpace || len(perSpace) < minProjects+1 {
		t.Errorf("memories per namespace %v: want global and at least %d projects", perSpace, minProjects)
	}
	for ns, n := range perSpace {
		if n < minMemoriesPerSpace {
			t.Errorf("namespace %s has %d memories, want at least %d", ns, n, minMemoriesPerSpace)
		}
	}
	for _, ty := range []memory.Type{memory.TypePreference, memory.TypeDecision, memory.TypePattern, memory.TypeSession, memory.TypeFileContext} {
		if !types[ty] {
			t.Errorf("no memory of type %s", ty)
		}
	}
}

// Check must catch each kind of mistake a person editing the files can make.
func TestCheckNamesEveryMistake(t *testing.T) {
	memories := `{"id":"a","namespace":"global","type":"pattern","content":"Use goose for migrations."}
{"id":"a","namespace":"project:shop","type":"pattern","content":"Another text."}
{"id":"b","namespace":"proj:shop","type":"pattern","content":"Bad namespace."}
{"id":"c","namespace":"global","type":"note","content":"Bad type."}
{"id":"d","namespace":"global","type":"pattern","content":"use GOOSE   for migrations."}
{"id":"e","namespace":"project:other","type":"pattern","content":"Only in another project."}
`
	queries := `{"id":"q1","category":"exact","query":"goose","relevant":["a","zzz"]}
{"id":"q1","category":"paraphrase","query":"x","relevant":["a"]}
{"id":"q2","category":"unrelated","query":"haiku","relevant":["a"]}
{"id":"q3","category":"exact","query":"goose","relevant":[]}
{"id":"q4","category":"spelling","query":"goose","relevant":["a"]}
{"id":"q5","category":"exact","project":"shop","query":"other","relevant":["e"]}
{"id":"q6","category":"exact","query":"goose","relevant":["a","a"]}
`
	_, err := eval.Parse(strings.NewReader(memories), strings.NewReader(queries))
	if err == nil {
		t.Fatal("a broken dataset was accepted")
	}
	for _, want := range []string{
		"memory a: id used twice",
		"memory b: invalid namespace",
		"memory c: invalid memory_type",
		"memory d: same content as a",
		`query q1: relevant memory "zzz" does not exist`,
		"query q1: id used twice",
		"query q2: unrelated but judges [a] relevant",
		"query q3: exact query without relevant memories",
		`query q4: category "spelling" unknown`,
		"query q5: no relevant memory in project:shop or global",
		`query q6: relevant memory "a" listed twice`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}

func TestParseRefusesUnknownFields(t *testing.T) {
	_, err := eval.Parse(strings.NewReader(`{"id":"a","namespace":"global","type":"pattern","content":"x","tags":[]}`), strings.NewReader(""))
	if err == nil || !strings.Contains(err.Error(), "memories.jsonl line 1") {
		t.Fatalf("err = %v, want the file and line of the unknown field", err)
	}
}
