// Package ollamatest runs an in-process HTTP server that speaks Ollama's HTTP API
// as the official client (github.com/ollama/ollama/api) uses it, for tests that
// must not depend on a real Ollama:
//
//   - POST /api/embed: deterministic vectors that carry meaning (see [Vector]);
//   - POST /api/chat: scripted replies, streamed or not as the request asks;
//   - GET /api/tags, POST /api/show, GET /api/version, HEAD and GET /.
//
// Errors have Ollama's shape, a JSON body {"error": "..."} with the status code
// (404 "model 'x' not found" for a model that is not pulled), so the client turns
// them into api.StatusError exactly as it does for the real server.
//
// It behaves as the real server does where Recall depends on it: /api/show
// reports capabilities ("embedding" or "completion") and the context length;
// chat with an embedding model is 400 "... does not support chat"; an input
// longer than the context (a token per word) is cut silently, or refused with
// "truncate": false. A test can choose the models present, script chat replies
// ([Ramble] never parses), choose the vectors ([WithVectors]), inject failures,
// add a delay or a delay per token (both honour request cancellation), drop
// connections mid-request and stop the server to simulate Ollama not running. Counters tell how many model calls were made. Every method
// is safe for concurrent use.
package ollamatest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Default models present on a new server: the embedding and chat models Recall
// uses by default.
const (
	DefaultEmbedModel = "mxbai-embed-large"
	DefaultChatModel  = "llama3.2"
	DefaultVersion    = "0.17.4"
)

// ChatFunc answers a chat request with the assistant's whole reply text, or an
// error that the server reports as HTTP 500.
type ChatFunc func(req api.ChatRequest) (string, error)

// Counts is how many model calls the server has answered successfully.
type Counts struct {
	EmbedCalls  int // /api/embed requests
	EmbedInputs int // texts embedded over all of them
	ChatCalls   int // /api/chat requests
}

// Server is a fake Ollama. Create it with [New]; it stops when the test ends.
type Server struct {
	srv       *httptest.Server
	closing   chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	dim      int
	version  string
	models   []string // full names with tag, e.g. "llama3.2:latest"
	chat     ChatFunc
	replies  []string
	delay    time.Duration
	failures map[string]failure // by path; "" for every path
	counts   Counts
	inputs   []string
	chats    []api.ChatRequest

	vectors       VectorFunc     // makes the vectors; Vector when nil
	contextLength int            // tokens an embedding model reads (DefaultContextLength)
	tokenDelay    time.Duration  // time per input token of /api/embed
	drops         map[string]int // by path: how many next requests lose their connection
	connections   int            // TCP connections accepted
}

type failure struct {
	status  int
	message string
}

// Option configures a new server.
type Option func(*Server)

// WithDimension sets the length of the vectors (default [DefaultDimension]).
func WithDimension(dim int) Option { return func(s *Server) { s.dim = dim } }

// WithModels replaces the default models with names (a name without a tag
// means ":latest", as in Ollama).
func WithModels(names ...string) Option {
	return func(s *Server) {
		s.models = nil
		for _, n := range names {
			s.models = append(s.models, fullName(n))
		}
	}
}

// WithContextLength sets the context of the embedding models in tokens
// (default [DefaultContextLength]); see [Server.Tokens].
func WithContextLength(n int) Option { return func(s *Server) { s.contextLength = n } }

// WithVersion sets the version /api/version reports (default [DefaultVersion]).
func WithVersion(v string) Option { return func(s *Server) { s.version = v } }

// WithChat sets how chat requests are answered (see [Server.SetChat]).
func WithChat(fn ChatFunc) Option { return func(s *Server) { s.chat = fn } }

// New starts a server with [DefaultEmbedModel] and [DefaultChatModel] present and
// closes it when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := Start(opts...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server as [New] does, for programs that are not tests (the
// retrieval evaluation, say); the caller must Close it.
func Start(opts ...Option) *Server {
	s := &Server{
		closing:  make(chan struct{}),
		dim:      DefaultDimension,
		version:  DefaultVersion,
		models:   []string{fullName(DefaultEmbedModel), fullName(DefaultChatModel)},
		failures: map[string]failure{},
		drops:    map[string]int{},

		contextLength: DefaultContextLength,
	}
	for _, opt := range opts {
		opt(s)
	}
	s.srv = httptest.NewUnstartedServer(s.routes())
	s.srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.mu.Lock()
			s.connections++
			s.mu.Unlock()
		}
	}
	s.srv.Start()
	return s
}

