package ollamatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/embedding/ollamatest"
)

func client(t *testing.T, s *ollamatest.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

func TestEmbedBatchReturnsOneNormalisedVectorPerInput(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithDimension(64))
	texts := []string{"SQLite stores the memories", "Ollama computes embeddings", "tabs not spaces"}
	resp, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large", Input: texts})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "mxbai-embed-large" {
		t.Errorf("model = %q, want the requested name", resp.Model)
	}
	if len(resp.Embeddings) != len(texts) {
		t.Fatalf("got %d embeddings for %d inputs", len(resp.Embeddings), len(texts))
	}
	for i, vec := range resp.Embeddings {
		if len(vec) != 64 {
			t.Errorf("embedding %d has dimension %d, want 64", i, len(vec))
		}
		if norm := ollamatest.Cosine(vec, vec); norm < 0.999 || norm > 1.001 {
			t.Errorf("embedding %d: self-similarity %v, want 1", i, norm)
		}
		want := ollamatest.Vector(texts[i], 64)
		if ollamatest.Cosine(vec, want) < 0.9999 {
			t.Errorf("embedding %d differs from Vector(%q)", i, texts[i])
		}
	}
	got := s.Counts()
	if got.EmbedCalls != 1 || got.EmbedInputs != 3 || got.ChatCalls != 0 {
		t.Errorf("counts = %+v, want 1 embed call with 3 inputs", got)
	}
	if in := s.Inputs(); strings.Join(in, "|") != strings.Join(texts, "|") {
		t.Errorf("inputs recorded = %q, want %q", in, texts)
	}
}

func TestEmbedSingleStringAndTruncatedDimensions(t *testing.T) {
	s := ollamatest.New(t)
	resp, err := client(t, s).Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large:latest", Input: "one text", Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Embeddings) != 1 || len(resp.Embeddings[0]) != 256 {
		t.Fatalf("got %d embeddings, first of dimension %d; want 1 of 256", len(resp.Embeddings), len(resp.Embeddings[0]))
	}
}

func TestVectorsCarryMeaning(t *testing.T) {
	dim := ollamatest.DefaultDimension
	a := ollamatest.Vector("Always run the database migrations before tests", dim)
	same := ollamatest.Vector("Always run the database migrations before tests", dim)
	related := ollamatest.Vector("database migrations must run first", dim)
	unrelated := ollamatest.Vector("Prefer tabs for indentation in Makefiles", dim)

	if ollamatest.Cosine(a, same) < 0.9999 {
		t.Error("identical texts must give identical vectors")
	}
	rel, unrel := ollamatest.Cosine(a, related), ollamatest.Cosine(a, unrelated)
	if rel < 0.4 {
		t.Errorf("texts sharing words: similarity %.3f, want >= 0.4", rel)
	}
	if unrel > 0.2 || unrel < -0.2 {
		t.Errorf("unrelated texts: similarity %.3f, want near 0", unrel)
	}
	if stemmed := ollamatest.Cosine(ollamatest.Vector("tests", dim), ollamatest.Vector("testing", dim)); stemmed < 0.9999 {
		t.Errorf("tests vs testing: similarity %.3f, want 1 (light stemming)", stemmed)
	}
}

func TestQueryInstructionDoesNotChangeTheVector(t *testing.T) {
	q := ollamatest.Vector("Represent this sentence for searching relevant passages: database migrations", 128)
	d := ollamatest.Vector("database migrations", 128)
	if ollamatest.Cosine(q, d) < 0.9999 {
		t.Error("the query instruction should not change the meaning")
	}
}

