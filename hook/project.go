package hook

import (
	"os"
	"path/filepath"

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
	name := filepath.Base(root)
	if name == string(filepath.Separator) || name == "." || name == "" {
		name = "root"
	}
	return Project{Root: root, Name: name, Namespace: memory.ProjectNamespace(name)}
}
