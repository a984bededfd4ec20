package project_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-mcp/recall/project"
)

// repo makes a repository at parent/name whose origin remote is url ("" for
// none).
func repo(t *testing.T, parent, name, url string) string {
	t.Helper()
	root := mkdir(t, parent, name)
	git := mkdir(t, root, ".git")
	config := "[core]\n\tbare = false\n"
	if url != "" {
		config += "[remote \"upstream\"]\n\turl = https://example.com/other.git\n[remote \"origin\"]\n\turl = " + url + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	}
	if err := os.WriteFile(filepath.Join(git, "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// Every person's clone of one repository, wherever it lives and however its
// remote is spelled, is one project for the team server.
func TestClonesOfOneRepositoryHaveOneRootKey(t *testing.T) {
	base := t.TempDir()
	want := "git:github.com/acme/shop-api"
	for i, url := range []string{
		"git@github.com:acme/shop-api.git",
		"https://github.com/acme/shop-api.git",
		"https://alice@GitHub.com/acme/shop-api/",
		"ssh://git@github.com:22/acme/shop-api",
	} {
		root := repo(t, filepath.Join(base, string(rune('a'+i))), "clone", url)
		c := project.ClientOf(mkdir(t, root, "internal"), "")
		if c.Root != want || c.Namespace != "" {
			t.Errorf("remote %s: client project %+v, want root %s", url, c, want)
		}
	}
	// Without a remote the root is this machine's path.
	local := repo(t, base, "scratch", "")
	if c := project.ClientOf(local, ""); c.Root != local {
		t.Errorf("a repository without remote: %+v, want its path", c)
	}
	// RECALL_PROJECT on the client pins it.
	if c := project.ClientOf(local, "project:pinned"); c.Namespace != "project:pinned" || c.Root != "" {
		t.Errorf("pinned: %+v", c)
	}
}

func TestClientHeaderRoundTripsAndRefusesNonsense(t *testing.T) {
	for _, c := range []project.Client{{Root: "git:github.com/acme/shop api?x=1&y"}, {Namespace: "project:web"}} {
		got, err := project.ParseClient(c.Encode())
		if err != nil || got != c {
			t.Errorf("%+v: parsed back as %+v, %v", c, got, err)
		}
	}
	for _, bad := range []string{"", "nothing=here", "namespace=not a namespace", "root=a%00b", "%zz"} {
		if _, err := project.ParseClient(bad); err == nil {
			t.Errorf("ParseClient(%q) accepted", bad)
		}
	}
}

// Serving a client machine, the resolver answers with the client's project,
// whatever directory it is asked about, and two clones' root keys bind once.
func TestResolverAnswersWithTheClientsProject(t *testing.T) {
	r := project.NewResolver(openDB(t), "", nil)
	ctx := project.WithClient(context.Background(), project.Client{Root: "git:github.com/acme/shop-api"})
	p, err := r.ForDir(ctx, "/home/alice/src/elsewhere")
	if err != nil || p.Namespace != "project:shop-api" || p.Source != project.SourceClient {
		t.Fatalf("ForDir for a client = %+v, %v", p, err)
	}
	again, _, err := r.Peek(ctx, "")
	if err != nil || again.Namespace != p.Namespace {
		t.Fatalf("Peek for a client = %+v, %v", again, err)
	}
	pinned := project.WithClient(context.Background(), project.Client{Namespace: "project:web"})
	if p, _ := r.ForDir(pinned, ""); p.Namespace != "project:web" {
		t.Fatalf("a client's pinned project = %+v", p)
	}
}
