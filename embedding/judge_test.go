package embedding_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/recall-mcp/recall/embedding"
	"github.com/recall-mcp/recall/memory"
)

var verdictSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "contradicts": {"type": "boolean"},
    "reason": {"type": "string"}
  },
  "required": ["contradicts", "reason"]
}`)

type verdict struct {
	Contradicts *bool  `json:"contradicts"`
	Reason      string `json:"reason"`
}

func TestJudgeJSONDecodesTheReply(t *testing.T) {
	host, fake := testHost(t)
	c := newClient(t, host, embedding.Options{})
	needModels(t, c)
	if fake != nil {
		fake.QueueReplies(`{"contradicts": true, "reason": "tabs versus spaces"}`)
	}
	var v verdict
	err := c.JudgeJSON(context.Background(),
		"You compare two statements and answer in JSON.",
		"A: Indent with tabs.\nB: Indent with spaces, never tabs.\nDo they contradict each other?",
		verdictSchema, &v)
	if err != nil {
		t.Fatal(err)
	}
	if v.Contradicts == nil {
		t.Fatalf("reply decoded without the required field: %+v", v)
	}
	if fake == nil {
		return
	}
	if !*v.Contradicts || v.Reason != "tabs versus spaces" {
		t.Errorf("decoded %+v", v)
	}
	reqs := fake.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d chat requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "llama3.2" || r.Stream == nil || *r.Stream || r.Options["temperature"] != float64(0) {
		t.Errorf("request model %q stream %v options %v; want llama3.2, false, temperature 0", r.Model, r.Stream, r.Options)
	}
	var sent, want any
	json.Unmarshal(r.Format, &sent)
	json.Unmarshal(verdictSchema, &want)
	if sentJSON, _ := json.Marshal(sent); string(sentJSON) != mustJSON(want) {
		t.Errorf("format sent %s, want the schema", r.Format)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
		t.Errorf("messages %+v, want system then user", r.Messages)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestJudgeJSONAcceptsAFencedReply(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	fake.QueueReplies("```json\n{\"contradicts\": false, \"reason\": \"same\"}\n```")
	var v verdict
	if err := newClient(t, host, embedding.Options{}).JudgeJSON(context.Background(), "", "q", verdictSchema, &v); err != nil {
		t.Fatal(err)
	}
	if v.Contradicts == nil || *v.Contradicts || v.Reason != "same" {
		t.Errorf("decoded %+v", v)
	}
}

func TestJudgeJSONRejectsAReplyThatDoesNotParse(t *testing.T) {
	host, fake := testHost(t)
	needFake(t, fake)
	c := newClient(t, host, embedding.Options{})
	for _, reply := range []string{"I think they contradict.", `{"contradicts": "maybe"}`, `{"contradicts": tru`, ""} {
		fake.QueueReplies(reply)
		var v verdict
		err := c.JudgeJSON(context.Background(), "", "q", verdictSchema, &v)
		if !errors.Is(err, embedding.ErrBadReply) {
			t.Errorf("reply %q: err = %v, want ErrBadReply", reply, err)
		}
		if errors.Is(err, memory.ErrUnavailable) {
			t.Errorf("reply %q: a bad reply is a failed judgment, not an unavailable model", reply)
		}
	}
	// A nil destination is a programming error reported as such, not a panic.
	fake.QueueReplies(`{}`)
	if err := c.JudgeJSON(context.Background(), "", "q", verdictSchema, nil); err == nil {
		t.Error("decoding into nil succeeded")
	}
}

func TestCheck(t *testing.T) {
	host, fake := testHost(t)
	c := newClient(t, host, embedding.Options{})
	if fake == nil {
		needOllama(t, c)
	}
	st, err := c.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Reachable || st.Version == "" || st.Host != c.Host() {
		t.Errorf("status %+v, want reachable with a version", st)
	}
	if fake == nil {
		return
	}
	if !st.EmbedModelPulled || !st.ChatModelPulled || len(st.Models) != 2 {
		t.Errorf("status %+v, want both default models pulled", st)
	}
	fake.RemoveModel("llama3.2")
	st, err = c.Check(context.Background())
	if err != nil {
		t.Fatalf("a missing model is reported in the status, not as an error: %v", err)
	}
	if !st.EmbedModelPulled || st.ChatModelPulled {
		t.Errorf("status %+v, want embed model pulled and chat model not", st)
	}
}
