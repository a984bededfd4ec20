package memory

import (
	"fmt"
	"strings"
)

// mermaidLabelRunes keeps diagram boxes readable.
const mermaidLabelRunes = 60

// mermaid draws an inspected graph as a Mermaid flowchart. Nodes are named
// n0, n1, ... (memory ids are not valid Mermaid names everywhere) and labels are
// quoted with every character that Mermaid could read as syntax escaped.
func mermaid(res *InspectResult) string {
	var b strings.Builder
	b.WriteString("graph LR\n")
	names := make(map[string]string, len(res.Nodes))
	for i, n := range res.Nodes {
		name := fmt.Sprintf("n%d", i)
		names[n.ID] = name
		label := fmt.Sprintf("%s: %s", n.Type, Preview(n.Content, mermaidLabelRunes))
		fmt.Fprintf(&b, "    %s[\"%s\"]\n", name, mermaidEscape(label))
	}
	for _, e := range res.Edges {
		fmt.Fprintf(&b, "    %s -->|%s %.2g| %s\n", names[e.SourceID], mermaidEscape(string(e.Relation)), e.Weight, names[e.TargetID])
	}
	if len(res.Nodes) > 0 {
		fmt.Fprintf(&b, "    style %s stroke-width:3px\n", names[res.Origin])
	}
	return b.String()
}

// mermaidEscaper turns characters Mermaid treats as syntax into its entity
// codes, so user text can neither break nor restructure the diagram.
var mermaidEscaper = strings.NewReplacer(
	`"`, "#quot;",
	"#", "#35;",
	"[", "#91;",
	"]", "#93;",
	"(", "#40;",
	")", "#41;",
	"{", "#123;",
	"}", "#125;",
	"<", "#lt;",
	">", "#gt;",
	"|", "#124;",
	"`", "#96;",
	"\n", " ",
	"\r", " ",
)

func mermaidEscape(s string) string { return mermaidEscaper.Replace(s) }
