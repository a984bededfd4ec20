package project

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/memory"
)

// A machine that is a client of a team server (RECALL_SERVER_URL) knows its
// project, the server does not: the laptop's working directory and its MCP
// roots are paths the server may not have, and two people's clones of one
// repository live at different paths. So the client resolves the project on
// its side and sends it with every request (Header); the server binds it as
// it binds a root of its own.

// Header carries a client machine's project to the team server.
const Header = "Recall-Project"

// Client is the project a client machine sends: the namespace its
// RECALL_PROJECT pins, else the identity of its project root (see RootKey).
type Client struct {
	Namespace string
	Root      string
}

// ClientOf is the project of dir (the working directory when empty) as a
// client machine sends it; pinned is its RECALL_PROJECT.
func ClientOf(dir, pinned string) Client {
	if pinned != "" {
		return Client{Namespace: pinned}
	}
	return Client{Root: RootKey(FindRoot(dir))}
}

// ClientOfRoots is ClientOf for the first file:// URI among an MCP client's
// roots; ok is false when none is a local directory.
func ClientOfRoots(uris []string, pinned string) (c Client, ok bool) {
	if pinned != "" {
		return Client{Namespace: pinned}, true
	}
	for _, u := range uris {
		if dir, isFile := fileURIPath(u); isFile {
			return ClientOf(dir, ""), true
		}
	}
	return Client{}, false
}

// RootKey names a project root the same way on every machine: "git:" and
// the address of its origin remote (host and path, without user, port,
// scheme or ".git") when the repository has one, so every person's clone is
// one project; else the local path.
func RootKey(root string) string {
	if remote := originURL(root); remote != "" {
		if key := remoteKey(remote); key != "" {
			return "git:" + key
		}
	}
	return root
}

// Encode is the header's value.
func (c Client) Encode() string {
	v := url.Values{}
	if c.Namespace != "" {
		v.Set("namespace", c.Namespace)
	}
	if c.Root != "" {
		v.Set("root", c.Root)
	}
	return v.Encode()
}

// maxClientRoot bounds a client's root key.
const maxClientRoot = 1024

// ParseClient reads the header's value, refusing what no client sends.
func ParseClient(s string) (Client, error) {
	v, err := url.ParseQuery(s)
	if err != nil {
		return Client{}, fmt.Errorf("%s: %w: want namespace=<namespace> or root=<root>, URL-encoded", Header, err)
	}
	c := Client{Namespace: v.Get("namespace"), Root: v.Get("root")}
	switch {
	case c.Namespace == "" && c.Root == "":
		return c, fmt.Errorf("%s names no project: want namespace=<namespace> or root=<root>, URL-encoded", Header)
	case c.Namespace != "":
		if err := memory.ValidateNamespace(c.Namespace); err != nil {
			return c, fmt.Errorf("%s: %w", Header, err)
		}
	case len(c.Root) > maxClientRoot || strings.IndexFunc(c.Root, unicode.IsControl) >= 0:
		return c, fmt.Errorf("%s: the root is over %d bytes or holds control characters", Header, maxClientRoot)
	}
	return c, nil
}

type clientKey struct{}

// WithClient returns ctx carrying a client machine's project: the resolver
// then answers with it, whatever directory it is asked about.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientFrom returns the client machine's project ctx carries.
func ClientFrom(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok
}

// originURL reads the URL of the "origin" remote from the git configuration
// of the repository rooted at root, or "". It reads the file, as FindRoot
// does, rather than run git.
func originURL(root string) string {
	f, err := os.Open(gitConfigPath(root))
	if err != nil {
		return ""
	}
	defer f.Close()
	inOrigin := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inOrigin = strings.EqualFold(strings.Join(strings.Fields(line), " "), `[remote "origin"]`)
			continue
		}
		if !inOrigin {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && strings.EqualFold(strings.TrimSpace(k), "url") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// gitConfigPath is the configuration file of the repository rooted at root:
// in its .git directory, in the git directory a .git file names (a
// submodule), or in root itself (a bare repository).
func gitConfigPath(root string) string {
	gitPath := filepath.Join(root, ".git")
	fi, err := os.Stat(gitPath)
	switch {
	case err != nil:
		return filepath.Join(root, "config")
	case fi.IsDir():
		return filepath.Join(gitPath, "config")
	}
	dir := readGitDir(gitPath)
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return filepath.Join(dir, "config")
}

// remoteKey reduces a remote's URL to host and path: https://github.com/a/b.git,
// git@github.com:a/b and ssh://git@github.com:22/a/b all give github.com/a/b.
// A local path stays as it is.
func remoteKey(remote string) string {
	var host, path string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		host, path = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(remote, ":"); ok && !strings.Contains(at, "/") && len(at) > 1 {
		// scp-like: [user@]host:path
		_, host, _ = strings.Cut(at, "@")
		if host == "" {
			host = at
		}
		path = rest
	} else {
		return strings.TrimSuffix(strings.TrimRight(remote, "/"), ".git")
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return ""
	}
	return strings.ToLower(host) + "/" + path
}
