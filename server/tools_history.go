package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/history"
)

// historySearchArgs are the parameters of the history searches, with the defaults
// of Claude Total Recall.
type historySearchArgs struct {
	Query            string  `json:"query"`
	After            string  `json:"after,omitempty" jsonschema:"ISO 8601, inclusive"`
	Before           string  `json:"before,omitempty"`
	Context          int     `json:"context_before_after,omitempty"`
	Threshold        float64 `json:"threshold,omitempty"`
	MaxResults       int     `json:"max_results,omitempty"`
	Offset           int     `json:"offset,omitempty"`
	IncludeSubagents bool    `json:"include_subagents,omitempty"`
}

var historySearchDefaults = map[string]any{
	"context_before_after": 3, "threshold": 0.2, "max_results": 10, "offset": 0, "include_subagents": true,
}

type readHistoryArgs struct {
	SessionID string `json:"session_id"`
	UUID      string `json:"uuid,omitempty"`
	Window    int    `json:"window,omitempty"`
	Cursor    string `json:"cursor,omitempty"`
}

// historySearchOutput is Claude Total Recall's response, plus success.
type historySearchOutput struct {
	Success bool `json:"success"`
	*history.Response
}

type readHistoryOutput struct {
	Success bool `json:"success"`
	*history.Window
}

func (a historySearchArgs) request(projects []string) history.SearchRequest {
	return history.SearchRequest{
		Query: a.Query, After: a.After, Before: a.Before, Context: a.Context, Threshold: a.Threshold,
		MaxResults: a.MaxResults, Offset: a.Offset, IncludeSubagents: a.IncludeSubagents, Projects: projects,
	}
}

// addHistoryTools registers the conversation history tools; their
// descriptions stay short because every client pays for them in every
// conversation.
// historyStaysLocal ends the history tools' descriptions: transcripts live
// on the machine Claude Code runs on, so these tools answer from there, also
// when every other tool goes to a team server (RECALL_SERVER_URL).
const historyStaysLocal = " Runs on this machine, also as a team server's client."

func (h handlers) addHistoryTools(srv *mcp.Server, hs *history.Service) {
	addTool(srv, h, "search_project_history",
		"Search this project's past Claude Code conversations (what compaction dropped too) by meaning and words; each match with its neighbours."+historyStaysLocal,
		historySearchDefaults,
		func(ctx context.Context, a historySearchArgs) (historySearchOutput, error) {
			r, err := hs.Search(ctx, a.request(hs.ProjectPaths()))
			return historySearchOutput{Success: err == nil, Response: r}, err
		})
	addTool(srv, h, "search_global_history",
		"search_project_history, all projects."+historyStaysLocal,
		historySearchDefaults,
		func(ctx context.Context, a historySearchArgs) (historySearchOutput, error) {
			r, err := hs.Search(ctx, a.request(nil))
			return historySearchOutput{Success: err == nil, Response: r}, err
		})
	addTool(srv, h, "read_history",
		"Read a past conversation around a match (session_id, uuid), or page through it (cursor=next_cursor)."+historyStaysLocal,
		map[string]any{"window": 10},
		func(ctx context.Context, a readHistoryArgs) (readHistoryOutput, error) {
			w, err := hs.Show(ctx, a.SessionID, a.UUID, a.Window, a.Cursor)
			return readHistoryOutput{Success: err == nil, Window: w}, err
		})
}
