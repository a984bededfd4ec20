package project

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/memory"
)

// Source says how a project was found.
type Source string

const (
	// SourceArgument: the caller named the project.
	SourceArgument Source = "argument"
	// SourcePinned: RECALL_PROJECT pins it.
	SourcePinned Source = "RECALL_PROJECT"
	// SourceCwd: from the working directory of a hook or the CLI.
	SourceCwd Source = "cwd"
	// SourceRoots: from the roots the MCP client offered.
	SourceRoots Source = "roots"
	// SourceNone: no project could be known; global memories only.
	SourceNone Source = "none"
	// SourceClient: sent by a client machine of a team server (Header).
	SourceClient Source = "client"
)

// Project is a resolved project: its namespace, its root when known, and how
// it was found.
type Project struct {
	Namespace string `json:"namespace"`
	Root      string `json:"root,omitempty"`
	Source    Source `json:"source"`
}

// Bindings is the part of the store the resolver needs.
type Bindings interface {
	// ProjectBindings lists every bound root (a read).
	ProjectBindings(ctx context.Context) ([]memory.ProjectBinding, error)
	// BindProject binds root to the first free candidate unless it is bound
	// already, and returns the binding (a best-effort write: it fails quickly
	// behind another writer).
	BindProject(ctx context.Context, root string, candidates []string) (memory.ProjectBinding, error)
}

// Resolver turns directories into projects.
type Resolver struct {
	store  Bindings
	pinned string
	log    *slog.Logger
}

// NewResolver builds a resolver over store. pinned is the namespace
// RECALL_PROJECT pins ("" when unset): it wins over any directory.
func NewResolver(store Bindings, pinned string, log *slog.Logger) *Resolver {
	if log == nil {
		log = slog.Default()
	}
	return &Resolver{store: store, pinned: pinned, log: log}
}

// Pinned returns the pinned project, if any.
func (r *Resolver) Pinned() (Project, bool) {
	if r.pinned == "" {
		return Project{}, false
	}
	return Project{Namespace: r.pinned, Source: SourcePinned}, true
}

// ForDir returns the project of dir (the process's working directory when
// empty): the pinned namespace, else the one bound to dir's root, binding the
// root on first sight. Root is dir's root either way.
//
// Serving a client machine (ctx carries its project, WithClient), dir is a
// path of that machine: the client's project is the answer.
func (r *Resolver) ForDir(ctx context.Context, dir string) (Project, error) {
	if c, ok := ClientFrom(ctx); ok {
		return r.ForClient(ctx, c)
	}
	root := FindRoot(dir)
	if p, ok := r.Pinned(); ok {
		p.Root = root
		return p, nil
	}
	ns, err := r.namespaceOf(ctx, root)
	if err != nil {
		return Project{}, err
	}
	return Project{Namespace: ns, Root: root, Source: SourceCwd}, nil
}

// Peek returns the project of dir as ForDir would, without binding anything:
// reads never write. bound is false when dir's root has no binding yet (the
// namespace is then the one it would get, which a later binding may change).
func (r *Resolver) Peek(ctx context.Context, dir string) (p Project, bound bool, err error) {
	if c, ok := ClientFrom(ctx); ok {
		p, err := r.ForClient(ctx, c)
		return p, err == nil, err
	}
	root := FindRoot(dir)
	if p, ok := r.Pinned(); ok {
		p.Root = root
		return p, true, nil
	}
	bindings, err := r.store.ProjectBindings(ctx)
	if err != nil {
		return Project{}, false, fmt.Errorf("reading project roots: %w", err)
	}
	p = Project{Root: root, Source: SourceCwd}
	for _, b := range bindings {
		if b.Root == root {
			p.Namespace = b.Namespace
			return p, true, nil
		}
	}
	p.Namespace = firstFree(Candidates(root), bindings)
	return p, false, nil
}

// ForClient returns the project a client machine sent: the namespace it
// pins, else the one bound to its root key, binding it on first sight, so
// every person's clone of a repository shares one namespace.
func (r *Resolver) ForClient(ctx context.Context, c Client) (Project, error) {
	if c.Namespace != "" {
		return Project{Namespace: c.Namespace, Source: SourceClient}, nil
	}
	ns, err := r.namespaceOf(ctx, c.Root)
	if err != nil {
		return Project{}, err
	}
	return Project{Namespace: ns, Root: c.Root, Source: SourceClient}, nil
}

// ForRoots returns the project of the first file:// URI among an MCP client's
// roots (the pinned one when set). ok is false when no root is a local
// directory.
func (r *Resolver) ForRoots(ctx context.Context, uris []string) (p Project, ok bool, err error) {
	if p, ok := r.Pinned(); ok {
		return p, true, nil
	}
	for _, u := range uris {
		dir, isFile := fileURIPath(u)
		if !isFile {
			continue
		}
		p, err := r.ForDir(ctx, dir)
		if err != nil {
			return Project{}, false, err
		}
		p.Source = SourceRoots
		return p, true, nil
	}
	return Project{}, false, nil
}

// fileURIPath returns the local path of a file:// URI.
func fileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" || (u.Host != "" && u.Host != "localhost") {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// namespaceOf returns root's namespace. A bound root is only read. A new one
// is bound; when that write cannot happen now (another process holds the
// write lock) the namespace it would get is used, and bound next time.
func (r *Resolver) namespaceOf(ctx context.Context, root string) (string, error) {
	bindings, err := r.store.ProjectBindings(ctx)
	if err != nil {
		return "", fmt.Errorf("reading project roots: %w", err)
	}
	for _, b := range bindings {
		if b.Root == root {
			return b.Namespace, nil
		}
	}
	cands := Candidates(root)
	b, err := r.store.BindProject(ctx, root, cands)
	if err == nil {
		return b.Namespace, nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", err
	}
	r.log.Warn("project root not bound yet; using the namespace it would get", "root", root, "err", err)
	return firstFree(cands, bindings), nil
}

// firstFree is the first candidate no binding holds.
func firstFree(cands []string, bindings []memory.ProjectBinding) string {
	taken := map[string]bool{}
	for _, b := range bindings {
		taken[b.Namespace] = true
	}
	for _, c := range cands {
		if !taken[c] {
			return c
		}
	}
	return cands[len(cands)-1]
}

// Candidates are the namespaces a root may be bound to, in order of
// preference: "project:<base name>", then that name with 4, 8 and 16 hex
// characters of the SHA-256 of the root added ("project:api-3f2a"), so a second
// "api" gets a short distinct name that stays the same for that root.
func Candidates(root string) []string {
	name := Name(root)
	sum := sha256.Sum256([]byte(root))
	h := hex.EncodeToString(sum[:])
	out := []string{memory.ProjectNamespace(name)}
	for _, n := range []int{4, 8, 16, 64} {
		out = append(out, memory.ProjectNamespace(name+"-"+h[:n]))
	}
	return out
}

// maxName keeps "project:<name>-<64 hex>" within what memory.ValidateNamespace
// accepts.
const maxName = 180

// Name makes a root's base name a valid namespace name: control and format
// characters (zero-width ones among them) dropped, surrounding space trimmed
// and length capped, so that no directory name can make a hook fail.
func Name(root string) string {
	name := strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, filepath.Base(root)))
	if len(name) > maxName {
		name = strings.TrimSpace(strings.ToValidUTF8(name[:maxName], ""))
	}
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "root"
	}
	return name
}
