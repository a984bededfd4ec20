package hook

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A server answers every prompt of every window: a down Ollama is said once
// at info level when recall goes to keywords only, and once when vectors come
// back, not on every prompt in between.
func TestVectorLogSaysEachChangeOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var v VectorLog
	v.note(log, "")
	for range 5 {
		v.note(log, "model service unavailable: connection refused: keywords only")
	}
	v.note(log, "")
	v.note(log, "")
	v.note(log, "no embedding within 100ms: keywords only")
	got := buf.String()
	if n := strings.Count(got, "prompt recall on keywords only"); n != 2 {
		t.Errorf("keywords only logged %d times at info, want 2 (once per change):\n%s", n, got)
	}
	if n := strings.Count(got, "prompt recall uses vectors again"); n != 1 {
		t.Errorf("vectors again logged %d times, want 1:\n%s", n, got)
	}
	if strings.Count(got, "\n") != 3 {
		t.Errorf("want three info lines:\n%s", got)
	}
}
