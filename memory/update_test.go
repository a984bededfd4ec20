package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	log, err := e.svc.Changes(ctx, id)
	if err != nil || len(log) != 1 {
		t.Fatalf("change log %+v (err %v), want one entry", log, err)
	}
	want := []memory.FieldChange{
		{Field: "content", Before: "the build uses bazel", After: content},
		{Field: "memory_type", Before: "decision", After: "pattern"},
		{Field: "importance", Before: 0.5, After: 0.8},
	}
	if c := log[0]; c.Action != memory.ChangeEdit || c.Source != "viewer" || c.At.IsZero() || c.Namespace != "global" ||
		fmt.Sprint(c.Fields) != fmt.Sprint(want) {
		t.Errorf("edit recorded as %+v, want fields %v", c, want)
	}
	if _, kept := m.Metadata[memory.MetaEdits]; kept {
		t.Errorf("metadata.edits is still written: %v", m.Metadata)
	}
	// The keyword search follows the new text.
	rec, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "make", NResults: 1})
	if err != nil || len(rec.Memories) == 0 || rec.Memories[0].Memory.ID != id {
		t.Errorf("search for the new word: %+v, %v", rec, err)
	}

	// Nothing asked that is not there already: no edit recorded.
	again, err := e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Importance: &imp, By: "viewer"})
	if err != nil || len(again.Changed) != 0 {
		t.Errorf("a no-op update: %+v, %v", again, err)
	}
	if log, _ := e.svc.Changes(ctx, id); len(log) != 1 {
		t.Errorf("a no-op update was recorded: %+v", log)
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
	log, _ := e.svc.Changes(ctx, id)
	if len(log) != 1 || log[0].Action != memory.ChangeDemote || log[0].Reason != "we force-push release branches now" ||
		log[0].Source != "viewer" || fmt.Sprint(log[0].Fields) != "[{memory_type golden_rule decision}]" {
		t.Errorf("change log %+v: want the demotion with its reason", log)
	}
}

