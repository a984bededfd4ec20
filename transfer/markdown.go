package transfer

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recall-mcp/recall/internal/describe"
	"github.com/recall-mcp/recall/memory"
)

// ExportMarkdown writes a readable record of every memory into dir: one file
// per namespace (global.md, project-<name>.md), memories grouped by type,
// golden rules first, each with its id, confidence, importance, dates and
// links to the memories it is related to (across files). The output depends
// only on the memories, never on when it was written, so a directory kept in
// git shows exactly what changed. It returns the files written.
func ExportMarkdown(ctx context.Context, src Source, dir string) ([]string, error) {
	byNS := map[string][]*memory.Memory{}
	fileOf := map[string]string{}
	links := map[string][]memory.Edge{}
	err := src.Export(ctx, memory.RecordVisitor{
		Memory: func(m *memory.Memory) error {
			byNS[m.Namespace] = append(byNS[m.Namespace], m)
			fileOf[m.ID] = markdownFile(m.Namespace)
			return nil
		},
		Edge: func(e *memory.Edge) error {
			links[e.SourceID] = append(links[e.SourceID], *e)
			links[e.TargetID] = append(links[e.TargetID], *e)
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, ns := range slices.Sorted(maps.Keys(byNS)) {
		page := markdownPage(ns, byNS[ns], links, fileOf)
		path := filepath.Join(dir, markdownFile(ns))
		if err := writeFileAtomic(path, []byte(page)); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// markdownFile names a namespace's file: "project:billing" is project-billing.md.
func markdownFile(ns string) string {
	name := strings.Map(func(r rune) rune {
		if r == ':' || r == '/' || r == '\\' || r < ' ' {
			return '-'
		}
		return r
	}, ns)
	return name + ".md"
}

// typeOrder puts golden rules first, then the types in their usual order.
var typeOrder = append([]memory.Type{memory.TypeGoldenRule}, slices.DeleteFunc(slices.Clone(memory.Types), func(t memory.Type) bool { return t == memory.TypeGoldenRule })...)

var typeTitles = map[memory.Type]string{
	memory.TypeGoldenRule: "Golden rules", memory.TypePreference: "Preferences", memory.TypeDecision: "Decisions",
	memory.TypePattern: "Patterns", memory.TypeSession: "Sessions", memory.TypeFileContext: "File context",
}

func markdownPage(ns string, ms []*memory.Memory, links map[string][]memory.Edge, fileOf map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Memories of %s\n\n%s, exported by recall. Golden rules first, then by type, oldest first.\n", ns, describe.Count(len(ms), "memory", "memories"))
	byType := map[memory.Type][]*memory.Memory{}
	for _, m := range ms {
		byType[m.Type] = append(byType[m.Type], m)
	}
	for _, t := range typeOrder {
		group := byType[t]
		if len(group) == 0 {
			continue
		}
		slices.SortStableFunc(group, func(a, b *memory.Memory) int {
			return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
		})
		fmt.Fprintf(&b, "\n## %s\n", typeTitles[t])
		for _, m := range group {
			writeMemory(&b, m, links[m.ID], fileOf)
		}
	}
	return b.String()
}

func writeMemory(b *strings.Builder, m *memory.Memory, edges []memory.Edge, fileOf map[string]string) {
	fmt.Fprintf(b, "\n<a id=\"%s\"></a>\n%s\n\n", m.ID, quoteBlock(m.Content))
	fmt.Fprintf(b, "- id `%s` · confidence %.2f · importance %.2f · created %s · last used %s (%d times)\n",
		m.ID, m.Confidence, m.Importance, m.CreatedAt.UTC().Format("2006-01-02"), m.AccessedAt.UTC().Format("2006-01-02"), m.AccessCount)
	for _, e := range edges {
		other, verb := e.TargetID, string(e.Relation)
		if e.TargetID == m.ID {
			other, verb = e.SourceID, "is the target of "+verb+" from"
		}
		fmt.Fprintf(b, "- %s [%s](%s#%s)\n", verb, other, fileOf[other], other)
	}
}

// quoteBlock shows content as a markdown quote, so that headings or lists in
// a memory never break the page's structure.
func quoteBlock(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// writeFileAtomic writes a file under a temporary name and renames it.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".partial"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// MemoriesMarkdown renders a chosen list of memories (a filtered view, in its
// own order) as one Markdown page in the format of ExportMarkdown: each
// memory's content as a quote with its id, confidence, importance and dates.
// The title is the page's heading; a description line follows when not empty.
func MemoriesMarkdown(title, description string, ms []*memory.Memory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	if description != "" {
		fmt.Fprintf(&b, "%s\n", description)
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "\n%s · %s\n", m.Type, m.Namespace)
		writeMemory(&b, m, nil, nil)
	}
	return b.String()
}
