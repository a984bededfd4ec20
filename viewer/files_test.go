package viewer

import (
	"net/http"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// touch records file activity as the hooks do.
func (f *fixture) touch(t testing.TB, path, action, root string) {
	t.Helper()
	if _, err := f.mem.AddFileActivity(t.Context(), memory.FileActivityRequest{FilePath: path, Action: action, ProjectRoot: root, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
}

func TestRecentFilesPerProject(t *testing.T) {
	f := newFixture(t)
	f.touch(t, "/src/shop/main.go", "read", "/src/shop")
	f.touch(t, "/src/shop/main.go", "edit", "/src/shop")
	f.touch(t, "/src/shop/README.md", "write", "/src/shop")
	f.touch(t, "/src/blog/app.rb", "edit", "/src/blog")

	shop := decode[[]memory.FileSummary](t, f.do(t, "GET", "/api/files?project_root=/src/shop", "", nil), http.StatusOK)
	if len(shop) != 2 {
		t.Fatalf("shop files %+v, want 2", shop)
	}
	for _, s := range shop {
		if s.ProjectRoot != "/src/shop" {
			t.Errorf("file of another project: %+v", s)
		}
		if s.FilePath == "/src/shop/main.go" && (s.AccessCount != 2 || s.LastAction != memory.ActionEdit || s.FileType != "go") {
			t.Errorf("main.go summary %+v, want 2 touches, last edit, go", s)
		}
	}
	all := decode[[]memory.FileSummary](t, f.do(t, "GET", "/api/files", "", nil), http.StatusOK)
	if len(all) != 3 {
		t.Errorf("all files: %d, want 3", len(all))
	}
	one := decode[[]memory.FileSummary](t, f.do(t, "GET", "/api/files?limit=1", "", nil), http.StatusOK)
	if len(one) != 1 {
		t.Errorf("limit=1: %d files", len(one))
	}
	for _, bad := range []string{"days=0", "limit=0", "root=/src"} {
		if w := f.do(t, "GET", "/api/files?"+bad, "", nil); w.Code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, w.Code)
		}
	}
}
