package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/memory"
)

// JudgeJSON asks the chat model for a judgment shaped by schema (a JSON schema,
// sent as `format` so Ollama constrains the output) and decodes the reply into
// out. It asks for a single non-streamed reply at temperature 0, so the same
// question gets the same answer. A reply that is not JSON fitting out is an error
// wrapping ErrBadReply; a failed call is an *Error as for embeddings.
func (c *Client) JudgeJSON(ctx context.Context, system, prompt string, schema json.RawMessage, out any) error {
	var messages []api.Message
	if system != "" {
		messages = append(messages, api.Message{Role: "system", Content: system})
	}
	messages = append(messages, api.Message{Role: "user", Content: prompt})
	stream := false
	req := &api.ChatRequest{
		Model:    c.chatModel,
		Messages: messages,
		Stream:   &stream,
		Format:   schema,
		Options:  map[string]any{"temperature": 0},
	}

	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var reply strings.Builder
	err := c.api.Chat(callCtx, req, func(r api.ChatResponse) error {
		reply.WriteString(r.Message.Content) // one piece when not streamed; all of them if a server streams anyway
		return nil
	})
	if err != nil {
		return c.classify(ctx, err, c.chatModel)
	}
	if err := json.Unmarshal(stripFence(reply.String()), out); err != nil {
		return fmt.Errorf("%w: %v; reply was %q", ErrBadReply, err, shorten(reply.String(), 200))
	}
	return nil
}

// stripFence removes a Markdown code fence around the JSON, which chat models
// add now and then when a server ignores `format`.
func stripFence(s string) []byte {
	b := bytes.TrimSpace([]byte(s))
	if !bytes.HasPrefix(b, []byte("```")) {
		return b
	}
	b = b[3:]
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		b = b[nl+1:] // drop the language tag line
	}
	b, _ = bytes.CutSuffix(bytes.TrimSpace(b), []byte("```"))
	return bytes.TrimSpace(b)
}

// shorten cuts a reply quoted in an error to n bytes, never inside a
// character.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return memory.Cut(s, n) + "…"
}
