package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// These tests speak raw newline-delimited JSON to the binary, as a shell
// pipe or a misbehaving client does, rather than through an SDK client that
// never sends a malformed line.

const (
	initLine        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// answer is one JSON-RPC answer line.
type answer struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseAnswers(t *testing.T, out []byte) []answer {
	t.Helper()
	var answers []answer
	for line := range strings.Lines(string(out)) {
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q (%v)", line, err)
		}
		answers = append(answers, a)
	}
	return answers
}

func storeLine(id int, content string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_store_tool","arguments":{"content":%q}}}`, id, content)
}

// TestStdioMalformedLinesGetErrorsAndTheSessionGoesOn pipes garbage between
// good requests: each bad line gets its JSON-RPC error, the good ones their
// results, and the process exits 0 at the end of input.
func TestStdioMalformedLinesGetErrorsAndTheSessionGoesOn(t *testing.T) {
	env, dbPath := recallEnv(t)
	input := strings.Join([]string{
		initLine, initializedLine,
		`this is not json`,
		`[1, 2, "garbage"]`,
		`{"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0","id":8,"params":{}}`,
		`"just a string"`,
		storeLine(2, "Malformed input MUST NOT stop the server."),
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_teleport_tool","arguments":{}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(input)
	cmd.Stderr = stderrFile(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("recall serve: %v, want exit 0; stdout:\n%s", err, out)
	}
	answers := parseAnswers(t, out)
	wantCodes := []struct {
		id   any
		code int
	}{{nil, -32700}, {nil, -32600}, {7.0, -32600}, {8.0, -32600}, {nil, -32600}}
	var errs []answer
	var stored, unknown *answer
	for i, a := range answers {
		switch {
		case a.ID == 2.0:
			stored = &answers[i]
		case a.ID == 3.0:
			unknown = &answers[i]
		case a.Error != nil:
			errs = append(errs, a)
		}
	}
	if len(errs) != len(wantCodes) {
		t.Fatalf("got %d error answers to malformed lines, want %d:\n%s", len(errs), len(wantCodes), out)
	}
	for i, w := range wantCodes {
		if errs[i].ID != w.id || errs[i].Error.Code != w.code {
			t.Errorf("answer %d to a malformed line: id %v code %d (%s), want id %v code %d", i, errs[i].ID, errs[i].Error.Code, errs[i].Error.Message, w.id, w.code)
		}
	}
	if stored == nil || stored.Error != nil || !bytes.Contains(stored.Result, []byte(`"success":true`)) {
		t.Errorf("the store after the garbage was not answered with success:\n%s", out)
	}
	// The MCP specification (and its conformance suite) make an unknown tool a
	// protocol error: -32602, invalid params.
	if unknown == nil || unknown.Error == nil || unknown.Error.Code != -32602 || !strings.Contains(unknown.Error.Message, "memory_teleport_tool") {
		t.Errorf("unknown tool answered %+v, want error -32602 naming the tool", unknown)
	}
	if n := checkDatabase(t, dbPath); n != 1 {
		t.Errorf("database holds %d memories, want 1", n)
	}
}

// TestStdioAnswersEveryRequestAtEndOfInput is `printf '<init>\n<initialized>\n
// <calls>\n' | recall serve`: every call gets its answer before the process
// exits.
func TestStdioAnswersEveryRequestAtEndOfInput(t *testing.T) {
	env, dbPath := recallEnv(t)
	lines := []string{initLine, initializedLine}
	for i := range 10 {
		lines = append(lines, storeLine(10+i, fmt.Sprintf("Piped memory %d SHOULD be answered before exit.", i)))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"memory_count_tool","arguments":{}}}`)
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	cmd.Stderr = stderrFile(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("recall serve: %v", err)
	}
	ids := map[any]bool{}
	for _, a := range parseAnswers(t, out) {
		if a.Error != nil {
			t.Errorf("answer %v is an error: %s", a.ID, a.Error.Message)
		}
		ids[a.ID] = true
	}
	for _, id := range []float64{1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 99} {
		if !ids[id] {
			t.Errorf("request %v got no answer; stdout:\n%s", id, out)
		}
	}
	if n := checkDatabase(t, dbPath); n != 10 {
		t.Errorf("database holds %d memories, want 10", n)
	}
}

// TestStdioSIGTERMAnswersEveryRequestRead sends requests and SIGTERM at once,
// with stdin still open: every store the server carried out was answered, so
// no client is left waiting on a write that happened.
func TestStdioSIGTERMAnswersEveryRequestRead(t *testing.T) {
	env, dbPath := recallEnv(t)
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = env
	cmd.Stderr = stderrFile(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	fmt.Fprintln(stdin, initLine)
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatalf("no answer to initialize: %v", err)
	}
	fmt.Fprintln(stdin, initializedLine)
	var batch strings.Builder
	for i := range 30 {
		batch.WriteString(storeLine(100+i, fmt.Sprintf("Memory %d stored just before SIGTERM.", i)) + "\n")
	}
	io.WriteString(stdin, batch.String())
	// The first answer shows the server is reading the batch: signal then,
	// with most of the batch read or waiting to be.
	first, err := out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer to the first store: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(out)
	rest = append(first, rest...)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("recall after SIGTERM: %v, want exit 0", err)
	}
	answered := 0
	for _, a := range parseAnswers(t, rest) {
		if a.Error == nil {
			answered++
		}
	}
	stored := checkDatabase(t, dbPath)
	t.Logf("%d stores answered, %d stored", answered, stored)
	if stored == 0 {
		t.Fatal("nothing was stored before SIGTERM: the test proves nothing")
	}
	if answered != stored {
		t.Errorf("%d stores answered but %d stored: a request read before SIGTERM went unanswered", answered, stored)
	}
}

// TestStdioNullIDAndSecondInitializeGetProperErrors: a request with "id":
// null is owed an answer, and a second initialize an error code that means
// something.
func TestStdioNullIDAndSecondInitializeGetProperErrors(t *testing.T) {
	env, _ := recallEnv(t)
	input := strings.Join([]string{
		initLine, initializedLine,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		strings.Replace(initLine, `"id":1`, `"id":2`, 1),
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n") + "\n"
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(input)
	cmd.Stderr = stderrFile(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("recall serve: %v; stdout:\n%s", err, out)
	}
	byID := map[any]answer{}
	for _, a := range parseAnswers(t, out) {
		byID[a.ID] = a
	}
	if a, ok := byID[nil]; !ok || a.Error == nil || a.Error.Code != -32600 {
		t.Errorf(`"id": null got %+v, want an answer with error -32600:\n%s`, a, out)
	}
	if a := byID[2.0]; a.Error == nil || a.Error.Code != -32600 {
		t.Errorf("a second initialize got %+v, want error -32600:\n%s", a, out)
	}
	if a := byID[3.0]; a.Error != nil || a.Result == nil {
		t.Errorf("ping after them: %+v, want a result", a)
	}
}
