package hook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// Guard is how a hook treats Ollama: the vector side of the prompt hook has a
// budget of its own, and a hook that finds Ollama down, hung or too slow for
// that budget says so in a state file beside the database, so that the next
// hooks skip the vector side at once instead of each waiting for it. Ollama is
// tried again off the prompt's path (StartProbe) until it answers in time.
type Guard struct {
	// Budget is the longest a hook waits for one embedding.
	Budget time.Duration
	// State is the file hooks share their knowledge of Ollama in; empty
	// keeps it to this process.
	State string
	// RetryAfter is how long the state holds before Ollama is tried again.
	RetryAfter time.Duration
	// StartProbe starts a check of Ollama in the background (a detached
	// process running Probe): at once after a late vector, else once the
	// state is RetryAfter old; nil tries nothing until the state expires,
	// when the next prompt tries itself.
	StartProbe func()
	Logger     *slog.Logger
	Now        func() time.Time
}

// DefaultRetryAfter is how long hooks skip the vector side before Ollama is
// tried again, in the background.
const DefaultRetryAfter = 30 * time.Second

// Embedder wraps inner so that Ollama can never hold a hook past the budget:
// every call gets at most Budget; after a failure this process stops asking,
// and so do the next hooks (through the state file) until a probe finds
// Ollama answering in time again.
func (g Guard) Embedder(inner memory.Embedder) memory.Embedder {
	if inner == nil {
		return nil
	}
	if g.RetryAfter <= 0 {
		g.RetryAfter = DefaultRetryAfter
	}
	return &guardedEmbedder{inner: inner, guard: g}
}

// GuardEmbedder is Guard{Budget: timeout}.Embedder(inner): the knowledge that
// Ollama failed stays in this process.
func GuardEmbedder(inner memory.Embedder, timeout time.Duration) memory.Embedder {
	return Guard{Budget: timeout}.Embedder(inner)
}

type guardedEmbedder struct {
	inner memory.Embedder
	guard Guard

	mu      sync.Mutex
	checked bool // the state file was read
	failed  error
}

func (g *guardedEmbedder) Model() string { return g.inner.Model() }

func (g *guardedEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return guarded(ctx, g, func(bctx context.Context) ([][]float32, error) { return g.inner.EmbedDocuments(bctx, texts) })
}

func (g *guardedEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vec, err := guarded(ctx, g, func(bctx context.Context) ([]float32, error) { return g.inner.EmbedQuery(bctx, text) })
	if err != nil {
		return nil, err
	}
	return vec, nil
}

// guarded makes one call to Ollama within the hook's budget, unless an
// earlier failure says not to, and records how it went.
func guarded[T any](ctx context.Context, g *guardedEmbedder, call func(bctx context.Context) (T, error)) (T, error) {
	if err := g.failure(); err != nil {
		var none T
		return none, err
	}
	start := time.Now()
	bctx, cancel := context.WithTimeout(ctx, g.guard.Budget)
	defer cancel()
	v, err := call(bctx)
	return v, g.record(ctx, bctx, start, err)
}

// failure says why this hook does not ask Ollama: an earlier failure in this
// process, or one an earlier hook recorded in the state file.
func (g *guardedEmbedder) failure() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed != nil || g.checked {
		return g.failed
	}
	g.checked = true
	if g.guard.State == "" {
		return nil
	}
	st, err := ReadOllamaState(g.guard.State)
	if err != nil {
		g.log().Warn("Ollama state unreadable; asking Ollama", "path", g.guard.State, "err", err)
		return nil
	}
	if st == nil {
		return nil
	}
	now := g.now()
	if now.Sub(st.Checked) >= g.guard.RetryAfter {
		// Time to try again, but not on this prompt: the probe runs in the
		// background and clears the state when Ollama answers in time. The
		// state is stamped first so that the hooks of the next seconds do not
		// start probes of their own.
		st.Checked = now
		if err := writeOllamaState(g.guard.State, st); err != nil {
			g.log().Warn("Ollama state not written", "path", g.guard.State, "err", err)
		}
		if g.guard.StartProbe != nil {
			g.guard.StartProbe()
		}
	}
	g.failed = fmt.Errorf("%w: %s (since %s; tried again in the background)", memory.ErrUnavailable, st.Reason, st.Since.Local().Format(time.TimeOnly))
	return g.failed
}

