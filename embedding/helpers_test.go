package embedding_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
)

// testHost returns the Ollama the tests talk to: the real one named by
// OLLAMA_HOST when it is set, else a fresh in-process ollamatest server, which is
// returned too so a test can script it (nil against a real Ollama).
func testHost(t *testing.T) (string, *ollamatest.Server) {
	t.Helper()
	if host := strings.TrimSpace(os.Getenv("OLLAMA_HOST")); host != "" {
		if !strings.Contains(host, "://") {
			host = "http://" + host
		}
		return host, nil
	}
	fake := ollamatest.New(t)
	return fake.URL(), fake
}

// newClient returns a client for host with the default models unless opts say
// otherwise.
func newClient(t *testing.T, host string, opts embedding.Options) *embedding.Client {
	t.Helper()
	opts.Host = host
	c, err := embedding.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// needFake skips a test that scripts the server when running against a real
// Ollama.
func needFake(t *testing.T, fake *ollamatest.Server) {
	t.Helper()
	if fake == nil {
		t.Skip("scripts server behaviour; skipped against a real Ollama (OLLAMA_HOST is set)")
	}
}

// needOllama skips a test when the Ollama named by OLLAMA_HOST does not answer.
func needOllama(t *testing.T, c *embedding.Client) embedding.Status {
	t.Helper()
	st, err := c.Check(context.Background())
	if err != nil {
		t.Skipf("Ollama at %s is not usable: %v", c.Host(), err)
	}
	return st
}

// needModels skips a test when the real Ollama lacks the client's models.
func needModels(t *testing.T, c *embedding.Client) {
	t.Helper()
	st := needOllama(t, c)
	if !st.EmbedModelPulled || !st.ChatModelPulled {
		t.Skipf("needs models %s and %s at %s: run `ollama pull %s` and `ollama pull %s`",
			st.EmbedModel, st.ChatModel, st.Host, st.EmbedModel, st.ChatModel)
	}
}
