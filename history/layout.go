package history

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Transcript is one JSONL file of Claude Code's projects directory.
//
// The layout: <root>/<escaped-cwd>/<session-id>.jsonl for sessions; subagent
// conversations in <session-id>/subagents/agent-<id>.jsonl (newer versions,
// sometimes nested deeper, beside agent-<id>.meta.json) or agent-<id>.jsonl
// beside the sessions (older versions, whose session id is only inside).
type Transcript struct {
	Path       string
	ProjectDir string // the escaped directory name, e.g. -home-dev-shop
	SessionID  string // "" for the older subagent layout: read from the records
	AgentID    string // set for subagent conversations
	Size       int64
	ModTime    time.Time
}

// Subagent reports whether the transcript is a subagent conversation.
func (t Transcript) Subagent() bool { return t.AgentID != "" }

// Scan lists the transcripts under root. A root that does not exist holds no
// history yet: no transcripts, no error.
func Scan(root string) ([]Transcript, error) {
	return scanWhere(root, func(string) bool { return true })
}

// scanWhere lists the transcripts of the project directories under root
// whose (escaped) names keep accepts.
func scanWhere(root string, keep func(name string) bool) ([]Transcript, error) {
	projects, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Transcript
	for _, p := range projects {
		if !p.IsDir() || !keep(p.Name()) {
			continue
		}
		found, err := scanProject(filepath.Join(root, p.Name()), p.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

func scanProject(dir, project string) ([]Transcript, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // removed while scanning
		}
		return nil, err
	}
	var out []Transcript
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
			subs, err := scanSubagents(filepath.Join(dir, name, "subagents"), project, name)
			if err != nil {
				return nil, err
			}
			out = append(out, subs...)
		case strings.HasSuffix(name, ".jsonl"):
			t := Transcript{Path: filepath.Join(dir, name), ProjectDir: project}
			if agent, ok := agentID(name); ok {
				t.AgentID = agent
			} else {
				t.SessionID = strings.TrimSuffix(name, ".jsonl")
			}
			if stat(&t, e) {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// scanSubagents lists the agent-*.jsonl files under dir, at any depth.
func scanSubagents(dir, project, session string) ([]Transcript, error) {
	var out []Transcript
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		agent, ok := agentID(d.Name())
		if !ok {
			return nil // agent-<id>.meta.json and other side files
		}
		t := Transcript{Path: path, ProjectDir: project, SessionID: session, AgentID: agent}
		if stat(&t, d) {
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// agentID returns <id> of a file named agent-<id>.jsonl.
func agentID(name string) (string, bool) {
	if !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl"), true
}

// stat fills size and time; false when the file went away meanwhile.
func stat(t *Transcript, d fs.DirEntry) bool {
	info, err := d.Info()
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	t.Size, t.ModTime = info.Size(), info.ModTime()
	return true
}

// EscapeProject is the directory name Claude Code gives the transcripts of a
// working directory: every character other than an ASCII letter or digit
// becomes '-' (so /home/dev/my_app.v2 is -home-dev-my-app-v2). It is lossy:
// the real path is read from the records' cwd.
func EscapeProject(path string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, path)
}
