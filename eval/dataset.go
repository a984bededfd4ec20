// Package eval is Recall's retrieval evaluation: a dataset of memories a coding
// agent stores and of prompts with judged relevant memories (data/), a loader
// that stores the memories through memory.Service as users do, and the figures
// (recall at 5 and 10, mean reciprocal rank, what the prompt hook injects) that
// tell whether a change to search helps.
//
// The dataset is written by hand: each query lists every memory that answers
// it, and none that merely shares a word with it. Unrelated prompts list none;
// nothing should be returned for them, and the prompt hook should inject
// nothing.
package eval

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/recall-mcp/recall/memory"
)

// Query categories: what makes the query hard for search.
const (
	// Exact queries use the memory's own words.
	Exact = "exact"
	// Paraphrase queries say the same thing in other words.
	Paraphrase = "paraphrase"
	// Morphology queries use other forms of the memory's words (caching for
	// cache, tested for testing).
	Morphology = "morphology"
	// Identifier queries are code words, file paths and error codes, in any
	// spelling (UserService, user_service, user-service, "user service").
	Identifier = "identifier"
	// Unrelated prompts are about nothing stored; they must get nothing.
	Unrelated = "unrelated"
)

// Categories lists the query categories in the order reports show them.
var Categories = []string{Exact, Paraphrase, Morphology, Identifier, Unrelated}

// Memory is one memory of the dataset. ID is the dataset's own name for it;
// the store mints its own id when the memory is loaded.
type Memory struct {
	ID        string      `json:"id"`
	Namespace string      `json:"namespace"`
	Type      memory.Type `json:"type"`
	Content   string      `json:"content"`
}

// Query is a prompt with the memories judged relevant to it.
type Query struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	// Project is the project the prompt is typed in (the hook's working
	// directory); empty for a directory of no project with memories. The
	// prompt hook offers memories of this project and global ones only.
	Project string `json:"project,omitempty"`
	Query   string `json:"query"`
	// Relevant lists the dataset ids of every memory that answers the query,
	// in any namespace. Empty for unrelated prompts.
	Relevant []string `json:"relevant"`
}

// Namespace is the namespace the prompt hook searches beside global.
func (q Query) Namespace() string {
	if q.Project == "" {
		return memory.ProjectNamespace(NoProject)
	}
	return memory.ProjectNamespace(q.Project)
}

// NoProject is the project name given to prompts typed outside any project
// of the dataset; no memory is stored under it.
const NoProject = "scratch"

// Dataset is the memories and the judged queries.
type Dataset struct {
	Memories []Memory
	Queries  []Query
}

// The dataset, in the files people edit.
var (
	//go:embed data/memories.jsonl
	memoriesJSONL []byte
	//go:embed data/queries.jsonl
	queriesJSONL []byte
)

// Data file names, in the embedded data/ directory or one given to LoadDir.
const (
	MemoriesFile = "memories.jsonl"
	QueriesFile  = "queries.jsonl"
)

// Load returns the dataset built into the binary, checked.
func Load() (*Dataset, error) {
	return Parse(bytes.NewReader(memoriesJSONL), bytes.NewReader(queriesJSONL))
}

// LoadDir reads memories.jsonl and queries.jsonl from dir, checked.
func LoadDir(dir string) (*Dataset, error) {
	mem, err := os.ReadFile(filepath.Join(dir, MemoriesFile))
	if err != nil {
		return nil, err
	}
	qs, err := os.ReadFile(filepath.Join(dir, QueriesFile))
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(mem), bytes.NewReader(qs))
}

