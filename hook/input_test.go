package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// oneByteReader hands its text over a byte at a time, as a pipe may.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// stdinNeverEnding is stdin whose writer keeps it open after the object.
type stdinNeverEnding struct{ r io.Reader }

func (s stdinNeverEnding) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		time.Sleep(time.Hour) // a test that reads past the object never ends
	}
	return n, err
}

// The hook's input is read up to the end of its JSON object, found by its
// braces outside strings (with escaped quotes in them), in pieces or whole,
// without waiting for stdin to end; anything but an object is refused.
func TestReadRawInputFindsTheObjectsEnd(t *testing.T) {
	obj := `{"tool_name":"Edit","tool_input":{"new_string":"func f() { if x { return \"}\\\"{\" } }"},"list":[{"a":"]"},2]}`
	for name, r := range map[string]io.Reader{
		"whole":          strings.NewReader("\n " + obj + "\n"),
		"a byte at once": oneByteReader{strings.NewReader(obj)},
		"never ending":   stdinNeverEnding{strings.NewReader(obj + "\n")},
	} {
		raw, err := readRawInput(r)
		if err != nil || string(raw) != obj {
			t.Errorf("%s: read %q, %v; want the object", name, raw, err)
		}
		if !json.Valid(raw) {
			t.Errorf("%s: %q is not the whole object", name, raw)
		}
	}
	for _, bad := range []string{`["a"]`, `"text"`, `{"cut": "short`, ``} {
		if raw, err := readRawInput(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read as %q; want an error", bad, raw)
		}
	}
}

// A request goes out with the hook's input as it was read, last, and the
// server takes it apart without decoding the input: the same bytes reach
// ParseInput. An input holding its own "input" keys, or a request written
// some other way, decodes all the same.
func TestRequestKeepsTheHooksInputAsItWasRead(t *testing.T) {
	for _, input := range []string{
		`{"tool_name":"Read","tool_response":{"file":{"content":"a\"b}c"}}}`,
		`{"tool_input":{"input":1},"x":{"y":{"input":[1,2]}}}`,
	} {
		req := Request{ID: "hook-1", Event: PostToolUse, Input: json.RawMessage(input)}
		b, err := marshalWithInput(req, requestHead{req.ID, req.Event}, req.Input)
		if err != nil || !json.Valid(b) || bytes.IndexByte(b, '\n') >= 0 {
			t.Fatalf("%s: written as %s (%v); want one line of JSON", input, b, err)
		}
		var got Request
		if err := parseRequest(append(b, '\n'), &got); err != nil || got.ID != "hook-1" || got.Event != PostToolUse || string(got.Input) != input {
			t.Fatalf("%s: read back as %+v (%s), %v", input, got, got.Input, err)
		}
	}
	// Pretty-printed input is compacted, so that the request stays one line.
	req := Request{ID: "hook-2", Event: Stop, Input: json.RawMessage("{\n  \"session_id\": \"s1\"\n}")}
	b, err := marshalWithInput(req, requestHead{req.ID, req.Event}, req.Input)
	if err != nil || bytes.IndexByte(b, '\n') >= 0 {
		t.Fatalf("written as %q (%v); want one line", b, err)
	}
	// Fields in another order: decoded whole.
	var got Request
	if err := parseRequest([]byte(`{"input":{"session_id":"s1"},"event":"stop","id":"hook-3"}`), &got); err != nil || got.ID != "hook-3" || string(got.Input) != `{"session_id":"s1"}` {
		t.Fatalf("read as %+v, %v", got, err)
	}
}

// BenchmarkRequestOfAFileRead times what a hook and a server do with the
// input of a post-tool-use that read a 200 KB file: the hook reads it and
// sends it, the server reads the request and decodes the input.
func BenchmarkRequestOfAFileRead(b *testing.B) {
	input, _ := json.Marshal(map[string]any{"session_id": "s1", "tool_name": "Read", "tool_input": map[string]any{"file_path": "/src/main.go"},
		"tool_response": map[string]any{"file": map[string]any{"content": strings.Repeat("func main() {\n\tfmt.Println(\"hello \\\"world\\\"\")\n}\n", 4000)}}})
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		raw, err := readRawInput(bytes.NewReader(input))
		if err != nil {
			b.Fatal(err)
		}
		req := Request{ID: "hook-1", Event: PostToolUse, Input: raw}
		line, err := marshalWithInput(req, requestHead{req.ID, req.Event}, req.Input)
		if err != nil {
			b.Fatal(err)
		}
		got, err := readRawInput(bytes.NewReader(line))
		if err != nil {
			b.Fatal(err)
		}
		var r Request
		if err := parseRequest(got, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := ParseInput(r.Input); err != nil {
			b.Fatal(err)
		}
	}
}
