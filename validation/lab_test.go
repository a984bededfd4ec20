package validation_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// countingJudge counts the chat calls a curation service makes.
type countingJudge struct {
	inner memory.Judge
	calls atomic.Int64
}

func (j *countingJudge) JudgeJSON(ctx context.Context, system, prompt string, schema json.RawMessage, out any) error {
	j.calls.Add(1)
	return j.inner.JudgeJSON(ctx, system, prompt, schema, out)
}

// Against a real Ollama (OLLAMA_HOST) with the chat model of
// RECALL_TEST_CHAT_MODEL (the lab's llama3.2-ramble, whose replies never
// parse): the queue empties in one pass and each memory costs at most three
// chat calls.
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
	svc := validation.New(e.db, e.mem, client, judge, validation.Options{Enabled: true, Logger: quietLog, Now: e.clock.Now})
	e.mem.SetCurator(svc)
	const n = 5
	for _, c := range similarNotes(n) {
		e.remember(c, memory.TypePattern, "global")
	}
	svc.Start(e.ctx)
	if err := svc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := e.pendingJobs(); left != 0 {
		t.Errorf("%d jobs left after one pass with %s", left, client.ChatModel())
	}
	if calls := judge.calls.Load(); calls > 3*n {
		t.Errorf("%d chat calls for %d memories with %s, want at most %d", calls, n, client.ChatModel(), 3*n)
	}
	st, _ := e.db.Stats(e.ctx)
	t.Logf("%s: %d chat calls for %d memories; model health %+v", client.ChatModel(), judge.calls.Load(), n, st.ModelHealth)
}
