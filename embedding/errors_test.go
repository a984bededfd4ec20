package embedding_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/embedding/ollamatest"
	"github.com/recall-mcp/recall/memory"
)

// every call the client makes, so each error class is checked on all of them.
func calls(c *embedding.Client) map[string]func() error {
	ctx := context.Background()
	return map[string]func() error{
		"EmbedDocuments": func() error { _, err := c.EmbedDocuments(ctx, []string{"a"}); return err },
		"EmbedQuery":     func() error { _, err := c.EmbedQuery(ctx, "a"); return err },
		"JudgeJSON": func() error {
			var out map[string]any
			return c.JudgeJSON(ctx, "", "a", json.RawMessage(`{"type":"object"}`), &out)
		},
	}
}

func TestNotRunning(t *testing.T) {
	fake := ollamatest.New(t)
	fake.Close() // nothing listens at its address any more
	for name, host := range map[string]string{"refused": fake.URL(), "unknown host": "http://recall-no-such-host.invalid:11434"} {
		c := newClient(t, host, embedding.Options{Timeout: 10 * time.Second})
		for call, fn := range calls(c) {
			err := fn()
			if !errors.Is(err, embedding.ErrNotRunning) || !errors.Is(err, memory.ErrUnavailable) {
				t.Errorf("%s, %s: err = %v, want ErrNotRunning and memory.ErrUnavailable", name, call, err)
				continue
			}
			want := "Ollama is not running at " + c.Host() + ": start it with `ollama serve`"
			if err.Error() != want {
				t.Errorf("%s, %s: message %q, want %q", name, call, err, want)
			}
		}
		st, err := c.Check(context.Background())
		if !errors.Is(err, embedding.ErrNotRunning) || st.Reachable {
			t.Errorf("%s: Check = %+v, %v; want unreachable and ErrNotRunning", name, st, err)
		}
	}
}

func TestModelNotPulled(t *testing.T) {
	host, _ := testHost(t)
	const absent = "recall-test-absent-model"
	c := newClient(t, host, embedding.Options{EmbedModel: absent, ChatModel: absent})
	needOllama(t, c)
	for call, fn := range calls(c) {
		err := fn()
		if !errors.Is(err, embedding.ErrModelMissing) || !errors.Is(err, memory.ErrUnavailable) {
			t.Errorf("%s: err = %v, want ErrModelMissing and memory.ErrUnavailable", call, err)
			continue
		}
		if want := "model " + absent + " is not pulled: run `ollama pull " + absent + "`"; err.Error() != want {
			t.Errorf("%s: message %q, want %q", call, err, want)
		}
	}
}

func TestTimeout(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	fake.SetDelay(time.Hour)
	c := newClient(t, host, embedding.Options{Timeout: 50 * time.Millisecond})
	for call, fn := range calls(c) {
		err := fn()
		if !errors.Is(err, embedding.ErrTimeout) || !errors.Is(err, memory.ErrUnavailable) {
			t.Errorf("%s: err = %v, want ErrTimeout and memory.ErrUnavailable", call, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "Ollama did not answer within 0.05s") {
			t.Errorf("%s: message %q", call, err)
		}
	}
	if n := fake.Counts(); n != (ollamatest.Counts{}) {
		t.Errorf("timed-out calls were answered: %+v", n)
	}
}

func TestCallerDeadlineAndCancellation(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	fake.SetDelay(time.Hour)
	c := newClient(t, host, embedding.Options{Timeout: time.Hour})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := c.EmbedQuery(ctx, "a")
	if !errors.Is(err, embedding.ErrTimeout) || !strings.Contains(err.Error(), "before the caller's deadline") {
		t.Errorf("caller deadline: err = %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.EmbedQuery(ctx, "a")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, memory.ErrUnavailable) || errors.Is(err, embedding.ErrTimeout) {
		t.Errorf("cancelled caller: err = %v, want context.Canceled and memory.ErrUnavailable", err)
	}
}

func TestOtherServerFailure(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	fake.SetFailure("", http.StatusInternalServerError, "llama runner process has terminated")
	c := newClient(t, host, embedding.Options{})
	for call, fn := range calls(c) {
		err := fn()
		if !errors.Is(err, memory.ErrUnavailable) {
			t.Errorf("%s: err = %v, want memory.ErrUnavailable", call, err)
			continue
		}
		for _, kind := range []error{embedding.ErrNotRunning, embedding.ErrModelMissing, embedding.ErrTimeout, embedding.ErrBadReply} {
			if errors.Is(err, kind) {
				t.Errorf("%s: a server error classified as %v", call, kind)
			}
		}
		if !strings.Contains(err.Error(), "llama runner process has terminated") || !strings.Contains(err.Error(), c.Host()) {
			t.Errorf("%s: message %q should name the host and Ollama's reason", call, err)
		}
	}
}
