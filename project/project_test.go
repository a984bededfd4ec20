package project_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/storage/sqlite"
)

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestFindRootWalksUpToTheGitTopLevel(t *testing.T) {
	root := mkdir(t, t.TempDir(), "shop-api")
	mkdir(t, root, ".git")
	sub := mkdir(t, root, "internal", "orders")
	if got := project.FindRoot(sub); got != root {
		t.Fatalf("FindRoot(%s) = %s, want %s", sub, got, root)
	}
}

func TestEveryWorktreeOfARepositoryHasTheMainRoot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	main := mkdir(t, base, "api")
	git(t, main, "init", "-q")
	git(t, main, "commit", "-q", "--allow-empty", "-m", "start")
	wt := filepath.Join(base, "elsewhere", "api-feature")
	git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	sub := mkdir(t, wt, "cmd")
	if got := project.FindRoot(sub); got != main {
		t.Fatalf("FindRoot of a worktree = %s, want the main repository %s", got, main)
	}
	// The project's directories: the main root and every worktree.
	if got := project.Worktrees(main); !slices.Equal(got, []string{main, wt}) {
		t.Fatalf("Worktrees(%s) = %v, want the root and %s", main, got, wt)
	}
	if got := project.Worktrees(sub); !slices.Equal(got, []string{sub}) {
		t.Fatalf("Worktrees of a plain directory = %v", got)
	}
}

func TestSubmoduleIsItsOwnProject(t *testing.T) {
	root := mkdir(t, t.TempDir(), "lib")
	// A submodule's .git file points into the superproject, without a commondir.
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: ../.git/modules/lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := project.FindRoot(mkdir(t, root, "src")); got != root {
		t.Fatalf("root = %s, want %s", got, root)
	}
}

// Any directory name gives namespaces the store accepts, so no name can make
// every hook answer nothing.
func TestNamesAlwaysValidate(t *testing.T) {
	for _, base := range []string{" spaced ", "tab\there", strings.Repeat("é", 125), "x\x7fy", "zero\u200bwidth", "\u200b"} {
		for _, ns := range project.Candidates(filepath.Join("/src", base)) {
			if err := memory.ValidateNamespace(ns); err != nil {
				t.Errorf("directory %q: namespace %q refused: %v", base, ns, err)
			}
			if strings.ContainsRune(ns, '\u200b') || strings.TrimSpace(ns) != ns {
				t.Errorf("directory %q: namespace %q keeps invisible characters", base, ns)
			}
		}
	}
}

func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "recall.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestTwoRootsWithOneNameGetTwoNamespaces(t *testing.T) {
	ctx := context.Background()
	r := project.NewResolver(openDB(t), "", nil)
	base := t.TempDir()
	work := mkdir(t, base, "work", "api")
	play := mkdir(t, base, "play", "api")
	mkdir(t, work, ".git")

	first, err := r.ForDir(ctx, work)
	if err != nil {
		t.Fatal(err)
	}
	second, err := r.ForDir(ctx, play)
	if err != nil {
		t.Fatal(err)
	}
	if first.Namespace != "project:api" || first.Root != work || first.Source != project.SourceCwd {
		t.Fatalf("first api = %+v, want project:api rooted at %s", first, work)
	}
	if second.Namespace == first.Namespace || !strings.HasPrefix(second.Namespace, "project:api-") {
		t.Fatalf("second api = %+v, want a distinct project:api-<hash>", second)
	}
	again, _ := r.ForDir(ctx, mkdir(t, work, "sub"))
	if again.Namespace != first.Namespace {
		t.Fatalf("the same root resolved to %s then %s", first.Namespace, again.Namespace)
	}
}

func TestPinnedProjectWins(t *testing.T) {
	r := project.NewResolver(openDB(t), "project:ci", nil)
	dir := mkdir(t, t.TempDir(), "api")
	p, err := r.ForDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Namespace != "project:ci" || p.Source != project.SourcePinned || p.Root != dir {
		t.Fatalf("pinned = %+v", p)
	}
}

func TestForRootsTakesTheFirstFileURI(t *testing.T) {
	r := project.NewResolver(openDB(t), "", nil)
	dir := mkdir(t, t.TempDir(), "shop")
	p, ok, err := r.ForRoots(context.Background(), []string{"https://example.com/x", "file://" + filepath.ToSlash(dir)})
	if err != nil || !ok || p.Namespace != "project:shop" || p.Source != project.SourceRoots {
		t.Fatalf("ForRoots = %+v, %v, %v", p, ok, err)
	}
	if _, ok, _ := r.ForRoots(context.Background(), []string{"https://example.com/x"}); ok {
		t.Fatal("a non-file root should give no project")
	}
}