func TestMissingModelIsOllamas404(t *testing.T) {
	s := ollamatest.New(t)
	s.RemoveModel("mxbai-embed-large")
	c := client(t, s)

	_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large", Input: []string{"x"}})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.ErrorMessage != "model 'mxbai-embed-large' not found" {
		t.Fatalf("embed with a removed model: err = %#v, want a 404 StatusError", err)
	}
	err = c.Chat(context.Background(), &api.ChatRequest{Model: "mistral", Messages: []api.Message{{Role: "user", Content: "hi"}}}, func(api.ChatResponse) error { return nil })
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || !strings.Contains(se.ErrorMessage, "'mistral' not found") {
		t.Fatalf("chat with an absent model: err = %#v, want a 404 StatusError", err)
	}
	if _, err := c.Show(context.Background(), &api.ShowRequest{Model: "mxbai-embed-large"}); !errors.As(err, &se) || se.StatusCode != http.StatusNotFound {
		t.Fatalf("show of a removed model: err = %v, want 404", err)
	}

	list, err := c.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "llama3.2:latest" {
		t.Errorf("tags = %v, want only llama3.2:latest", names)
	}

	s.AddModel("mxbai-embed-large")
	if _, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large", Input: "x"}); err != nil {
		t.Errorf("after AddModel: %v", err)
	}
}

func TestChatNonStreamingUsesTheChatFunction(t *testing.T) {
	s := ollamatest.New(t)
	s.SetChat(func(req api.ChatRequest) (string, error) {
		return "echo: " + req.Messages[len(req.Messages)-1].Content, nil
	})
	stream := false
	var replies []api.ChatResponse
	err := client(t, s).Chat(context.Background(), &api.ChatRequest{
		Model:    "llama3.2",
		Messages: []api.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello there"}},
		Stream:   &stream,
		Options:  map[string]any{"temperature": 0},
	}, func(r api.ChatResponse) error { replies = append(replies, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 1 || !replies[0].Done || replies[0].Message.Content != "echo: hello there" {
		t.Fatalf("replies = %+v, want one done reply echoing the prompt", replies)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 1 || reqs[0].Options["temperature"] != float64(0) || reqs[0].Messages[0].Content != "be brief" {
		t.Errorf("recorded requests = %+v", reqs)
	}
	if s.Counts().ChatCalls != 1 {
		t.Errorf("chat calls = %d, want 1", s.Counts().ChatCalls)
	}
}

func TestChatStreamsInPiecesByDefault(t *testing.T) {
	s := ollamatest.New(t)
	s.QueueReplies("first reply in four pieces", "second")
	c := client(t, s)
	var pieces []string
	var last api.ChatResponse
	err := c.Chat(context.Background(), &api.ChatRequest{Model: "llama3.2", Messages: []api.Message{{Role: "user", Content: "go"}}},
		func(r api.ChatResponse) error { pieces = append(pieces, r.Message.Content); last = r; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pieces, ""); got != "first reply in four pieces" {
		t.Errorf("streamed text = %q", got)
	}
	if len(pieces) < 3 || !last.Done || last.DoneReason != "stop" {
		t.Errorf("got %d chunks, last %+v; want several and a final done", len(pieces), last)
	}
	stream := false
	var second string
	c.Chat(context.Background(), &api.ChatRequest{Model: "llama3.2", Stream: &stream}, func(r api.ChatResponse) error { second = r.Message.Content; return nil })
	if second != "second" {
		t.Errorf("second queued reply = %q", second)
	}
}

func TestDefaultReplyFollowsTheFormat(t *testing.T) {
	s := ollamatest.New(t)
	schema := json.RawMessage(`{"type":"object","properties":{"contradicts":{"type":"boolean"},"relation":{"type":"string","enum":["relates_to","supersedes"]},"confidence":{"type":"number"}},"required":["contradicts"]}`)
	stream := false
	var content string
	err := client(t, s).Chat(context.Background(), &api.ChatRequest{Model: "llama3.2", Stream: &stream, Format: schema},
		func(r api.ChatResponse) error { content = r.Message.Content; return nil })
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Contradicts *bool    `json:"contradicts"`
		Relation    string   `json:"relation"`
		Confidence  *float64 `json:"confidence"`
	}
	if err := json.Unmarshal([]byte(content), &out); err != nil {
		t.Fatalf("default reply %q is not JSON: %v", content, err)
	}
	if out.Contradicts == nil || out.Confidence == nil || out.Relation != "relates_to" {
		t.Errorf("default reply %q does not fill the schema", content)
	}
	if got := ollamatest.DefaultReply(json.RawMessage(`"json"`)); got != "{}" {
		t.Errorf(`DefaultReply("json") = %q`, got)
	}
	if got := ollamatest.DefaultReply(nil); got != "ok" {
		t.Errorf("DefaultReply(nil) = %q", got)
	}
}

func TestInjectedFailure(t *testing.T) {
	s := ollamatest.New(t)
	s.SetFailure("/api/embed", http.StatusInternalServerError, "out of memory")
	c := client(t, s)
	_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large", Input: "x"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != "out of memory" {
		t.Fatalf("err = %#v, want a 500 StatusError", err)
	}
	if _, err := c.Version(context.Background()); err != nil {
		t.Errorf("other paths must still work: %v", err)
	}
	s.SetFailure("", http.StatusServiceUnavailable, "busy")
	err = c.Chat(context.Background(), &api.ChatRequest{Model: "llama3.2"}, func(api.ChatResponse) error { return nil })
	if !errors.As(err, &se) || se.StatusCode != 503 {
		t.Errorf("chat with every path failing: %v", err)
	}
	s.SetFailure("", 0, "")
	s.SetFailure("/api/embed", 0, "")
	if _, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large", Input: "x"}); err != nil {
		t.Errorf("after clearing: %v", err)
	}
	if got := s.Counts(); got.EmbedCalls != 1 || got.ChatCalls != 0 {
		t.Errorf("counts = %+v: failed calls must not count", got)
	}
}

func TestChatFunctionErrorIs500(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithChat(func(api.ChatRequest) (string, error) { return "", fmt.Errorf("model crashed") }))
	err := client(t, s).Chat(context.Background(), &api.ChatRequest{Model: "llama3.2"}, func(api.ChatResponse) error { return nil })
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != "model crashed" {
		t.Fatalf("err = %#v", err)
	}
}

func TestDelayEndsWhenTheClientGivesUp(t *testing.T) {
	s := ollamatest.New(t)
	s.SetDelay(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := client(t, s).Embed(ctx, &api.EmbedRequest{Model: "mxbai-embed-large", Input: "x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context deadline", err)
	}
	if s.Counts().EmbedCalls != 0 {
		t.Error("an abandoned request must not count")
	}
	// Cleanup closes the server; a handler stuck in the hour-long delay would make
	// Close wait for it, so finishing this test shows none is.
}

func TestClosedServerRefusesConnections(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithVersion("9.9.9"))
	c := client(t, s)
	v, err := c.Version(context.Background())
	if err != nil || v != "9.9.9" {
		t.Fatalf("version = %q, %v", v, err)
	}
	if err := c.Heartbeat(context.Background()); err != nil {
		t.Fatalf("heartbeat: %v", err)
	}
	s.Close()
	_, err = c.Version(context.Background())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("after Close: err = %v, want connection refused", err)
	}
	s.Close() // a second Close is harmless
}

