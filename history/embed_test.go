package history

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
)

func TestEmbedIsBatchedResumableAndSurvivesOllamaDown(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	ol := ollamatest.New(t)
	client, err := embedding.New(embedding.Options{Host: ol.URL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	st, err := ix.Embed(ctx, client, 2, 5)
	if err != nil || st.Messages != 5 || st.Pending != 11 {
		t.Fatalf("first run: %+v %v", st, err)
	}
	if n := ol.Counts().EmbedCalls; n != 3 {
		t.Errorf("%d embed requests for 5 messages in batches of 2", n)
	}

	ol.SetFailure("/api/embed", 500, "model runner crashed")
	st, err = ix.Embed(ctx, client, 4, 0)
	if err == nil || st.Pending != 11 {
		t.Fatalf("with Ollama failing: %+v %v", st, err)
	}
	// Keywords never wait for vectors.
	if r := search(t, ix, Query{Text: "token bucket"}); r.TotalMatches == 0 {
		t.Error("keyword search broken while embedding fails")
	}

	ol.SetFailure("/api/embed", 0, "")
	st, err = ix.Embed(ctx, client, 4, 0)
	if err != nil || st.Messages != 11 || st.Pending != 0 {
		t.Fatalf("resumed: %+v %v", st, err)
	}
	if s, _ := ix.Stats(ctx); s.Embedded != 16 || s.EmbedModel != client.Model() {
		t.Errorf("stats %+v", s)
	}
}

func TestChunksCutLongMessagesOnRuneBoundaries(t *testing.T) {
	text := strings.Repeat("é", chunkChars) // 2 bytes each
	got := chunks(text)
	if len(got) != 2 || got[0]+got[1] != text {
		t.Fatalf("%d chunks", len(got))
	}
	if len(chunks(strings.Repeat("x", chunkChars*(maxChunks+3)))) != maxChunks {
		t.Error("chunks not capped")
	}
}

func TestAnotherModelsVectorsAreDropped(t *testing.T) {
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	ctx := context.Background()
	small := ollamatest.New(t, ollamatest.WithDimension(64), ollamatest.WithModels("mxbai-embed-large", "nomic-embed-text"))
	a, _ := embedding.New(embedding.Options{Host: small.URL()})
	b, _ := embedding.New(embedding.Options{Host: small.URL(), EmbedModel: "nomic-embed-text"})
	if _, err := ix.Embed(ctx, a, 8, 0); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Embed(ctx, b, 8, 0)
	if err != nil || st.Messages != 16 {
		t.Fatalf("new model: %+v %v", st, err)
	}
}

// TestHybridSearchWithOllama embeds the fixtures and searches them through
// the Ollama named by OLLAMA_HOST when it is set (a real server, models
// pulled), else through the fake.
func TestHybridSearchWithOllama(t *testing.T) {
	host := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if host == "" {
		host = ollamatest.New(t).URL()
	} else if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	client, err := embedding.New(embedding.Options{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Check(context.Background()); err != nil {
		t.Skipf("Ollama at %s is not usable: %v", host, err)
	}
	root := copyTree(t)
	ix := openIndex(t)
	update(t, ix, root, Limits{})
	st, err := ix.Embed(context.Background(), client, 8, 0)
	if err != nil || st.Pending != 0 {
		t.Fatalf("embed: %+v %v", st, err)
	}
	s := &Service{Index: ix, Root: root, Embedder: client, EmbedTimeout: 2 * time.Minute} // a loaded machine is slow
	r, err := s.Search(context.Background(), SearchRequest{Query: "token bucket rate limiter", Context: 1, Threshold: 0.2, MaxResults: 5, IncludeSubagents: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "hybrid" || r.TotalMatches == 0 || r.Note != "" {
		t.Errorf("hybrid search: mode %s, %d matches, note %q", r.Mode, r.TotalMatches, r.Note)
	}
}