// URL is the server's base URL, e.g. "http://127.0.0.1:41234". It stays the same
// after Close, so a client keeps pointing at a port where nothing listens.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server, as if Ollama were not running: later requests get
// "connection refused". Requests waiting on a delay are released first. Close
// may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.Close()
	})
}

// SetChat makes fn answer every later chat request; nil restores the default
// (queued replies first, then a reply that fits the requested format).
func (s *Server) SetChat(fn ChatFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat = fn
}

// QueueReplies appends replies that the next chat requests get, one each, before
// the chat function or the default answers.
func (s *Server) QueueReplies(replies ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// SetDelay makes every later request wait d before it is answered. The wait ends
// early when the client gives up (its context is cancelled) or the server closes,
// so no handler outlives its request.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// SetFailure makes every later request to path (e.g. "/api/embed"; "" for every
// path) fail with status and message in Ollama's error body. A status of 0 clears
// the failure.
func (s *Server) SetFailure(path string, status int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == 0 {
		delete(s.failures, path)
		return
	}
	s.failures[path] = failure{status: status, message: message}
}

// SetTokenDelay makes /api/embed take d per input token (after truncation),
// as a model on a CPU does: a long text takes long. The wait ends early when
// the client gives up.
func (s *Server) SetTokenDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenDelay = d
}

// DropConnections makes the next n requests to path ("" for any path) lose
// their connection before any answer, as when Ollama crashes or restarts
// mid-request.
func (s *Server) DropConnections(path string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drops[path] = n
}

// AddModel makes a model present (pulled).
func (s *Server) AddModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := fullName(name); !slices.Contains(s.models, n) {
		s.models = append(s.models, n)
	}
}

// RemoveModel makes a model absent, as if never pulled: requests naming it get
// 404 "model 'name' not found".
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := fullName(name)
	s.models = slices.DeleteFunc(s.models, func(m string) bool { return m == n })
}

// Counts returns how many model calls were answered so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// Connections returns how many TCP connections the server accepted so far,
// answered or not: clients that keep theirs alive open fewer.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// Inputs returns every text embedded so far, in the order received, exactly as
// sent (query instructions included).
func (s *Server) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.inputs)
}

// ChatRequests returns every chat request answered so far, in order.
func (s *Server) ChatRequests() []api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.chats)
}

// Dimension is the length of the vectors the server returns.
func (s *Server) Dimension() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dim
}

// Vector is the vector the server returns for text (see the package function
// [Vector]).
func (s *Server) Vector(text string) []float32 { return Vector(text, s.Dimension()) }

// hasModel reports whether a model is present, and its full name.
func (s *Server) hasModel(name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := fullName(name)
	return n, slices.Contains(s.models, n)
}

// fullName adds Ollama's default tag to a name without one.
func fullName(name string) string {
	if name == "" {
		return ""
	}
	if i := strings.LastIndex(name, ":"); i < 0 || strings.Contains(name[i:], "/") {
		return name + ":latest"
	}
	return name
}

// wait holds a request for the configured delay, and reports false when the
// request was cancelled or the server closed meanwhile.
func (s *Server) wait(r *http.Request) bool {
	s.mu.Lock()
	d := s.delay
	s.mu.Unlock()
	return s.sleep(r, d)
}

// takeDrop reports whether this request's connection is to be dropped.
func (s *Server) takeDrop(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range []string{path, ""} {
		if s.drops[p] > 0 {
			s.drops[p]--
			return true
		}
	}
	return false
}

// sleep waits d unless the request is cancelled or the server closes first.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
	case <-s.closing:
	}
	return false
}

// injectedFailure returns the failure set for a path, if any.
func (s *Server) injectedFailure(path string) (failure, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.failures[path]; ok {
		return f, true
	}
	f, ok := s.failures[""]
	return f, ok
}
