package ollamatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("GET /api/version", s.handleVersion)
	mux.HandleFunc("GET /{$}", s.handleRoot)
	mux.HandleFunc("HEAD /{$}", s.handleRoot)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.wait(r) {
			return // the client gave up or the server is closing: nobody reads an answer
		}
		if f, ok := s.injectedFailure(r.URL.Path); ok {
			writeError(w, f.status, f.message)
			return
		}
		if s.takeDrop(r.URL.Path) {
			dropConnection(w)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// dropConnection closes the connection without an answer: the client reads EOF.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // net/http closes the connection
}

// writeError answers as Ollama does: {"error": message} with the status code.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter, name string) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	if !decode(w, r, &req) {
		return
	}
	// Input is a string or an array of strings, as in Ollama's EmbedHandler.
	var inputs []string
	switch in := req.Input.(type) {
	case string:
		if in != "" {
			inputs = append(inputs, in)
		}
	case []any:
		for _, v := range in {
			text, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			inputs = append(inputs, text)
		}
	case nil:
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	if _, ok := s.hasModel(req.Model); !ok {
		notFound(w, req.Model)
		return
	}

	dim := s.Dimension()
	if req.Dimensions > 0 && req.Dimensions < dim {
		dim = req.Dimensions
	}
	s.mu.Lock()
	ctxLen, perToken, vectorOf := s.contextLength, s.tokenDelay, s.vectors
	s.mu.Unlock()
	if vectorOf == nil {
		vectorOf = Vector
	}
	// Like Ollama, an input over the context is cut to it silently, or refused
	// when the request says "truncate": false.
	embeddings := make([][]float32, len(inputs))
	tokens := 0
	for i, text := range inputs {
		words := strings.Fields(text)
		if len(words) > ctxLen {
			if req.Truncate != nil && !*req.Truncate {
				writeError(w, http.StatusBadRequest, "the input length exceeds the context length")
				return
			}
			text = strings.Join(words[:ctxLen], " ")
		}
		tokens += min(len(words), ctxLen)
		embeddings[i] = vectorOf(text, dim)
	}
	if !s.sleep(r, time.Duration(tokens)*perToken) {
		return // the client gave up, as a real client does on a slow CPU
	}

	s.mu.Lock()
	s.counts.EmbedCalls++
	s.counts.EmbedInputs += len(inputs)
	s.inputs = append(s.inputs, inputs...)
	s.mu.Unlock()

	writeJSON(w, http.StatusOK, api.EmbedResponse{
		Model:           req.Model,
		Embeddings:      embeddings,
		PromptEvalCount: tokens,
	})
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	if _, ok := s.hasModel(req.Model); !ok {
		notFound(w, req.Model)
		return
	}
	if isEmbedModel(req.Model) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	reply, err := s.reply(req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}

	s.mu.Lock()
	s.counts.ChatCalls++
	s.chats = append(s.chats, req)
	s.mu.Unlock()

	done := api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    api.Message{Role: "assistant", Content: reply},
		Done:       true,
		DoneReason: "stop",
		Metrics:    api.Metrics{PromptEvalCount: len(req.Messages), EvalCount: len(strings.Fields(reply))},
	}
	if req.Stream != nil && !*req.Stream {
		writeJSON(w, http.StatusOK, done)
		return
	}

	// Streaming (Ollama's default): one JSON object per line, the reply in pieces,
	// then an empty final message with done true.
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	for _, piece := range splitKeepingSpaces(reply) {
		enc.Encode(api.ChatResponse{
			Model:     req.Model,
			CreatedAt: time.Now().UTC(),
			Message:   api.Message{Role: "assistant", Content: piece},
		})
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	done.Message.Content = ""
	enc.Encode(done)
}

// reply picks the answer to a chat request: a queued reply, else the chat
// function, else a reply fitting the requested format.
func (s *Server) reply(req api.ChatRequest) (string, error) {
	s.mu.Lock()
	if len(s.replies) > 0 {
		next := s.replies[0]
		s.replies = s.replies[1:]
		s.mu.Unlock()
		return next, nil
	}
	fn := s.chat
	s.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	return DefaultReply(req.Format), nil
}

// splitKeepingSpaces cuts text into word-sized pieces whose concatenation is text.
func splitKeepingSpaces(text string) []string {
	var pieces []string
	for text != "" {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			pieces = append(pieces, text)
			break
		}
		pieces = append(pieces, text[:i+1])
		text = text[i+1:]
	}
	return pieces
}

func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	names := append([]string(nil), s.models...)
	s.mu.Unlock()
	models := []api.ListModelResponse{}
	for _, n := range names {
		models = append(models, api.ListModelResponse{
			Name:       n,
			Model:      n,
			ModifiedAt: time.Now().UTC(),
			Size:       1 << 20,
			Digest:     fmt.Sprintf("%016x", hashOf(n)),
			Details:    details(n),
		})
	}
	writeJSON(w, http.StatusOK, api.ListResponse{Models: models})
}

func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if !decode(w, r, &req) {
		return
	}
	name := req.Model
	if name == "" {
		// Ollama still reads the old field, so the fake does too.
		//lint:ignore SA1019 older clients send "name"
		name = req.Name
	}
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	full, ok := s.hasModel(name)
	if !ok {
		notFound(w, name)
		return
	}
	d := details(full)
	info := map[string]any{"general.architecture": d.Family}
	caps := []model.Capability{model.CapabilityCompletion}
	info[d.Family+".context_length"] = 8192
	if isEmbedModel(full) {
		info[d.Family+".embedding_length"] = s.Dimension()
		s.mu.Lock()
		info[d.Family+".context_length"] = s.contextLength
		s.mu.Unlock()
		caps = []model.Capability{model.CapabilityEmbedding}
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Modelfile:    "FROM " + full,
		Details:      d,
		ModelInfo:    info,
		Capabilities: caps,
		ModifiedAt:   time.Now().UTC(),
	})
}

func (s *Server) handleVersion(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.version
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"version": v})
}

func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("Ollama is running"))
}

func isEmbedModel(name string) bool { return strings.Contains(name, "embed") }

func details(name string) api.ModelDetails {
	if isEmbedModel(name) {
		return api.ModelDetails{Format: "gguf", Family: "bert", Families: []string{"bert"}, ParameterSize: "334M", QuantizationLevel: "F16"}
	}
	return api.ModelDetails{Format: "gguf", Family: "llama", Families: []string{"llama"}, ParameterSize: "3.2B", QuantizationLevel: "Q4_K_M"}
}
