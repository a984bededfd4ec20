package tests

import (
	"strings"
	"testing"
)

// The prompt hook asks Ollama for its prompt's vector once, though it looks
// in the project's namespace and the global one: one search over both, no
// second embedding to save.
func TestHookUserPromptSubmitEmbedsThePromptOnce(t *testing.T) {
	c := newCLIEnv(t)
	_, cwd := newProject(t, c, "shop-api")
	redis := c.store("Orders MUST be cached in Redis with a five minute TTL", "--type", "decision", "--namespace", "project:shop-api")
	c.store("Orders MUST be cached per customer, never shared", "--type", "decision")
	before := c.ollama.Counts()
	a, r := c.hook("user-prompt-submit", hookInput(t, "UserPromptSubmit", cwd, map[string]any{"prompt": "Why are orders slow? Check how orders are cached"}))
	if a == nil || !strings.Contains(a.HookSpecificOutput.AdditionalContext, redis) {
		t.Fatalf("the prompt hook did not list %s; stderr:\n%s", redis, r.stderr)
	}
	after := c.ollama.Counts()
	if calls, inputs := after.EmbedCalls-before.EmbedCalls, after.EmbedInputs-before.EmbedInputs; calls != 1 || inputs != 1 {
		t.Errorf("the prompt hook made %d embed calls of %d texts, want 1 of 1 (the prompt)", calls, inputs)
	}
}
