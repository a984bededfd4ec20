package history

import "testing"

func TestPromptUUIDFindsOnlyTypedPrompts(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"fix the cache"}}`:                                           "u1",
		`{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"text","text":"and the tests"}]}}`:                  "u2",
		`{"type":"user","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}`: "",
		`{"type":"user","uuid":"u4","isMeta":true,"message":{"role":"user","content":"<command-name>"}}`:                            "",
		`{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":"the user asked"}}`:                                "",
		`{"type":"user","message":{"role":"user","content":"no uuid"}}`:                                                             "",
		`{"type":"user","uuid":"u5"}`: "",
		`not json "user"`:             "",
	} {
		if got := PromptUUID([]byte(line)); got != want {
			t.Errorf("PromptUUID(%s) = %q, want %q", line, got, want)
		}
	}
}
