package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/capture"
)

// The three reading steps over past sessions and memories. Their descriptions
// teach the order, since the model reads them and nothing else about the tools.

type searchArgs struct {
	Query   string `json:"query"`
	Project string `json:"project,omitempty" jsonschema:"namespace, e.g. project:api (global included)"`
	Limit   int    `json:"limit,omitempty"`
}

type indexOutput struct {
	Success bool                `json:"success"`
	Results []capture.IndexItem `json:"results"`
}

type timelineArgs struct {
	ID     string `json:"id"`
	Before int    `json:"before,omitempty"`
	After  int    `json:"after,omitempty"`
}

type detailsArgs struct {
	IDs    []string `json:"ids"`
	Around int      `json:"around,omitempty"`
}

type detailsOutput struct {
	Success bool             `json:"success"`
	Records []capture.Record `json:"records"`
	Missing []string         `json:"missing,omitempty"`
}

func (h handlers) addCaptureTools(srv *mcp.Server, r *capture.Reader) {
	addTool(srv, h, "recall_search",
		"Step 1 for past work (what was asked, done, decided): a compact index of sessions, tool calls, summaries and memories, ~50 tokens each. Read it, then call recall_timeline or recall_details with the few ids that matter; never fetch details first.",
		map[string]any{"limit": capture.DefaultSearchLimit},
		func(ctx context.Context, a searchArgs) (indexOutput, error) {
			items, err := r.Search(ctx, capture.SearchRequest{Query: a.Query, Namespace: a.Project, Limit: a.Limit})
			return indexOutput{Success: err == nil, Results: orEmptyItems(items)}, err
		})

	addTool(srv, h, "recall_timeline",
		"Step 2: index lines of what happened before and after an id from recall_search (same session and project).",
		map[string]any{"before": capture.DefaultAround, "after": capture.DefaultAround},
		func(ctx context.Context, a timelineArgs) (indexOutput, error) {
			before, after := a.Before, a.After
			if before == 0 && after == 0 {
				before, after = capture.DefaultAround, capture.DefaultAround
			}
			items, err := r.Timeline(ctx, a.ID, before, after)
			return indexOutput{Success: err == nil, Results: orEmptyItems(items)}, err
		})

	addTool(srv, h, "recall_details",
		"Step 3: full records (text, files, transcript anchor) of a few ids from recall_search or recall_timeline. around: transcript messages each side of a record's turn (trimmed records get 3).",
		nil,
		func(ctx context.Context, a detailsArgs) (detailsOutput, error) {
			recs, missing, err := r.Details(ctx, capture.DetailsRequest{IDs: a.IDs, Around: a.Around})
			return detailsOutput{Success: err == nil, Records: recs, Missing: missing}, err
		})
}

func orEmptyItems(items []capture.IndexItem) []capture.IndexItem {
	if items == nil {
		return []capture.IndexItem{}
	}
	return items
}