// record remembers a failure, in this process and for the next hooks; one past
// the budget is reported as the model service being unavailable, so that
// recall degrades to keywords. A call the caller cancelled (it no longer
// needed the vector) says nothing about Ollama.
func (g *guardedEmbedder) record(parent, bctx context.Context, start time.Time, err error) error {
	if err == nil {
		return nil
	}
	if parent.Err() != nil {
		return err
	}
	reason := fmt.Sprintf("Ollama failed: %v", err)
	late := bctx.Err() != nil
	if late {
		reason = fmt.Sprintf("Ollama gave no embedding within the hooks' budget of %s", g.guard.Budget)
		err = fmt.Errorf("%w: no embedding within %s: %v", memory.ErrUnavailable, g.guard.Budget, err)
	}
	g.mu.Lock()
	g.failed = err
	g.mu.Unlock()
	if g.guard.State != "" {
		now := g.now()
		if werr := writeOllamaState(g.guard.State, &OllamaState{Since: now, Checked: now, Reason: reason}); werr != nil {
			g.log().Warn("Ollama state not written", "path", g.guard.State, "err", werr)
		}
		if late && g.guard.StartProbe != nil {
			// A late vector is most often a model being loaded (Ollama
			// unloads one left idle for five minutes). The probe waits for
			// it off the prompt's path, which finishes warming the model,
			// and lifts the state as soon as Ollama embeds within the
			// budget: the next prompt has its vector instead of waiting
			// out RetryAfter. An Ollama that refuses or errs is tried
			// again after RetryAfter only.
			g.guard.StartProbe()
		}
	}
	return err
}

func (g *guardedEmbedder) now() time.Time {
	if g.guard.Now != nil {
		return g.guard.Now()
	}
	return time.Now()
}

func (g *guardedEmbedder) log() *slog.Logger {
	if g.guard.Logger != nil {
		return g.guard.Logger
	}
	return slog.Default()
}

// probeText is what a probe embeds: short, so that it measures the model's
// answer time rather than the text's length.
const probeText = "recall checks that the embedding model answers"

// probeTries is how many embeddings a probe times after the model is loaded;
// the slowest decides.
const probeTries = 3

// Probe checks whether Ollama embeds a prompt within budget the way a hook
// asks it, and records it in the state file: the state is removed when it
// does, so that the next hooks use vectors again, and renewed when it does
// not. newClient makes a client as a hook does (no connection yet, the model
// not yet checked). The first embedding may load the model (seconds) and gets
// the whole of ctx; the next probeTries are timed, each on a client of its
// own, so that each pays what a hook pays: a new connection and the model
// check beside the embedding. A warm client measured less than that, and
// lifting the state for an Ollama that only a warm client finds in time sent
// the next prompt to wait out the budget, which started another probe.
func Probe(ctx context.Context, newClient func() (memory.Embedder, error), state string, budget time.Duration) error {
	embed := func(text string) (time.Duration, error) {
		client, err := newClient()
		if err != nil {
			return 0, err
		}
		start := time.Now()
		_, err = client.EmbedQuery(ctx, text)
		return time.Since(start), err
	}
	if _, err := embed(probeText); err != nil {
		return probeFailed(state, fmt.Sprintf("Ollama failed: %v", err))
	}
	var slowest time.Duration
	for i := range probeTries {
		took, err := embed(fmt.Sprintf("%s (%d)", probeText, i+1))
		if err != nil {
			return probeFailed(state, fmt.Sprintf("Ollama failed: %v", err))
		}
		slowest = max(slowest, took)
	}
	// A hook's embedding shares the machine with the hook's own search: one
	// that needs more than three quarters of the budget here is late in some
	// hooks.
	if slowest > budget*3/4 {
		return probeFailed(state, fmt.Sprintf("Ollama embeds a prompt in up to %s, too close to or over the hooks' budget of %s (a hook needs it within three quarters)", slowest.Round(time.Millisecond), budget))
	}
	return removeOllamaState(state)
}

func probeFailed(state, reason string) error {
	prev, _ := ReadOllamaState(state)
	now := time.Now()
	st := &OllamaState{Since: now, Checked: now, Reason: reason}
	if prev != nil && !prev.Since.IsZero() {
		st.Since = prev.Since
	}
	return errors.Join(errors.New(reason), writeOllamaState(state, st))
}
