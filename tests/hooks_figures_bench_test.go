package tests

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/internal/benchreport"
	"github.com/recall-mcp/recall/internal/corpus"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// BenchmarkHookFigures times the hooks as whole processes, as Claude Code runs
// them, for each figure of the hooks' goals: the prompt hook at 1k memories
// with Ollama down, at 10k and 100k with every memory's vector and Ollama
// answering, post-tool-use with a 5 MB transcript, and the prompt hook with a
// hung Ollama (ten prompts in a row). Each runs without a server ("direct")
// and with a `recall serve` answering on the socket ("server"); each reports
// p50 and p95 over RECALL_BENCH_RUNS runs (30 by default).
//
//	go test -tags sqlite_fts5 -run '^$' -bench 'BenchmarkHookFigures' -benchtime 1x -timeout 60m ./tests/
//
// scripts/bench-hooks.sh runs the same file against an older commit too, in the
// same run. RECALL_BENCH_OLLAMA (a URL) and RECALL_BENCH_MODEL time the
// 10k prompt against a real Ollama instead of the fake.
func BenchmarkHookFigures(b *testing.B) {
	for _, mode := range []string{"direct", "server"} {
		b.Run("prompt-1k-ollama-down/"+mode, func(b *testing.B) {
			f := newHookFigure(b, 1000, "")
			f.c.vars["RECALL_OLLAMA_HOST"] = closedPortURL(b)
			f.time(b, mode, "user-prompt-submit", f.prompt())
		})
		b.Run("prompt-10k-vectors/"+mode, func(b *testing.B) {
			f := newHookFigure(b, 10_000, os.Getenv("RECALL_BENCH_MODEL"))
			if u := os.Getenv("RECALL_BENCH_OLLAMA"); u != "" {
				f.c.vars["RECALL_OLLAMA_HOST"] = u
				f.c.vars["RECALL_OLLAMA_MODEL"] = f.model
			}
			f.time(b, mode, "user-prompt-submit", f.prompt())
		})
		b.Run("prompt-100k-vectors/"+mode, func(b *testing.B) {
			if testing.Short() {
				b.Skip("100k: not with -short")
			}
			f := newHookFigure(b, 100_000, "")
			f.time(b, mode, "user-prompt-submit", f.prompt())
		})
		b.Run("post-tool-use-5MB-transcript/"+mode, func(b *testing.B) {
			f := newHookFigure(b, 1000, "")
			transcript := filepath.Join(f.c.dir, "transcript.jsonl")
			writeTranscript(b, transcript, 5<<20)
			f.time(b, mode, "post-tool-use", hookInput(b, "PostToolUse", f.cwd, map[string]any{
				"transcript_path": transcript, "tool_name": "Edit",
				"tool_input":    map[string]any{"file_path": filepath.Join(f.cwd, "orders.go"), "old_string": "ttl := 0", "new_string": "ttl := 5 * time.Minute"},
				"tool_response": map[string]any{"filePath": filepath.Join(f.cwd, "orders.go"), "success": true},
			}))
		})
		b.Run("post-tool-use-50MB-transcript/"+mode, func(b *testing.B) {
			// A long session: 50 MB of tool work, then a prompt (its hook
			// ran before Claude Code wrote its line, as 2.1 does), its first
			// tool call, and 1 MB more of the turn's tool work; the figure is
			// each tool call after that, and in-turn the share of them placed
			// in the prompt's turn.
			f := newHookFigure(b, 1000, "")
			transcript := filepath.Join(f.c.dir, "transcript.jsonl")
			writeWorkTranscript(b, transcript, 50<<20, "6b1f0c1e-prompt")
			prompt := "How many minutes does the orders service cache items?" // as f.prompt()
			f.run(b, "user-prompt-submit", hookInput(b, "UserPromptSubmit", f.cwd, map[string]any{"transcript_path": transcript, "prompt": prompt}))
			appendTranscript(b, transcript,
				`{"type":"user","uuid":"turn-2-prompt","message":{"role":"user","content":"`+prompt+`"}}`+"\n",
				`{"type":"assistant","uuid":"turn-2-a","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Edit","input":{}}]}}`+"\n")
			edit := hookInput(b, "PostToolUse", f.cwd, map[string]any{
				"transcript_path": transcript, "tool_name": "Edit",
				"tool_input":    map[string]any{"file_path": filepath.Join(f.cwd, "orders.go"), "old_string": "ttl := 0", "new_string": "ttl := 5 * time.Minute"},
				"tool_response": map[string]any{"filePath": filepath.Join(f.cwd, "orders.go"), "success": true},
			})
			f.run(b, "post-tool-use", edit)
			work := filepath.Join(f.c.dir, "work.jsonl")
			writeWorkTranscript(b, work, 1<<20, "")
			more, err := os.ReadFile(work)
			if err != nil {
				b.Fatal(err)
			}
			appendTranscript(b, transcript, string(more))
			f.time(b, mode, "post-tool-use", edit)
			// Working alone, post-tool-use keeps its tool calls beside the
			// database; the turn's Stop hook writes them.
			f.run(b, "stop", hookInput(b, "Stop", f.cwd, map[string]any{"transcript_path": transcript}))
			db, err := sql.Open("sqlite3", "file:"+f.c.dbPath+"?mode=ro")
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var calls, inTurn int
			if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE turn_id = 'turn-2-prompt') FROM journal WHERE kind = 'observation'`).Scan(&calls, &inTurn); err != nil || calls == 0 {
				b.Fatalf("%d tool calls captured (%v)", calls, err)
			}
			b.ReportMetric(float64(inTurn)/float64(calls), "in-turn")
		})
		b.Run("prompt-10k-hung-ollama/"+mode, func(b *testing.B) {
			f := newHookFigure(b, 10_000, "")
			f.c.vars["RECALL_OLLAMA_HOST"] = newHungOllama(b).URL()
			f.timeHung(b, mode, f.prompt())
		})
	}
}

// hookFigure is a database of n memories with vectors and a project to prompt in.
type hookFigure struct {
	c     *cliEnv
	cwd   string
	model string
}

func newHookFigure(b *testing.B, n int, model string) *hookFigure {
	c := newCLIEnv(b)
	delete(c.vars, "RECALL_HOOK_TIMEOUT") // the default, as users run it
	_, cwd := newProject(b, c, "shop-api")
	c.ok("stats") // creates the database
	if model == "" {
		model = "mxbai-embed-large"
	}
	seedOnce(b, c.dbPath, n, model)
	return &hookFigure{c: c, cwd: cwd, model: model}
}

// seeded holds a database seeded by seedHookFigure per size and model, to
// copy for the next figure of the same size (seeding 100k vectors takes
// longer than timing the hooks on them).
var seeded = map[string]string{}

// seedOnce gives path n seeded memories: a copy of the database seeded for an
// earlier figure of the same size, or of one kept in the directory
// RECALL_BENCH_SEEDS names (kept across runs there, so that a short quiet
// window is spent timing, not seeding; give each tree a directory of its own,
// an older binary cannot open a newer schema).
func seedOnce(b *testing.B, path string, n int, model string) {
	b.Helper()
	key := fmt.Sprintf("%d-%s", n, model)
	if from, ok := seeded[key]; ok {
		copyDatabase(b, from, path)
		return
	}
	keep := filepath.Join(filepath.Dir(recallBin), "seeded-"+key+".db") // removed with the binary
	if dir := os.Getenv("RECALL_BENCH_SEEDS"); dir != "" {
		keep = filepath.Join(dir, "seeded-"+key+".db")
		if _, err := os.Stat(keep); err == nil {
			copyDatabase(b, keep, path)
			seeded[key] = keep
			return
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	seedHookFigure(b, path, n, model)
	copyDatabase(b, path, keep)
	seeded[key] = keep
}

// copyDatabase copies a closed SQLite database with its write-ahead log.
func copyDatabase(b *testing.B, from, to string) {
	b.Helper()
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(from + suffix)
		if errors.Is(err, fs.ErrNotExist) && suffix != "" {
			os.Remove(to + suffix)
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	os.Remove(to + "-shm")
}

func (f *hookFigure) prompt() string {
	return hookInput(f.c.t, "UserPromptSubmit", f.cwd, map[string]any{"prompt": "How many minutes does the orders service cache items?"})
}

func (f *hookFigure) env() []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range f.c.vars {
		env = append(env, k+"="+v)
	}
	return append(env, "RECALL_LOG_LEVEL=error") // the last of a name wins
}

// run runs one hook process and returns its wall time.
func (f *hookFigure) run(b *testing.B, event, stdin string) time.Duration {
	var out, errOut bytes.Buffer
	cmd := exec.Command(recallBin, "hook", event)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = f.env(), strings.NewReader(stdin), &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	// Against a real Ollama the stored vectors (hashed words) and the
	// model's share no space, so its similarity may keep every memory out.
	if event == "user-prompt-submit" && os.Getenv("RECALL_BENCH_OLLAMA") == "" && !strings.Contains(out.String(), "Relevant memories") {
		b.Fatalf("hook answered %q, logged %q", out.String(), errOut.String())
	}
	if errOut.Len() > 0 {
		b.Fatalf("hook %s logged %q", event, errOut.String())
	}
	return took
}

// withServer runs `recall serve` for the database while fn runs; it skips the
// benchmark when the binary answers no hooks on a socket.
func (f *hookFigure) withServer(b *testing.B, fn func()) {
	cmd := exec.Command(recallBin, "serve")
	cmd.Env = f.env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(f.c.dbPath + ".sock"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Skip("this recall answers no hooks on a socket")
		}
	}
	fn()
}

// hookRuns is how many hook processes a figure times: RECALL_BENCH_RUNS, 30
// by default. Each figure starts from a fresh copy of its database, so a
// few hundred runs show what a database hooks have written to all day costs
// (its write-ahead log grown), which the first thirty do not.
func hookRuns(b *testing.B) int {
	s := os.Getenv("RECALL_BENCH_RUNS")
	if s == "" {
		return 30
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("RECALL_BENCH_RUNS=%q: want a number of runs, 1 or more", s)
	}
	return n
}

func (f *hookFigure) time(b *testing.B, mode, event, stdin string) {
	measure := func() {
		f.run(b, event, stdin) // warm: the page cache, and what the first hook learns
		var lat benchreport.Latencies
		for range hookRuns(b) {
			lat.Add(f.run(b, event, stdin))
		}
		lat.Report(b, 95)
	}
	if mode == "server" {
		f.withServer(b, measure)
	} else {
		measure()
	}
}

// timeHung runs three sequences of ten prompts against a hung Ollama, from a
// fresh start (no state file), and reports the first prompt of each and the
// nine after it apart.
func (f *hookFigure) timeHung(b *testing.B, mode, stdin string) {
	measure := func() {
		var first, rest benchreport.Latencies
		for range 3 {
			os.Remove(f.c.dbPath + ".ollama")
			first.Add(f.run(b, "user-prompt-submit", stdin))
			for range 9 {
				rest.Add(f.run(b, "user-prompt-submit", stdin))
			}
		}
		slices.Sort(first)
		b.ReportMetric(float64(first[len(first)-1].Microseconds())/1000, "first-max-ms")
		rest.Report(b, 95)
	}
	if mode == "server" {
		f.withServer(b, measure)
	} else {
		measure()
	}
}

// seedHookFigure stores n memories with vectors of model into the database at
// path: a third in the project, the rest global or another project; one in a
// hundred about the orders cache, the prompt's subject.
func seedHookFigure(b *testing.B, path string, n int, model string) {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var rec seedRecords
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	notes := corpus.Varied(min(n, corpus.MaxVaried), 11)
	for i := range n {
		note := notes[i%len(notes)]
		if i >= len(notes) {
			note += fmt.Sprintf(" (round %d)", i/len(notes)+1)
		}
		if i%100 == 0 {
			note = fmt.Sprintf("Orders are cached for %d minutes in the orders service", i%60+1)
		}
		at := t0.Add(time.Duration(i) * time.Second)
		rec.Memories = append(rec.Memories, &memory.Memory{
			ID: memory.NewID(at), Content: note, ContentHash: memory.ContentHash(note),
			Type: memory.TypeDecision, Namespace: []string{"project:shop-api", "global", "project:billing"}[i%3],
			Importance: 0.5, Confidence: memory.DefaultConfidence, CreatedAt: at, UpdatedAt: at, AccessedAt: at,
			Metadata: map[string]any{},
		})
	}
	if _, err := db.Import(ctx, rec); err != nil {
		b.Fatal(err)
	}
	space := memory.EmbeddingSpace{Model: model, Dimension: 1024}
	if _, err := db.BeginReindex(ctx, space); err != nil {
		b.Fatal(err)
	}
	for start := 0; start < n; start += 2000 {
		batch := map[string][]float32{}
		for _, m := range rec.Memories[start:min(start+2000, n)] {
			batch[m.ID] = ollamatest.Vector(m.Content, space.Dimension)
		}
		if err := db.StageVectors(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.FinishReindex(ctx); err != nil {
		b.Fatal(err)
	}
}

// writeTranscript writes a Claude Code transcript of about size bytes: a typed
// prompt, then assistant lines.
func writeTranscript(b *testing.B, path string, size int) {
	b.Helper()
	var buf bytes.Buffer
	buf.WriteString(`{"type":"user","uuid":"6b1f0c1e-prompt","message":{"role":"user","content":"make the orders cache last five minutes"}}` + "\n")
	line := `{"type":"assistant","uuid":"a-%d","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("reading the orders service ", 36) + `"}]}}` + "\n"
	for i := 0; buf.Len() < size; i++ {
		fmt.Fprintf(&buf, line, i)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
}

// writeWorkTranscript writes a Claude Code transcript of about size bytes of
// tool work, after a prompt (its uuid; none when ""): tool calls, each answered by a user line holding a 16 KB result,
// as Read and Bash answer in a long session.
func writeWorkTranscript(b *testing.B, path string, size int, prompt string) {
	b.Helper()
	var buf bytes.Buffer
	if prompt != "" {
		buf.WriteString(`{"type":"user","uuid":"` + prompt + `","message":{"role":"user","content":"make the orders cache last five minutes"}}` + "\n")
	}
	output := strings.Repeat("orders row 12345 cached in redis ok ", 16<<10/36)
	for i := 0; buf.Len() < size; i++ {
		fmt.Fprintf(&buf, `{"type":"assistant","uuid":"a-%d","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./orders/..."}}]}}`+"\n", i, i)
		fmt.Fprintf(&buf, `{"type":"user","uuid":"r-%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]}}`+"\n", i, i, output)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
}

// closedPortURL is the URL of a port nobody listens on: Ollama down.
func closedPortURL(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// hungOllama is a listener that accepts connections and never answers, as an
// Ollama stuck loading a model does. It counts the connections and keeps what
// each one sent.
type hungOllama struct {
	ln    net.Listener
	conns atomic.Int32

	mu       sync.Mutex
	requests []*bytes.Buffer
}

func newHungOllama(t testing.TB) *hungOllama {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hungOllama{ln: ln}
	var held []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			h.conns.Add(1)
			req := &bytes.Buffer{}
			h.mu.Lock()
			held = append(held, conn)
			h.requests = append(h.requests, req)
			h.mu.Unlock()
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := conn.Read(buf)
					h.mu.Lock()
					req.Write(buf[:n])
					h.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return h
}

func (h *hungOllama) URL() string { return "http://" + h.ln.Addr().String() }

// asked counts the connections whose request contains text.
func (h *hungOllama) asked(text string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.requests {
		if bytes.Contains(r.Bytes(), []byte(text)) {
			n++
		}
	}
	return n
}
