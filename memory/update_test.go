package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestUpdateKeepsTheRulesAndRecordsTheEdit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id := e.remember(t, memory.StoreRequest{Content: "the build uses bazel", Type: memory.TypeDecision, Namespace: "global"}).ID
	other := e.remember(t, memory.StoreRequest{Content: "tabs in Makefiles", Type: memory.TypePattern, Namespace: "global"}).ID

	content, typ, imp := "the build uses make", memory.TypePattern, 0.8
	res, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Content: &content, Type: &typ, Importance: &imp, By: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Memory
	if m.Content != content || m.Type != typ || m.Importance != imp || len(res.Changed) != 3 {
		t.Fatalf("after update: %+v, changed %v", m, res.Changed)
	}
	if m.ContentHash != memory.ContentHash(content) {
		t.Errorf("content hash %s, want the new content's", m.ContentHash)
	}
	if m.EmbeddingPending {
		t.Error("the new content was not embedded although Ollama answers")
	}
	edits, _ := m.Metadata[memory.MetaEdits].([]any)
	if len(edits) != 1 {
		t.Fatalf("metadata.edits = %v, want one entry", m.Metadata[memory.MetaEdits])
	}
	edit := edits[0].(map[string]any)
	if edit["by"] != "viewer" || edit["at"] == nil || edit["previous_memory_type"] != "decision" || edit["previous_importance"] != 0.5 {
		t.Errorf("edit recorded as %v", edit)
	}
	// The keyword search follows the new text.
	rec, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "make", NResults: 1})
	if err != nil || len(rec.Memories) == 0 || rec.Memories[0].Memory.ID != id {
		t.Errorf("search for the new word: %+v, %v", rec, err)
	}

	// Nothing asked that is not there already: no edit recorded.
	again, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Importance: &imp, By: "viewer"})
	if err != nil || len(again.Changed) != 0 || len(again.Memory.Metadata[memory.MetaEdits].([]any)) != 1 {
		t.Errorf("a no-op update: %+v, %v", again, err)
	}

	bad := 1.5
	if _, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Importance: &bad}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("importance 1.5: %v, want ErrInvalid", err)
	}
	empty := "  "
	if _, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Content: &empty}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("empty content: %v, want ErrInvalid", err)
	}
	same := "tabs in Makefiles"
	if _, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Content: &same}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("content of another memory in the namespace: %v, want ErrInvalid", err)
	}
	_ = other
	golden := memory.TypeGoldenRule
	if _, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: "mem_1_abcdef12", Type: &golden}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
}

func TestUpdatedContentIsPendingWithoutOllama(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id := e.remember(t, memory.StoreRequest{Content: "deploys go through the release script", Namespace: "global"}).ID
	e.ollama.Close()
	content := "deploys go through make release"
	res, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Content: &content, By: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Memory.EmbeddingPending {
		t.Error("edited content with Ollama down is not pending re-embedding")
	}
}

func TestDemoteNeedsAReasonAndRecordsIt(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id := e.remember(t, memory.StoreRequest{Content: "never force-push main", Type: memory.TypeGoldenRule, Namespace: "global"}).ID
	plain := e.remember(t, memory.StoreRequest{Content: "a session note", Namespace: "global"}).ID

	typ := memory.TypePattern
	if _, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Type: &typ}); !errors.Is(err, memory.ErrProtected) {
		t.Errorf("changing a golden rule's type by Update: %v, want ErrProtected", err)
	}
	if _, err := e.svc.Demote(ctx, memory.DemoteRequest{MemoryID: id, Reason: " "}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("demote without a reason: %v, want ErrInvalid", err)
	}
	if _, err := e.svc.Demote(ctx, memory.DemoteRequest{MemoryID: plain, Reason: "x"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("demote a session note: %v, want ErrInvalid", err)
	}
	m, err := e.svc.Demote(ctx, memory.DemoteRequest{MemoryID: id, Reason: "we force-push release branches now", By: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != memory.TypeDecision || m.Metadata["demoted_reason"] != "we force-push release branches now" || m.Metadata["demoted_by"] != "viewer" {
		t.Errorf("demoted: %+v", m)
	}
	edits, _ := m.Metadata[memory.MetaEdits].([]any)
	if len(edits) != 1 || edits[0].(map[string]any)["reason"] == nil {
		t.Errorf("edits %v: want the demotion with its reason", m.Metadata[memory.MetaEdits])
	}
}