func TestShowReportsEmbeddingLength(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithDimension(768), ollamatest.WithModels("nomic-embed-text", "qwen2.5:7b"))
	c := client(t, s)
	show, err := c.Show(context.Background(), &api.ShowRequest{Model: "nomic-embed-text"})
	if err != nil {
		t.Fatal(err)
	}
	if show.ModelInfo["bert.embedding_length"] != float64(768) {
		t.Errorf("model_info = %v, want bert.embedding_length 768", show.ModelInfo)
	}
	if _, err := c.Show(context.Background(), &api.ShowRequest{Model: "qwen2.5:7b"}); err != nil {
		t.Errorf("tagged model: %v", err)
	}
	if _, err := c.Show(context.Background(), &api.ShowRequest{Model: "llama3.2"}); err == nil {
		t.Error("llama3.2 was not among WithModels yet Show found it")
	}
}

func TestConcurrentUseCountsEveryCall(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithDimension(32))
	c := client(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 10 {
		wg.Go(func() {
			_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "mxbai-embed-large", Input: []string{fmt.Sprint("a", i), "b"}})
			errs <- err
		})
		wg.Go(func() {
			errs <- c.Chat(context.Background(), &api.ChatRequest{Model: "llama3.2"}, func(api.ChatResponse) error { return nil })
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Counts(); got != (ollamatest.Counts{EmbedCalls: 10, EmbedInputs: 20, ChatCalls: 10}) {
		t.Errorf("counts = %+v", got)
	}
}
