package eval

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
)

// Depth is how many results each query asks recall for: enough for R@10.
const Depth = 10

// Loaded maps the ids the store minted to the dataset's ids.
type Loaded struct {
	datasetID map[string]string // store id -> dataset id
	// Pending counts memories stored without a vector (the embedder failed);
	// they are found by keywords only.
	Pending int
}

// DatasetID returns the dataset id of a stored memory, or "" for a memory the
// dataset did not load.
func (l *Loaded) DatasetID(storeID string) string { return l.datasetID[storeID] }

// datasetIDs maps store ids to dataset ids, keeping unknown ids visible.
func (l *Loaded) datasetIDs(storeIDs []string) []string {
	out := make([]string, len(storeIDs))
	for i, id := range storeIDs {
		if out[i] = l.datasetID[id]; out[i] == "" {
			out[i] = "?" + id
		}
	}
	return out
}

// Populate stores every memory of the dataset through svc, the path
// memory_store_tool takes (with svc's embedder, if any). The dataset id is
// kept in the memory's metadata as eval_id.
func Populate(ctx context.Context, svc *memory.Service, d *Dataset) (*Loaded, error) {
	l := &Loaded{datasetID: make(map[string]string, len(d.Memories))}
	for _, m := range d.Memories {
		res, err := svc.Remember(ctx, memory.StoreRequest{
			Content:   m.Content,
			Type:      m.Type,
			Namespace: m.Namespace,
			Metadata:  map[string]any{"eval_id": m.ID},
		})
		if err != nil {
			return nil, fmt.Errorf("store memory %s: %w", m.ID, err)
		}
		if res.Duplicate {
			return nil, fmt.Errorf("store memory %s: the store merged it with %s as a duplicate", m.ID, l.datasetID[res.ID])
		}
		if res.EmbeddingPending {
			l.Pending++
		}
		l.datasetID[res.ID] = m.ID
	}
	return l, nil
}

// Outcome is what recall and the prompt hook answered to one query, in
// dataset ids.
type Outcome struct {
	QueryID  string   `json:"query_id"`
	Category string   `json:"category"`
	Query    string   `json:"query"`
	Ranked   []string `json:"ranked"`   // recall's first Depth results, best first
	Injected []string `json:"injected"` // what the prompt hook injected, in order
	// Degraded says why recall answered from keywords alone although svc has
	// an embedder.
	Degraded string `json:"degraded,omitempty"`
	// Error is recall's error, when it refused the query.
	Error string `json:"error,omitempty"`
}

// Run asks every query of d to recall (all namespaces, Depth results) and to
// the prompt hook (in the query's project, with floor), both over svc. Search mode is
// svc's: keyword-only without an embedder, hybrid with one.
func Run(ctx context.Context, svc *memory.Service, d *Dataset, l *Loaded, floor memory.Floor, logger *slog.Logger) ([]Outcome, error) {
	if logger == nil {
		logger = slog.Default()
	}
	projects, err := os.MkdirTemp("", "recall-eval-projects-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(projects)

	// Without an embedder every answer is keyword-only by design, not degraded.
	vectors, _ := svc.EmbeddingStatus(ctx)
	// The handler's prompt part as `recall hook` builds it (cmd/recall/hook.go):
	// a setting added there that changes what is injected belongs here too, or
	// the figures describe a hook nobody runs.
	h := &hook.Handler{Memory: svc, Logger: logger, Floor: floor}
	out := make([]Outcome, 0, len(d.Queries))
	for _, q := range d.Queries {
		o := Outcome{QueryID: q.ID, Category: q.Category, Query: q.Query, Ranked: []string{}}
		res, err := svc.Recall(ctx, memory.RecallRequest{Query: q.Query, NResults: Depth})
		if err != nil {
			o.Error = err.Error()
		} else {
			o.Ranked = l.datasetIDs(storeIDs(res.Memories))
			if vectors {
				o.Degraded = res.Reason
			}
		}
		dir, err := projectDir(projects, q)
		if err != nil {
			return nil, err
		}
		if o.Injected, err = Inject(ctx, h, q.Query, dir); err != nil {
			return nil, fmt.Errorf("query %s: prompt hook: %w", q.ID, err)
		}
		o.Injected = l.datasetIDs(o.Injected)
		out = append(out, o)
	}
	return out, nil
}

func storeIDs(ms []memory.ScoredMemory) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

// projectDir returns the working directory of a prompt of q's project: a
// directory named after the project with a .git inside, as a checkout is.
func projectDir(root string, q Query) (string, error) {
	name := q.Project
	if name == "" {
		name = NoProject
	}
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// injectedLine matches a memory of the hook's index: "- [<id>] <type> · ...".
var injectedLine = regexp.MustCompile(`(?m)^- \[([^\]\s]+)\] `)

// Inject answers prompt as Claude Code's UserPromptSubmit hook does in the
// working directory cwd, and returns the store ids of the memories the answer
// injects, in order. It goes through the hook's own handler, so what it
// returns is what a session would receive.
func Inject(ctx context.Context, h *hook.Handler, prompt, cwd string) ([]string, error) {
	out, err := h.Handle(ctx, hook.UserPromptSubmit, &hook.Input{
		SessionID:     "eval",
		Cwd:           cwd,
		HookEventName: "UserPromptSubmit",
		Prompt:        prompt,
	})
	if err != nil || out == nil || out.HookSpecificOutput == nil {
		return []string{}, err
	}
	return injectedIDs(out.HookSpecificOutput.AdditionalContext)
}

// injectedIDs reads the memory ids of the hook's index, in order.
func injectedIDs(text string) ([]string, error) {
	ids := []string{}
	for _, m := range injectedLine.FindAllStringSubmatch(text, -1) {
		ids = append(ids, m[1])
	}
	if len(ids) == 0 && strings.TrimSpace(text) != "" {
		// Reading nothing from an answer would pass for a hook that stays
		// silent, the very figure the evaluation watches.
		return nil, fmt.Errorf("the hook answered but no memory line (- [id] ...) was found in: %q", text)
	}
	return ids, nil
}
