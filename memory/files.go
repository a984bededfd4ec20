package memory

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// File activity limits.
const (
	DefaultRecentFiles = 20
	DefaultRecentDays  = 14
	MaxRecentDays      = 3650
	maxFilePathBytes   = 4096
)

// AddFileActivity records one touch of a file. The file type is inferred from
// the file name when not given.
func (s *Service) AddFileActivity(ctx context.Context, req FileActivityRequest) (*FileActivity, error) {
	a, err := s.NewFileActivity(req)
	if err != nil {
		return nil, err
	}
	if a.ID, err = s.store.AddFileActivity(ctx, a); err != nil {
		return nil, fmt.Errorf("recording file activity: %w", err)
	}
	return a, nil
}

// SaveFileActivity writes a touch NewFileActivity made (and checked).
func (s *Service) SaveFileActivity(ctx context.Context, a *FileActivity) (int64, error) {
	return s.store.AddFileActivity(ctx, a)
}

// NewFileActivity is the touch AddFileActivity records, checked, for a caller
// that writes it together with other things (the post-tool-use hook, in one
// transaction with its journal entry).
func (s *Service) NewFileActivity(req FileActivityRequest) (*FileActivity, error) {
	p, err := checkText("file_path", req.FilePath, maxFilePathBytes)
	if err != nil {
		return nil, err
	}
	action, err := ParseFileAction(req.Action)
	if err != nil {
		return nil, err
	}
	if err := checkMetadata(req.Metadata); err != nil {
		return nil, err
	}
	if err := CheckLine("file_path", p, maxFilePathBytes); err != nil {
		return nil, err
	}
	if err := CheckLine("session_id", req.SessionID, MaxSessionIDBytes); err != nil {
		return nil, err
	}
	if err := CheckLine("project_root", req.ProjectRoot, MaxProjectRootBytes); err != nil {
		return nil, err
	}
	if err := CheckLine("file_type", req.FileType, MaxFileTypeBytes); err != nil {
		return nil, err
	}
	ft := strings.TrimSpace(req.FileType)
	if ft == "" {
		ft = FileTypeOf(p)
	}
	a := &FileActivity{
		FilePath:    p,
		Action:      action,
		SessionID:   req.SessionID,
		ProjectRoot: req.ProjectRoot,
		FileType:    ft,
		Metadata:    req.Metadata,
		CreatedAt:   s.now(),
	}
	return a, nil
}

// RecentFiles aggregates the files touched in the last Days days (default 14,
// at most 3650), most recent first, at most Limit (default 20, at most 1000).
func (s *Service) RecentFiles(ctx context.Context, req RecentFilesRequest) ([]FileSummary, error) {
	limit, err := intInRange("limit", req.Limit, DefaultRecentFiles, 1, MaxListLimit)
	if err != nil {
		return nil, err
	}
	days, err := intInRange("days", req.Days, DefaultRecentDays, 1, MaxRecentDays)
	if err != nil {
		return nil, err
	}
	if err := CheckLine("project_root", req.ProjectRoot, MaxProjectRootBytes); err != nil {
		return nil, err
	}
	since := s.now().Add(-time.Duration(days) * 24 * time.Hour)
	files, err := s.store.RecentFiles(ctx, req.ProjectRoot, since, limit)
	if err != nil {
		return nil, fmt.Errorf("reading file activity: %w", err)
	}
	if files == nil {
		files = []FileSummary{}
	}
	return files, nil
}

// fileTypesByName and fileTypesByExt name the languages hooks most often see.
var (
	fileTypesByName = map[string]string{
		"dockerfile": "dockerfile",
		"makefile":   "makefile",
	}
	fileTypesByExt = map[string]string{
		".go": "go", ".py": "python", ".ts": "typescript", ".tsx": "typescript",
		".js": "javascript", ".jsx": "javascript", ".mjs": "javascript",
		".md": "markdown", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
		".toml": "toml", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
		".cpp": "cpp", ".cc": "cpp", ".hpp": "cpp", ".sh": "shell", ".bash": "shell",
		".sql": "sql", ".html": "html", ".htm": "html", ".css": "css",
		".rb": "ruby", ".kt": "kotlin", ".swift": "swift",
	}
)

// FileTypeOf infers a file's type from its name: a known extension or name
// gives the language, another extension gives itself without the dot, and a
// name without an extension gives "unknown".
func FileTypeOf(filePath string) string {
	base := path.Base(filepath.ToSlash(filePath))
	if t, ok := fileTypesByName[strings.ToLower(base)]; ok {
		return t
	}
	ext := strings.ToLower(path.Ext(base))
	if t, ok := fileTypesByExt[ext]; ok {
		return t
	}
	if ext != "" && ext != "." {
		return ext[1:]
	}
	return "unknown"
}

// SummarizeFileActivity folds the file activity older than retention into one
// summary row per file, project and action, so the table stays bounded while
// all-time counts stay right; it returns how many rows it removed.
func (s *Service) SummarizeFileActivity(ctx context.Context, retention time.Duration) (int64, error) {
	n, err := s.store.SummarizeFileActivity(ctx, s.now().Add(-retention))
	if err != nil {
		return 0, fmt.Errorf("summarizing file activity: %w", err)
	}
	return n, nil
}
