package capture

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/internal/lazy"
	"github.com/recall-mcp/recall/memory"
)

// Limits of an extractive summary: a few lines an agent reads at a glance.
const (
	extractPrompts  = 3
	extractCommands = 6
	extractFiles    = 8
	extractErrors   = 3
	extractLine     = 140 // runes of one item
)

// editTools change files; their files are the session's changed files.
var editTools = map[string]bool{"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// errorLine finds a line of output that reports a failure.
var errorLine = lazy.Regexp(`(?im)^.*\b(error|errors|failed|failure|fail|panic|exception|traceback|fatal|denied|not found|exit (?:code|status) [1-9]\d*)\b.*$`)

// Extract summarises a session's entries without a model: a title (the first
// prompt) and lines on what was asked, the commands run and how they ended,
// the files changed and the errors seen. The entries are cleaned already.
func Extract(entries []*Entry) (title, body string) {
	var prompts, commands, files, errs []string
	seen := map[string]bool{}
	add := func(list *[]string, max int, s string) {
		if s = memory.Preview(s, extractLine); s != "" && !seen[s] && len(*list) < max {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	tools := 0
	for _, e := range entries {
		switch e.Kind {
		case KindPrompt:
			add(&prompts, extractPrompts, e.Body)
			if title == "" {
				title = memory.Preview(e.Body, 100)
			}
		case KindObservation:
			tools++
			out := outputOf(e.Body)
			failure := firstError(out)
			if e.ToolName == "Bash" {
				cmd := commandOf(e)
				if failure != "" {
					cmd += " → failed: " + failure
				} else {
					cmd += " → ok"
				}
				add(&commands, extractCommands, cmd)
			}
			if editTools[e.ToolName] {
				for _, f := range e.Files {
					add(&files, extractFiles, shortPath(f))
				}
			}
			if failure != "" {
				add(&errs, extractErrors, e.ToolName+": "+failure)
			}
		}
	}
	if title == "" {
		title = fmt.Sprintf("%d tool calls", tools)
	}
	var b strings.Builder
	line := func(label string, items []string, sep string) {
		if len(items) > 0 {
			b.WriteString("- " + label + ": " + strings.Join(items, sep) + "\n")
		}
	}
	line("Asked", prompts, " | ")
	line("Ran", commands, " | ")
	line("Changed", files, ", ")
	line("Errors", errs, " | ")
	fmt.Fprintf(&b, "- %s, %s (extractive summary, no chat model)",
		describe.Count(countKind(entries, KindPrompt), "prompt", "prompts"), describe.Count(tools, "tool call", "tool calls"))
	return title, b.String()
}

func countKind(entries []*Entry, k Kind) int {
	n := 0
	for _, e := range entries {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// outputOf is the output part of an observation's body.
func outputOf(body string) string {
	if i := strings.Index(body, "\noutput:\n"); i >= 0 {
		return body[i+len("\noutput:\n"):]
	}
	return ""
}

// commandOf is the command of a Bash observation, from its title ("Bash: cmd
// → outcome").
func commandOf(e *Entry) string {
	t := strings.TrimPrefix(e.Title, e.ToolName+": ")
	if i := strings.Index(t, " → "); i >= 0 {
		t = t[:i]
	}
	return "`" + strings.TrimSpace(t) + "`"
}

// noFailure is a line that names failures to say there were none.
var noFailure = lazy.Regexp(`(?i)\b(no|0|zero|without) (errors?|failures?|failed|fail|panics?|exceptions?)\b`)

// firstError is the first line of output that reports a failure, or "".
func firstError(out string) string {
	for _, m := range errorLine().FindAllString(out, 20) {
		if !noFailure().MatchString(m) {
			return memory.Preview(m, 100)
		}
	}
	return ""
}

// shortPath keeps a file's last two path elements: enough to tell it apart.
func shortPath(p string) string {
	dir, base := filepath.Split(filepath.Clean(p))
	if parent := filepath.Base(dir); parent != "." && parent != string(filepath.Separator) && parent != "" {
		return parent + "/" + base
	}
	return base
}
