// Package embedding implements memory.Embedder and memory.Judge with Ollama,
// through its official Go client (github.com/ollama/ollama/api).
//
// Every call is bounded by the configured timeout, and every failure is an
// *Error wrapping memory.ErrUnavailable and, where known, ErrNotRunning,
// ErrModelMissing or ErrTimeout, with a message that says what to do.
package embedding

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recall-mcp/recall/memory"
)

// Defaults used for zero fields of Options.
const (
	DefaultHost       = "http://localhost:11434"
	DefaultEmbedModel = "mxbai-embed-large"
	DefaultChatModel  = "llama3.2"
	DefaultTimeout    = 30 * time.Second
	DefaultBatchSize  = 64
)

// Options configure a Client. Zero fields take the defaults above.
type Options struct {
	// Host is Ollama's base URL, e.g. "http://localhost:11434".
	Host string
	// EmbedModel makes the vectors; ChatModel makes the judgments.
	EmbedModel string
	ChatModel  string
	// Timeout bounds every call to Ollama.
	Timeout time.Duration
	// BatchSize is the most texts sent in one /api/embed request; longer lists
	// are sent in several.
	BatchSize int
	// HTTPClient sends the requests (default: a client without its own timeout,
	// since Timeout bounds each call through its context).
	HTTPClient *http.Client
}

// Client talks to one Ollama. It is safe for concurrent use.
type Client struct {
	api        *api.Client
	host       string
	embedModel string
	chatModel  string
	timeout    time.Duration
	batchSize  int
	prompts    Instructions

	infoMu    sync.Mutex
	embedInfo *ModelInfo // /api/show of embedModel, once known
}

var (
	_ memory.Embedder = (*Client)(nil)
	_ memory.Judge    = (*Client)(nil)
)

// New returns a client for the Ollama at opts.Host. It does not contact Ollama:
// use Check for that.
func New(opts Options) (*Client, error) {
	if opts.Host == "" {
		opts.Host = DefaultHost
	}
	base, err := url.Parse(opts.Host)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		shown := opts.Host
		if err == nil {
			shown = base.Redacted()
		}
		return nil, memory.Invalidf("ollama host", shown, "an http:// or https:// URL such as "+DefaultHost)
	}
	if opts.EmbedModel == "" {
		opts.EmbedModel = DefaultEmbedModel
	}
	if opts.ChatModel == "" {
		opts.ChatModel = DefaultChatModel
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Timeout < 0 {
		return nil, memory.Invalidf("ollama timeout", opts.Timeout, "a positive duration")
	}
	if opts.BatchSize == 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.BatchSize < 0 {
		return nil, memory.Invalidf("batch size", opts.BatchSize, "a positive number")
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	return &Client{
		api:        api.NewClient(base, opts.HTTPClient),
		host:       base.Redacted(), // for messages: a password in the URL is never shown
		embedModel: opts.EmbedModel,
		chatModel:  opts.ChatModel,
		timeout:    opts.Timeout,
		batchSize:  opts.BatchSize,
		prompts:    InstructionsFor(opts.EmbedModel),
	}, nil
}

// Model names the embedding model.
func (c *Client) Model() string { return c.embedModel }

// ChatModel names the model that makes judgments.
func (c *Client) ChatModel() string { return c.chatModel }

// Host is the Ollama base URL the client talks to, its password (if any) hidden.
func (c *Client) Host() string { return c.host }

// EmbedDocuments embeds texts to be stored, with the model's document prefix
// where it has one, in one /api/embed request per BatchSize texts. The vectors
// come back in the order of texts.
func (c *Client) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	inputs := make([]string, len(texts))
	for i, t := range texts {
		inputs[i] = c.prompts.Document + t
	}
	return c.embed(ctx, inputs)
}

// EmbedQuery embeds a search query with the model's query instruction where it
// has one (see InstructionsFor).
func (c *Client) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vecs, err := c.embed(ctx, []string{c.prompts.Query + text})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

func (c *Client) embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	// The model is checked (/api/show, once per client) while the first batch
	// is embedded: a short-lived process such as the prompt hook would
	// otherwise wait for two round trips to Ollama in a row. The vectors of a
	// model that cannot make embeddings are thrown away unseen.
	checked := make(chan error, 1)
	go func() { checked <- c.checkEmbedModel(ctx) }()
	out := make([][]float32, 0, len(inputs))
	for start := 0; start < len(inputs); start += c.batchSize {
		batch := inputs[start:min(start+c.batchSize, len(inputs))]
		vecs, err := c.embedBatch(ctx, batch)
		if checked != nil {
			if cerr := <-checked; cerr != nil {
				return nil, cerr
			}
			checked = nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.api.Embed(callCtx, &api.EmbedRequest{Model: c.embedModel, Input: batch})
	if err != nil {
		return nil, c.classify(ctx, err, c.embedModel)
	}
	if len(resp.Embeddings) != len(batch) {
		return nil, &Error{Message: fmt.Sprintf("Ollama returned %d embeddings for %d texts (model %s)", len(resp.Embeddings), len(batch), c.embedModel)}
	}
	for i, v := range resp.Embeddings {
		if len(v) == 0 {
			return nil, &Error{Message: fmt.Sprintf("Ollama returned an empty embedding for text %d (model %s)", i, c.embedModel)}
		}
	}
	return resp.Embeddings, nil
}
