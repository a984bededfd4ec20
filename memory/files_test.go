package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
)

func TestFileTypeOf(t *testing.T) {
	cases := map[string]string{
		"main.go": "go", "a/b/tool.py": "python", "x.tsx": "typescript", "x.TS": "typescript",
		"app.js": "javascript", "README.md": "markdown", "cfg.yml": "yaml", "c.yaml": "yaml",
		"lib.rs": "rust", "x.h": "c", "x.cpp": "cpp", "run.sh": "shell", "q.sql": "sql",
		"/srv/Dockerfile": "dockerfile", "Makefile": "makefile", "data.parquet": "parquet",
		"LICENSE": "unknown", "dir/.env": "env",
	}
	for path, want := range cases {
		if got := memory.FileTypeOf(path); got != want {
			t.Errorf("FileTypeOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestFileActivityIsAggregatedPerFile(t *testing.T) {
	db := openStore(t)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	c := &clock{t: now}
	svc := memory.NewService(db, nil, memory.Options{Now: c.now})
	ctx := context.Background()
	add := func(path, action, root string) *memory.FileActivity {
		t.Helper()
		a, err := svc.AddFileActivity(ctx, memory.FileActivityRequest{FilePath: path, Action: action, ProjectRoot: root, SessionID: "s1"})
		if err != nil {
			t.Fatalf("add %s %s: %v", path, action, err)
		}
		return a
	}
	first := add("/repo/main.go", "Read", "/repo")
	if first.ID <= 0 || first.FileType != "go" || first.Action != memory.ActionRead {
		t.Fatalf("recorded %+v", first)
	}
	add("/repo/main.go", "Edit", "/repo")
	add("/repo/main.go", "MultiEdit", "/repo")
	add("/repo/README.md", "write", "/repo")
	add("/other/x.py", "read", "/other")
	typed, err := svc.AddFileActivity(ctx, memory.FileActivityRequest{FilePath: "/repo/build", Action: "read", FileType: "bazel", ProjectRoot: "/repo"})
	if err != nil || typed.FileType != "bazel" {
		t.Fatalf("given file type is kept: %+v, %v", typed, err)
	}

	files, err := svc.RecentFiles(ctx, memory.RecentFilesRequest{ProjectRoot: "/repo"})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("want 3 files of /repo, got %+v", files)
	}
	var main *memory.FileSummary
	for i := range files {
		if files[i].FilePath == "/repo/main.go" {
			main = &files[i]
		}
	}
	if main == nil || main.AccessCount != 3 || main.LastAction != memory.ActionMultiEdit || main.Actions["read"] != 1 || main.Actions["edit"] != 1 {
		t.Fatalf("main.go summary %+v", main)
	}
	if files[0].FilePath != "/repo/build" {
		t.Fatalf("most recent first: %+v", files)
	}
	limited, err := svc.RecentFiles(ctx, memory.RecentFilesRequest{Limit: 2})
	if err != nil || len(limited) != 2 {
		t.Fatalf("limit 2: %d, %v", len(limited), err)
	}

	// Thirty days later the activity is outside the default 14-day window.
	c.t = now.Add(30 * 24 * time.Hour)
	if files, err := svc.RecentFiles(ctx, memory.RecentFilesRequest{}); err != nil || len(files) != 0 {
		t.Fatalf("old activity: %+v, %v", files, err)
	}
	if files, err := svc.RecentFiles(ctx, memory.RecentFilesRequest{Days: 60}); err != nil || len(files) != 4 {
		t.Fatalf("60-day window: %+v, %v", files, err)
	}
}

func TestFileActivityRefusesBadInput(t *testing.T) {
	svc := memory.NewService(openStore(t), nil, memory.Options{})
	ctx := context.Background()
	_, err := svc.AddFileActivity(ctx, memory.FileActivityRequest{FilePath: "", Action: "read"})
	wantInvalid(t, err, "file_path")
	_, err = svc.AddFileActivity(ctx, memory.FileActivityRequest{FilePath: "a.go", Action: "delete"})
	wantInvalid(t, err, "action")
	_, err = svc.AddFileActivity(ctx, memory.FileActivityRequest{FilePath: "a.go"})
	wantInvalid(t, err, "action")
	for _, c := range []struct {
		req   memory.RecentFilesRequest
		field string
	}{
		{memory.RecentFilesRequest{Limit: -1}, "limit"},
		{memory.RecentFilesRequest{Limit: 1001}, "limit"},
		{memory.RecentFilesRequest{Days: -2}, "days"},
		{memory.RecentFilesRequest{Days: 4000}, "days"},
	} {
		_, err := svc.RecentFiles(ctx, c.req)
		wantInvalid(t, err, c.field)
	}
}
