package hook

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/memory"
)

// Project is the project a session works in.
type Project struct {
	Root      string // the git root of the working directory, or the directory itself
	Name      string // the root's base name
	Namespace string // project:<name>
}

// FindProject walks up from dir looking for `.git` (a directory, or a file in a
// worktree or submodule). It does not run git: hooks must start fast. Without a
// git root the project is dir itself.
func FindProject(dir string) Project {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	root := dir
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	name := projectName(filepath.Base(root))
	return Project{Root: root, Name: name, Namespace: memory.ProjectNamespace(name)}
}

// maxProjectName keeps "project:<name>" within what memory.ValidateNamespace
// accepts.
const maxProjectName = 200

// projectName makes a directory name a valid namespace name: control and
// invisible format characters (zero-width, direction marks) dropped, surrounding space trimmed (as the context's project argument is) and
// length capped, so that no directory name can make every hook answer nothing.
func projectName(base string) string {
	name := strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, base))
	if len(name) > maxProjectName {
		name = strings.ToValidUTF8(name[:maxProjectName], "")
	}
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "root"
	}
	return name
}
