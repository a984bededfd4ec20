package embedding_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
)

func TestEmbedDocumentsSendsOneRequestForManyTexts(t *testing.T) {
	host, fake := testHost(t)
	c := newClient(t, host, embedding.Options{})
	needModels(t, c)
	texts := []string{"SQLite keeps every memory in one file", "Ollama computes the vectors", "SQLite keeps every memory in one file"}

	vecs, err := c.EmbedDocuments(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	if ollamatest.Cosine(vecs[0], vecs[2]) < 0.999 {
		t.Error("the same text twice in a batch should give the same vector")
	}
	if ollamatest.Cosine(vecs[0], vecs[1]) > 0.999 {
		t.Error("different texts came back with the same vector: order or batching is wrong")
	}
	if fake != nil {
		if got := fake.Counts(); got.EmbedCalls != 1 || got.EmbedInputs != 3 {
			t.Errorf("server saw %+v, want one call with 3 inputs", got)
		}
		for i, v := range vecs {
			if ollamatest.Cosine(v, fake.Vector(texts[i])) < 0.9999 {
				t.Errorf("vector %d is not the one for %q", i, texts[i])
			}
		}
	}
}

func TestEmbedDocumentsSplitsLargeBatchesKeepingOrder(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	c := newClient(t, host, embedding.Options{BatchSize: 4})
	var texts []string
	for i := range 10 {
		texts = append(texts, fmt.Sprintf("note number %d about topic%d", i, i))
	}
	vecs, err := c.EmbedDocuments(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fake.Counts(); got.EmbedCalls != 3 || got.EmbedInputs != 10 {
		t.Errorf("server saw %+v, want 3 calls (4+4+2) with 10 inputs", got)
	}
	for i, v := range vecs {
		if ollamatest.Cosine(v, fake.Vector(texts[i])) < 0.9999 {
			t.Errorf("vector %d is not the one for %q", i, texts[i])
		}
	}
}

func TestEmbedDocumentsWithNoTextsMakesNoCall(t *testing.T) {
	host, fake := testHost(t)
	c := newClient(t, host, embedding.Options{})
	vecs, err := c.EmbedDocuments(context.Background(), nil)
	if err != nil || len(vecs) != 0 {
		t.Fatalf("got %v, %v; want nothing", vecs, err)
	}
	if fake != nil && fake.Counts().EmbedCalls != 0 {
		t.Error("an empty batch reached the server")
	}
}

func TestEmbedQueryAddsTheModelsQueryInstruction(t *testing.T) {
	host, fake := testHost(t)
	c := newClient(t, host, embedding.Options{})
	needModels(t, c)
	q, err := c.EmbedQuery(context.Background(), "how are migrations run")
	if err != nil {
		t.Fatal(err)
	}
	if len(q) == 0 {
		t.Fatal("empty query vector")
	}
	if fake != nil {
		want := "Represent this sentence for searching relevant passages: how are migrations run"
		if in := fake.Inputs(); len(in) != 1 || in[0] != want {
			t.Errorf("server received %q, want %q", in, want)
		}
		return
	}
	d, err := c.EmbedDocuments(context.Background(), []string{"how are migrations run"})
	if err != nil {
		t.Fatal(err)
	}
	if ollamatest.Cosine(q, d[0]) > 0.9999 {
		t.Error("query and document vectors are identical: the query instruction was not sent")
	}
}

func TestDocumentPrefixForModelsThatHaveOne(t *testing.T) {
	fake := ollamatest.New(t, ollamatest.WithModels("nomic-embed-text", "llama3.2"), ollamatest.WithDimension(768))
	c := newClient(t, fake.URL(), embedding.Options{EmbedModel: "nomic-embed-text"})
	if _, err := c.EmbedDocuments(context.Background(), []string{"stored text"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EmbedQuery(context.Background(), "asked text"); err != nil {
		t.Fatal(err)
	}
	want := []string{"search_document: stored text", "search_query: asked text"}
	if got := fake.Inputs(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("server received %q, want %q", got, want)
	}
}

func TestInstructionsFor(t *testing.T) {
	mxbai := "Represent this sentence for searching relevant passages: "
	for model, want := range map[string]embedding.Instructions{
		"mxbai-embed-large":                {Query: mxbai},
		"mxbai-embed-large:latest":         {Query: mxbai},
		"library/mxbai-embed-large:335m":   {Query: mxbai},
		"nomic-embed-text:v1.5":            {Query: "search_query: ", Document: "search_document: "},
		"all-minilm":                       {},
		"registry.example.com/team/custom": {},
	} {
		if got := embedding.InstructionsFor(model); got != want {
			t.Errorf("InstructionsFor(%q) = %+v, want %+v", model, got, want)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, tc := range []struct {
		opts embedding.Options
		want string
	}{
		{embedding.Options{Host: "localhost:11434"}, "ollama host"},
		{embedding.Options{Host: "ftp://example.com"}, "ollama host"},
		{embedding.Options{Timeout: -1}, "ollama timeout"},
		{embedding.Options{BatchSize: -3}, "batch size"},
	} {
		_, err := embedding.New(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %s", tc.opts, err, tc.want)
		}
	}
	c, err := embedding.New(embedding.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Host() != embedding.DefaultHost || c.Model() != "mxbai-embed-large" || c.ChatModel() != "llama3.2" {
		t.Errorf("defaults: host %s, model %s, chat %s", c.Host(), c.Model(), c.ChatModel())
	}
}

func BenchmarkEmbedDocuments(b *testing.B) {
	fake := ollamatest.New(b)
	c, err := embedding.New(embedding.Options{Host: fake.URL()})
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, 16)
	for i := range texts {
		texts[i] = fmt.Sprintf("memory %d: prefer table-driven tests and keep the schema migrations numbered", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.EmbedDocuments(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
}
