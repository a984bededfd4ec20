package history

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// anchoredTranscript writes a transcript of n turns, each a prompt, an
// assistant tool call and its result, with a large tool result every few
// lines, and returns its path and the file's size after each turn.
func anchoredTranscript(t testing.TB, n int) (string, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var b strings.Builder
	var sizes []int64
	big := strings.Repeat("x", 200<<10) // longer than a backward read's chunk
	for i := range n {
		fmt.Fprintf(&b, `{"type":"user","uuid":"p-%d","promptId":"pid-%d","sessionId":"s","message":{"role":"user","content":"prompt number %d"}}`+"\n", i, i, i)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"a-%d","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"echo %d"}}]}}`+"\n", i, i, i)
		out := fmt.Sprintf("output %d", i)
		if i%3 == 0 {
			out += big
		}
		fmt.Fprintf(&b, `{"type":"user","uuid":"r-%d","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]}}`+"\n", i, i, out)
		fmt.Fprintf(&b, `{"type":"progress","uuid":"x-%d"}`+"\n", i)
		sizes = append(sizes, int64(b.Len()))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, sizes
}

func TestAroundAnchorFindsTheMessageNearItsOffset(t *testing.T) {
	path, sizes := anchoredTranscript(t, 30)
	afterTurn := func(i int) int64 { return sizes[i] }
	cases := []struct {
		name          string
		a             Anchor
		before, after int
		want          []string
	}{
		// A PostToolUse hook runs once the tool call's line is written (its
		// result line may be written too by then).
		{"tool call, hook before its result", Anchor{ToolUseID: "toolu_17", Offset: afterTurn(16) + 1}, 2, 2, []string{"r-16", "p-17", "a-17", "r-17", "p-18"}},
		{"tool call, hook after its result", Anchor{ToolUseID: "toolu_17", Offset: afterTurn(17)}, 1, 1, []string{"p-17", "a-17", "r-17"}},
		// A UserPromptSubmit hook runs before its prompt is written.
		{"prompt, after the hook's offset", Anchor{Prompt: true, Offset: afterTurn(20)}, 1, 1, []string{"r-20", "p-21", "a-21"}},
		{"prompt by its id", Anchor{PromptID: "pid-22", Offset: afterTurn(21)}, 0, 1, []string{"p-22", "a-22"}},
		{"prompt by its id, no offset", Anchor{PromptID: "pid-2"}, 0, 0, []string{"p-2"}},
		{"prompt, file not there when captured", Anchor{Prompt: true}, 0, 0, []string{"p-0"}},
		{"message uuid", Anchor{UUID: "a-5", Offset: afterTurn(5)}, 0, 0, []string{"a-5"}},
		{"no offset: from the start", Anchor{ToolUseID: "toolu_3"}, 1, 0, []string{"p-3", "a-3"}},
		{"offset past a rewritten file's end", Anchor{ToolUseID: "toolu_29", Offset: 1 << 40}, 0, 1, []string{"a-29", "r-29"}},
		{"prompt, offset at a line start", Anchor{Prompt: true, Offset: afterTurn(3)}, 0, 0, []string{"p-4"}},
		{"offset far from the message", Anchor{ToolUseID: "toolu_0", Offset: afterTurn(29)}, 0, 0, []string{"a-0"}},
		{"first line of the file", Anchor{UUID: "p-0", Offset: afterTurn(0)}, 3, 0, []string{"p-0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs, anchor, err := Reader{}.AroundAnchor(path, c.a, c.before, c.after)
			if err != nil {
				t.Fatal(err)
			}
			if got := uuids(msgs); !slices.Equal(got, c.want) {
				t.Fatalf("window %v, want %v", got, c.want)
			}
			if want := c.want[min(c.before, len(c.want)-1, anchor)]; anchor >= len(msgs) || msgs[anchor].UUID != want || (c.before < len(c.want) && anchor != c.before) {
				t.Errorf("anchor at %d (%s)", anchor, msgs[anchor].UUID)
			}
		})
	}
}

func TestAroundAnchorNamesWhatIsMissing(t *testing.T) {
	path, sizes := anchoredTranscript(t, 3)
	if _, _, err := (Reader{}).AroundAnchor(path, Anchor{ToolUseID: "toolu_99", Offset: sizes[2]}, 1, 1); err == nil || !strings.Contains(err.Error(), "toolu_99") {
		t.Errorf("unknown tool call: err = %v", err)
	}
	// A tool result names the call too, but is not the call.
	if _, _, err := (Reader{}).AroundAnchor(path, Anchor{UUID: "nope"}, 1, 1); err == nil {
		t.Error("unknown uuid found")
	}
	if _, _, err := (Reader{}).AroundAnchor(path, Anchor{Prompt: true, Offset: sizes[2]}, 1, 1); err == nil {
		t.Error("a prompt after the last one was found")
	}
	// A prompt captured at an offset is not one before it.
	if _, _, err := (Reader{}).AroundAnchor(path, Anchor{PromptID: "pid-0", Offset: sizes[1]}, 0, 0); err == nil {
		t.Error("a prompt before the offset was taken for one after it")
	}
}

func TestAroundAnchorSkipsAHalfWrittenLine(t *testing.T) {
	path, sizes := anchoredTranscript(t, 4)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Claude Code is writing the next line; the hook's offset falls in it.
	half := `{"type":"assistant","uuid":"a-half","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_3"`
	f.WriteString(half)
	f.Close()
	msgs, _, err := Reader{}.AroundAnchor(path, Anchor{ToolUseID: "toolu_3", Offset: sizes[3] + int64(len(half))}, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := uuids(msgs); !slices.Equal(got, []string{"a-3", "r-3"}) {
		t.Errorf("window %v", got)
	}
}

// BenchmarkAroundAnchor reads a tool call's window at the end of a large
// transcript by its anchor, against reading the file from the start (what
// details did before anchors had an offset).
func BenchmarkAroundAnchor(b *testing.B) {
	path, sizes := anchoredTranscript(b, 600) // about 40 MB
	last := len(sizes) - 1
	a := Anchor{ToolUseID: fmt.Sprintf("toolu_%d", last), Offset: sizes[last]}
	b.Run("by-offset", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := (Reader{}).AroundAnchor(path, a, 3, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("from-start", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := (Reader{}).AroundAnchor(path, Anchor{ToolUseID: a.ToolUseID}, 3, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A whole conversation read a page at a time gives every message once, in
// order, each page within its bounds.
func TestPagesReadAWholeConversationOnce(t *testing.T) {
	path, _ := anchoredTranscript(t, 40)
	all, _, err := Reader{}.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var from int64
	pages := 0
	for {
		msgs, next, err := Reader{}.Page(path, from, 7, 4<<10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		text := 0
		for _, m := range msgs {
			text += len(m.Text)
		}
		if len(msgs) == 0 || len(msgs) > 7 || (len(msgs) > 1 && text > 4<<10) {
			t.Fatalf("page %d: %d messages, %d bytes of text", pages, len(msgs), text)
		}
		got = append(got, uuids(msgs)...)
		if next == 0 {
			break
		}
		if next <= from {
			t.Fatalf("page %d: next %d does not move past %d", pages, next, from)
		}
		from = next
	}
	if want := uuids(all); !slices.Equal(got, want) {
		t.Fatalf("pages gave %d messages %v\nwant %d %v", len(got), got, len(want), want)
	}
	if pages < 10 {
		t.Errorf("%d pages for %d messages of 7 at most", pages, len(all))
	}
	if _, _, err := (Reader{}).Page(path, 1<<40, 7, 4<<10); err == nil {
		t.Error("a cursor past the file's end was accepted")
	}
}

// CatchUp reads only the asked projects' new lines, within its budget.
func TestCatchUpReadsTheProjectsNewLinesWithinItsBudget(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	line := func(uuid, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","sessionId":"s","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	write := func(project, name, text string) {
		dir := filepath.Join(root, EscapeProject(project))
		os.MkdirAll(dir, 0o700)
		f, err := os.OpenFile(filepath.Join(dir, name+".jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	write("/src/shop", "a", line("a1", "first"))
	write("/src/shop/api", "b", line("b1", "from a subdirectory"))
	write("/src/shopping", "c", line("c1", "another project"))
	write("/src/blog", "d", line("d1", "another project"))
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, left, err := ix.CatchUp(ctx, CatchUpOptions{Root: root, Projects: []string{"/src/shop"}, MaxBytes: 1 << 20})
	if err != nil || st.Messages != 2 || left != 0 {
		t.Fatalf("first catch-up: %+v, left %d, %v; want the shop's two messages", st, left, err)
	}
	write("/src/shop", "a", line("a2", "second"))
	write("/src/shop", "a", strings.Repeat(line("a3", "padding"), 100))
	st, left, err = ix.CatchUp(ctx, CatchUpOptions{Root: root, Projects: []string{"/src/shop"}, MaxBytes: 1000})
	if err != nil || st.Messages != 0 || left == 0 {
		t.Fatalf("over budget: %+v, left %d, %v; want it left for a full update", st, left, err)
	}
	st, _, err = ix.CatchUp(ctx, CatchUpOptions{Root: root, Projects: []string{"/src/shop"}, MaxBytes: 1 << 20})
	if err != nil || st.Messages != 101 {
		t.Fatalf("appended lines: %+v, %v", st, err)
	}
	var n int
	ix.db.QueryRow(`SELECT count(*) FROM messages`).Scan(&n)
	if n != 103 {
		t.Errorf("%d messages indexed, want the shop's 103 only", n)
	}
}
