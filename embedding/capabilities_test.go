package embedding_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/memory"
)

// A chat model set as the embedding model is refused by what Ollama says it
// can do (real Ollama would answer with vectors of its hidden states).
func TestChatModelAsEmbeddingModelIsRefused(t *testing.T) {
	host, _ := testHost(t)
	c := newClient(t, host, embedding.Options{EmbedModel: embedding.DefaultChatModel})
	needModels(t, c)
	_, err := c.EmbedDocuments(context.Background(), []string{"one text"})
	if !errors.Is(err, embedding.ErrWrongModel) || !errors.Is(err, memory.ErrUnavailable) ||
		!strings.Contains(err.Error(), "set RECALL_OLLAMA_MODEL to an embedding model") {
		t.Errorf("embedding with %s: %v, want ErrWrongModel naming RECALL_OLLAMA_MODEL", embedding.DefaultChatModel, err)
	}
}

// An embedding model set as the chat model: Ollama refuses with 400 "does not
// support chat"; the error names the setting to change.
func TestEmbeddingModelAsChatModelSaysWhatToSet(t *testing.T) {
	host, _ := testHost(t)
	c := newClient(t, host, embedding.Options{ChatModel: embedding.DefaultEmbedModel})
	needModels(t, c)
	var out map[string]any
	err := c.JudgeJSON(context.Background(), "", "hello", nil, &out)
	if !errors.Is(err, embedding.ErrWrongModel) || !strings.Contains(err.Error(), "set RECALL_OLLAMA_CHAT_MODEL to a chat model") {
		t.Errorf("chat with %s: %v, want ErrWrongModel naming RECALL_OLLAMA_CHAT_MODEL", embedding.DefaultEmbedModel, err)
	}
}

func TestShowReportsCapabilitiesAndContext(t *testing.T) {
	host, _ := testHost(t)
	c := newClient(t, host, embedding.Options{})
	st := needOllama(t, c)
	if !st.EmbedModelPulled || !st.ChatModelPulled {
		t.Skip("needs both default models")
	}
	if !st.EmbedCapable() || !st.ChatCapable() || st.EmbedInfo.ContextLength != 512 || st.ChatInfo.ContextLength == 0 {
		t.Errorf("status: embed %+v, chat %+v; want embedding with context 512, completion with a context", st.EmbedInfo, st.ChatInfo)
	}
}

// A connection Ollama drops mid-request is named as such, with what to do.
func TestDroppedConnectionIsNamed(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	c := newClient(t, host, embedding.Options{})
	if _, err := c.EmbedDocuments(context.Background(), []string{"warm up"}); err != nil {
		t.Fatal(err)
	}
	fake.DropConnections("/api/embed", 1)
	_, err := c.EmbedDocuments(context.Background(), []string{"a text"})
	if !errors.Is(err, embedding.ErrConnectionLost) || !errors.Is(err, memory.ErrUnavailable) ||
		!strings.Contains(err.Error(), "closed the connection") || strings.Contains(err.Error(), "EOF") {
		t.Errorf("dropped connection: %v, want ErrConnectionLost saying Ollama closed the connection", err)
	}
}
