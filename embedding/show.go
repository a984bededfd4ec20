package embedding

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// ModelInfo is what Ollama's /api/show tells about a model: what it can do and
// how much text it reads at once.
type ModelInfo struct {
	Name string `json:"name"`
	// Capabilities as Ollama names them: "embedding", "completion", "tools"...
	// Empty when the server does not report them (Ollama before 0.6).
	Capabilities []string `json:"capabilities,omitempty"`
	// ContextLength is the model's context in tokens (<arch>.context_length),
	// 0 when not reported.
	ContextLength int `json:"context_length,omitempty"`
}

// Can reports whether the model has a capability; a server that reports none
// is taken at its word that the model works.
func (m ModelInfo) Can(c model.Capability) bool {
	return len(m.Capabilities) == 0 || slices.Contains(m.Capabilities, string(c))
}

// Show asks Ollama about a model. A model that is not pulled is an *Error of
// kind ErrModelMissing.
func (c *Client) Show(ctx context.Context, name string) (ModelInfo, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.api.Show(callCtx, &api.ShowRequest{Model: name})
	if err != nil {
		return ModelInfo{}, c.classify(ctx, err, name)
	}
	info := ModelInfo{Name: name}
	for _, cap := range resp.Capabilities {
		info.Capabilities = append(info.Capabilities, string(cap))
	}
	for k, v := range resp.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if n, ok := v.(float64); ok {
				info.ContextLength = int(n)
			}
		}
	}
	return info, nil
}

// embedModelInfo returns what Ollama says about the embedding model, asked
// once per client; a failed answer is not kept, so the next call asks again.
func (c *Client) embedModelInfo(ctx context.Context) (ModelInfo, error) {
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	if c.embedInfo != nil {
		return *c.embedInfo, nil
	}
	info, err := c.Show(ctx, c.embedModel)
	if err != nil {
		return info, err
	}
	c.embedInfo = &info
	return info, nil
}

// checkEmbedModel refuses to embed with a model that Ollama says cannot make
// embeddings (a chat model set as RECALL_OLLAMA_MODEL): Ollama would answer
// with vectors of its hidden states, which must never become the database's
// embedding space.
func (c *Client) checkEmbedModel(ctx context.Context) error {
	info, err := c.embedModelInfo(ctx)
	if err != nil {
		return err
	}
	if !info.Can(model.CapabilityEmbedding) {
		return &Error{Kind: ErrWrongModel, Message: fmt.Sprintf(
			"model %s cannot make embeddings (Ollama lists its capabilities as %s): set RECALL_OLLAMA_MODEL to an embedding model such as %s",
			c.embedModel, strings.Join(info.Capabilities, ", "), DefaultEmbedModel)}
	}
	return nil
}

// ContextLength is the embedding model's context in tokens, from /api/show
// (0 when Ollama does not say or cannot be asked).
func (c *Client) ContextLength(ctx context.Context) int {
	info, err := c.embedModelInfo(ctx)
	if err != nil {
		return 0
	}
	return info.ContextLength
}