func TestPromoteNeedsAReasonAndAPromotableType(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id := e.remember(t, memory.StoreRequest{Content: "squash merge feature branches", Type: memory.TypePattern, Namespace: "project:web"}).ID
	note := e.remember(t, memory.StoreRequest{Content: "a session note", Namespace: "project:web"}).ID

	if _, err := e.svc.Promote(ctx, memory.PromoteRequest{MemoryID: id, Reason: "  "}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("promote without a reason: %v, want ErrInvalid", err)
	}
	if _, err := e.svc.Promote(ctx, memory.PromoteRequest{MemoryID: note, Reason: "x"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("promote a session note: %v, want ErrInvalid", err)
	}
	if log, _ := e.svc.Changes(ctx, note); len(log) != 0 {
		t.Errorf("a refused promotion was recorded: %+v", log)
	}
	if _, err := e.svc.Demote(ctx, memory.DemoteRequest{MemoryID: id, Reason: "x"}); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("demote a pattern: %v, want ErrInvalid", err)
	}
	m, err := e.svc.Promote(ctx, memory.PromoteRequest{MemoryID: id, Reason: "the team agreed", By: "viewer"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != memory.TypeGoldenRule || m.Metadata["promoted_from"] != "pattern" {
		t.Errorf("promoted: %+v", m)
	}
	if _, err := e.svc.Demote(ctx, memory.DemoteRequest{MemoryID: id, Reason: "too strict", By: "viewer"}); err != nil {
		t.Fatal(err)
	}
	// A person may promote a demoted memory again.
	if m, err = e.svc.Promote(ctx, memory.PromoteRequest{MemoryID: id, Reason: "back by demand", By: "viewer"}); err != nil || m.Type != memory.TypeGoldenRule {
		t.Fatalf("promote after a demote: %+v, %v", m, err)
	}
	if _, demoted := m.Metadata["demoted_at"]; demoted {
		t.Errorf("a promoted memory still carries demoted_at: %v", m.Metadata)
	}
	if _, err := e.svc.Promote(ctx, memory.PromoteRequest{MemoryID: id, Reason: "twice"}); !errors.Is(err, memory.ErrInvalid) || !strings.Contains(err.Error(), "golden rule already") {
		t.Errorf("promoting a golden rule: %v, want it called a golden rule already", err)
	}
	audit, err := e.svc.GoldenAudit(ctx, []string{"project:web"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range audit {
		got = append(got, string(c.Action)+": "+c.Reason)
	}
	if want := "[promote: back by demand demote: too strict promote: the team agreed]"; fmt.Sprint(got) != want {
		t.Errorf("audit trail %v, want %s", got, want)
	}
	if other, _ := e.svc.GoldenAudit(ctx, []string{"project:other"}); len(other) != 0 {
		t.Errorf("another project's audit trail: %+v", other)
	}
}

func TestMoveToAnotherNamespace(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id := e.remember(t, memory.StoreRequest{Content: "tests use the staging database", Type: memory.TypeDecision, Namespace: "global"}).ID
	there := e.remember(t, memory.StoreRequest{Content: "prefer table-driven tests", Type: memory.TypePattern, Namespace: "project:shop"}).ID
	twin := e.remember(t, memory.StoreRequest{Content: "prefer table-driven tests", Type: memory.TypePattern, Namespace: "global"}).ID
	move := func(ctx context.Context, id, ns string) (*memory.UpdateResult, error) {
		return e.svc.Update(ctx, memory.UpdateRequest{MemoryID: id, Namespace: &ns, By: "viewer"})
	}

	res, err := move(ctx, id, " project:shop ")
	if err != nil {
		t.Fatal(err)
	}
	if res.Memory.Namespace != "project:shop" || fmt.Sprint(res.Changed) != "[namespace]" {
		t.Fatalf("moved: %+v, changed %v", res.Memory, res.Changed)
	}
	log, _ := e.svc.Changes(ctx, id)
	if len(log) != 1 || log[0].Action != memory.ChangeEdit || fmt.Sprint(log[0].Fields) != "[{namespace global project:shop}]" {
		t.Fatalf("change log %+v, want the move from global", log)
	}
	rec, err := e.svc.Recall(ctx, memory.RecallRequest{Query: "staging database", Namespace: "project:shop", NResults: 5})
	if err != nil || len(rec.Memories) == 0 || rec.Memories[0].Memory.ID != id {
		t.Fatalf("search in the new namespace: %+v, %v", rec, err)
	}
	if rec, _ := e.svc.Recall(ctx, memory.RecallRequest{Query: "staging database", Namespace: "global", NResults: 5}); slices.Contains(ids(rec.Memories), id) {
		t.Fatalf("still found in global: %v", ids(rec.Memories))
	}

	for _, bad := range []string{"", "Project:Shop", "project:", "private"} {
		if _, err := move(ctx, id, bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("move to %q: %v, want ErrInvalid", bad, err)
		}
	}
	var dup *memory.DuplicateError
	if _, err := move(ctx, twin, "project:shop"); !errors.As(err, &dup) || dup.ExistingID != there {
		t.Errorf("move onto the same text: %v, want a DuplicateError naming %s", err, there)
	} else if !strings.Contains(err.Error(), there) {
		t.Errorf("the refusal %q does not name the memory already there", err)
	}

	// A person moves into their own namespace by its alias, never into another's.
	alice := memory.WithPrincipal(ctx, memory.Principal{Person: "alice"})
	if res, err := move(alice, id, "private"); err != nil || res.Memory.Namespace != "user:alice" {
		t.Fatalf("move to private as alice: %+v, %v", res, err)
	}
	if _, err := move(alice, twin, "user:bob"); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("alice moving into user:bob: %v, want ErrInvalid", err)
	}
	// Undone as any edit: the namespace set back.
	if res, err := move(alice, id, "project:shop"); err != nil || res.Memory.Namespace != "project:shop" {
		t.Fatalf("moving back: %+v, %v", res, err)
	}
	if log, _ := e.svc.Changes(ctx, id); len(log) != 3 || log[0].Author != "alice" {
		t.Errorf("change log after three moves: %+v", log)
	}
}