// Parse reads the two JSON Lines files (one object per line, unknown fields
// refused) and checks the result.
func Parse(memories, queries io.Reader) (*Dataset, error) {
	var d Dataset
	var err error
	if d.Memories, err = readLines[Memory](MemoriesFile, memories); err != nil {
		return nil, err
	}
	if d.Queries, err = readLines[Query](QueriesFile, queries); err != nil {
		return nil, err
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	return &d, nil
}

func readLines[T any](name string, r io.Reader) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// Check reports every inconsistency of the dataset at once: ids missing or
// repeated, bad namespaces or types, content the store would deduplicate,
// unknown categories, judged ids that do not exist, unrelated prompts with
// judgments, and related prompts whose every relevant memory is out of the
// hook's reach (neither in their project nor global).
func (d *Dataset) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	byID := make(map[string]Memory, len(d.Memories))
	contents := map[[2]string]string{}
	for i, m := range d.Memories {
		switch {
		case m.ID == "":
			bad("memory %d: id is empty", i+1)
			continue
		case byID[m.ID].ID != "":
			bad("memory %s: id used twice", m.ID)
		}
		byID[m.ID] = m
		if err := memory.ValidateNamespace(m.Namespace); err != nil {
			bad("memory %s: %v", m.ID, err)
		}
		if _, err := memory.ParseType(string(m.Type)); err != nil {
			bad("memory %s: %v", m.ID, err)
		}
		if m.Content == "" {
			bad("memory %s: content is empty", m.ID)
		}
		key := [2]string{m.Namespace, memory.ContentHash(m.Content)}
		if other, ok := contents[key]; ok {
			bad("memory %s: same content as %s in %s (the store would keep one)", m.ID, other, m.Namespace)
		}
		contents[key] = m.ID
	}

	known := map[string]bool{}
	for _, c := range Categories {
		known[c] = true
	}
	seen := map[string]bool{}
	for i, q := range d.Queries {
		if q.ID == "" {
			bad("query %d: id is empty", i+1)
			continue
		}
		if seen[q.ID] {
			bad("query %s: id used twice", q.ID)
		}
		seen[q.ID] = true
		if !known[q.Category] {
			bad("query %s: category %q unknown, accepted: %v", q.ID, q.Category, Categories)
		}
		if q.Query == "" {
			bad("query %s: query is empty", q.ID)
		}
		if err := memory.ValidateNamespace(q.Namespace()); err != nil {
			bad("query %s: project: %v", q.ID, err)
		}
		errs = append(errs, d.checkJudgments(q, byID)...)
	}
	return errors.Join(errs...)
}

func (d *Dataset) checkJudgments(q Query, byID map[string]Memory) []error {
	var errs []error
	if q.Category == Unrelated {
		if len(q.Relevant) > 0 {
			errs = append(errs, fmt.Errorf("query %s: unrelated but judges %v relevant", q.ID, q.Relevant))
		}
		return errs
	}
	if len(q.Relevant) == 0 {
		errs = append(errs, fmt.Errorf("query %s: %s query without relevant memories", q.ID, q.Category))
	}
	inReach := false
	listed := map[string]bool{}
	for _, id := range q.Relevant {
		m, ok := byID[id]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("query %s: relevant memory %q does not exist", q.ID, id))
		case listed[id]:
			errs = append(errs, fmt.Errorf("query %s: relevant memory %q listed twice", q.ID, id))
		case m.Namespace == memory.GlobalNamespace || m.Namespace == q.Namespace():
			inReach = true
		}
		listed[id] = true
	}
	if len(q.Relevant) > 0 && !inReach {
		errs = append(errs, fmt.Errorf("query %s: no relevant memory in %s or global, so the prompt hook can never inject one", q.ID, q.Namespace()))
	}
	return errs
}

// MemoryByID returns the memory with the dataset id id.
func (d *Dataset) MemoryByID(id string) (Memory, bool) {
	for _, m := range d.Memories {
		if m.ID == id {
			return m, true
		}
	}
	return Memory{}, false
}

// ByCategory returns the queries of one category.
func (d *Dataset) ByCategory(category string) []Query {
	var out []Query
	for _, q := range d.Queries {
		if q.Category == category {
			out = append(out, q)
		}
	}
	return out
}
