package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-mcp/recall/memory"
)

// fileAddArgs are memory.FileActivityRequest's fields with the tool's
// descriptions (the handler converts one into the other).
type fileAddArgs struct {
	FilePath    string         `json:"file_path"`
	Action      string         `json:"action" jsonschema:"read, write, edit, multiedit"`
	SessionID   string         `json:"session_id,omitempty"`
	ProjectRoot string         `json:"project_root,omitempty"`
	FileType    string         `json:"file_type,omitempty" jsonschema:"inferred from the extension when absent"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type fileAddOutput struct {
	Success    bool  `json:"success"`
	ActivityID int64 `json:"activity_id"`
	*memory.FileActivity
}

type fileRecentArgs struct {
	ProjectRoot string `json:"project_root,omitempty"`
	Limit       int    `json:"limit,omitempty"`
	Days        int    `json:"days,omitempty"`
}

type fileRecentOutput struct {
	Success bool                 `json:"success"`
	Files   []memory.FileSummary `json:"files"`
	Count   int                  `json:"count"`
}

func (h handlers) addFileTools(srv *mcp.Server) {
	addTool(srv, h, "file_activity_add",
		"Record that a file was read or changed (used by hooks).",
		nil,
		func(ctx context.Context, a fileAddArgs) (fileAddOutput, error) {
			act, err := h.mem.AddFileActivity(ctx, memory.FileActivityRequest(a))
			if err != nil {
				return fileAddOutput{}, err
			}
			return fileAddOutput{Success: true, ActivityID: act.ID, FileActivity: act}, nil
		})

	addTool(srv, h, "file_activity_recent",
		"Recently touched files, aggregated per file, most recent first.",
		map[string]any{"limit": 20, "days": 14},
		func(ctx context.Context, a fileRecentArgs) (fileRecentOutput, error) {
			files, err := h.mem.RecentFiles(ctx, memory.RecentFilesRequest{ProjectRoot: a.ProjectRoot, Limit: a.Limit, Days: a.Days})
			if err != nil {
				return fileRecentOutput{}, err
			}
			if files == nil {
				files = []memory.FileSummary{}
			}
			return fileRecentOutput{Success: true, Files: files, Count: len(files)}, nil
		})
}
