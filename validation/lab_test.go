package validation_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// countingJudge counts the chat calls the model answered (a reply that
// parsed or not); calls that timed out or failed got no answer.
type countingJudge struct {
	inner memory.Judge
	calls atomic.Int64
}

func (j *countingJudge) JudgeJSON(ctx context.Context, system, prompt string, schema json.RawMessage, out any) error {
	err := j.inner.JudgeJSON(ctx, system, prompt, schema, out)
	if err == nil || errors.Is(err, memory.ErrBadReply) {
		j.calls.Add(1)
	}
	return err
}

// Against a real Ollama (OLLAMA_HOST) with the chat model of
// RECALL_TEST_CHAT_MODEL (the lab's llama3.2-ramble, whose replies never
// parse): each memory costs at most three answered chat calls, and no job is
// kept for a reply that did not parse. A job may stay only for a passing
// failure (on a loaded machine, the 30 s timeout), waiting for its retry.
func TestLabCurationKeepsItsBudgetWithTheChatModelInUse(t *testing.T) {
	host := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if host == "" {
		t.Skip("runs against a real Ollama: set OLLAMA_HOST (and RECALL_TEST_CHAT_MODEL=llama3.2-ramble)")
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	chatModel := os.Getenv("RECALL_TEST_CHAT_MODEL")
	client, err := embedding.New(embedding.Options{Host: host, ChatModel: chatModel})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := client.Check(context.Background()); err != nil || !st.EmbedModelPulled || !st.ChatModelPulled {
		t.Skipf("needs %s and %s at %s: %v", client.Model(), client.ChatModel(), host, err)
	}
	e := newEnv(t, validation.Options{})
	judge := &countingJudge{inner: client}
	runner := jobs.New(e.db, jobs.Options{Logger: quietLog})
	svc := validation.New(e.db, e.mem, client, judge, validation.Options{Enabled: true, Logger: quietLog, Now: e.clock.Now, Jobs: runner})
	e.mem.SetCurator(svc)
	const n = 5
	for _, c := range similarNotes(n) {
		e.remember(c, memory.TypePattern, "global")
	}
	runner.Start(e.ctx)
	if err := runner.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := e.db.SQL().Query(`SELECT last_error FROM jobs`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var lastErr string
		rows.Scan(&lastErr)
		if !strings.Contains(lastErr, "did not answer") && !strings.Contains(lastErr, "not running") {
			t.Errorf("a job was kept for something other than a passing failure: %q", lastErr)
		}
	}
	rows.Close()
	if calls := judge.calls.Load(); calls > 3*n {
		t.Errorf("%d chat calls for %d memories with %s, want at most %d", calls, n, client.ChatModel(), 3*n)
	}
	st, _ := e.db.Stats(e.ctx)
	t.Logf("%s: %d chat calls for %d memories; model health %+v", client.ChatModel(), judge.calls.Load(), n, st.ModelHealth)
}
