// Package project tells which project a directory belongs to. A project is
// its root: the top level of its git repository, the same for every worktree
// of that repository, else the directory itself. Each root is bound to one
// namespace ("project:<name>", the name from the root's base name) in the
// database; a second root whose base name is already bound gets a distinct
// namespace, so two directories called "api" never share memories. Hooks, the
// CLI and the MCP server all resolve projects through a Resolver.
package project

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// FindRoot returns the root of the project dir is in. It walks up from dir to
// the first directory with a `.git` entry; it does not run git, since hooks
// must start fast:
//
//   - `.git` a directory: that directory's parent is the root;
//   - `.git` a file naming a linked worktree's git directory (which holds a
//     `commondir` file): the main repository's top level is the root, so every
//     worktree of a repository is one project;
//   - `.git` a file without a commondir (a submodule): the submodule is its own
//     project, rooted where the file is.
//
// Without any `.git` the root is dir itself. Paths are absolute with symbolic
// links resolved, so one directory reached two ways is one project.
func FindRoot(dir string) string {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; d = filepath.Dir(d) {
		gitPath := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitPath); err == nil {
			if fi.IsDir() {
				return d
			}
			if root := worktreeRoot(d, gitPath); root != "" {
				return root
			}
			return d
		}
		if parent := filepath.Dir(d); parent == d {
			return dir
		}
	}
}

// InRepository reports whether dir (the working directory when empty) is
// inside a git repository, worktree or submodule.
func InRepository(dir string) bool {
	_, err := os.Stat(filepath.Join(FindRoot(dir), ".git"))
	return err == nil
}

// worktreeRoot reads a `.git` file ("gitdir: <path>") and returns the top
// level of the main repository when the git directory belongs to a linked
// worktree, else "".
func worktreeRoot(dir, gitFile string) string {
	gitDir := readGitDir(gitFile)
	if gitDir == "" {
		return ""
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	common, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return "" // not a linked worktree (a submodule, say)
	}
	commonDir := strings.TrimSpace(string(common))
	if !filepath.IsAbs(commonDir) {
		commonDir = filepath.Join(gitDir, commonDir)
	}
	commonDir = filepath.Clean(commonDir)
	if real, err := filepath.EvalSymlinks(commonDir); err == nil {
		commonDir = real
	}
	if filepath.Base(commonDir) == ".git" {
		return filepath.Dir(commonDir)
	}
	return commonDir // a bare repository: the repository is the project
}

// readGitDir returns the path of a `.git` file's "gitdir:" line, or "".
func readGitDir(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "gitdir:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// Worktrees returns the directories of a repository's project: root (as
// FindRoot gives it) and every linked worktree git knows of, removed ones
// too until git prunes them (their conversations still belong to the
// project). A directory that is no repository gives itself alone.
func Worktrees(root string) []string {
	out := []string{root}
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		gitDir = root // a bare repository holds its worktrees itself
	}
	entries, err := os.ReadDir(filepath.Join(gitDir, "worktrees"))
	if err != nil {
		return out
	}
	for _, e := range entries {
		// gitdir holds the path of the worktree's `.git` file.
		b, err := os.ReadFile(filepath.Join(gitDir, "worktrees", e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, "worktrees", e.Name(), p)
		}
		dir := filepath.Dir(filepath.Clean(p))
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if dir != root {
			out = append(out, dir)
		}
	}
	return out
}
