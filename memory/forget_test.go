package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

func TestForgetByIDQueryAndInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	keep := e.remember(t, memory.StoreRequest{Content: "unrelated gardening note"}).ID
	byID := e.remember(t, memory.StoreRequest{Content: "temporary debug flag"}).ID
	q1 := e.remember(t, memory.StoreRequest{Content: "flaky websocket test retries", Namespace: "project:x"}).ID
	q2 := e.remember(t, memory.StoreRequest{Content: "websocket reconnect backoff", Namespace: "project:x"}).ID
	other := e.remember(t, memory.StoreRequest{Content: "websocket in another project", Namespace: "project:y"}).ID

	res, err := e.svc.Forget(ctx, memory.ForgetRequest{MemoryID: byID, Confirm: true})
	if err != nil || res.Mode != memory.ForgetByID || res.DeletedCount != 1 || res.DeletedIDs[0] != byID || res.DryRun {
		t.Fatalf("by id: %+v, %v", res, err)
	}
	if _, err := e.svc.Get(ctx, byID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("deleted memory still there: %v", err)
	}
	if _, err := e.svc.Forget(ctx, memory.ForgetRequest{MemoryID: byID, Confirm: true}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("forgetting twice: %v", err)
	}

	res, err = e.svc.Forget(ctx, memory.ForgetRequest{Query: "websocket", Namespace: "project:x", Confirm: true})
	if err != nil || res.Mode != memory.ForgetByQuery || res.DeletedCount != 2 || !contains(res.DeletedIDs, q1) || !contains(res.DeletedIDs, q2) {
		t.Fatalf("by query in project:x: %+v, %v", res, err)
	}
	if _, err := e.svc.Get(ctx, other); err != nil {
		t.Fatalf("the other namespace's memory must stay: %v", err)
	}

	res, err = e.svc.Forget(ctx, memory.ForgetRequest{Input: other, Confirm: true})
	if err != nil || res.Mode != memory.ForgetByID || res.DeletedCount != 1 {
		t.Fatalf("input as id: %+v, %v", res, err)
	}
	res, err = e.svc.Forget(ctx, memory.ForgetRequest{Input: "gardening", NResults: 1, Confirm: true})
	if err != nil || res.Mode != memory.ForgetByQuery || res.DeletedCount != 1 || res.DeletedIDs[0] != keep {
		t.Fatalf("input as query: %+v, %v", res, err)
	}
	if n, _ := e.svc.Count(ctx, memory.CountRequest{}); n != 0 {
		t.Fatalf("%d memories left, want 0", n)
	}
}

func TestForgetDryRunDeletesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	id := e.remember(t, memory.StoreRequest{Content: "stale build cache note"}).ID
	res, err := e.svc.Forget(ctx, memory.ForgetRequest{Query: "build cache", Confirm: false})
	if err != nil || !res.DryRun || res.DeletedCount != 1 || res.DeletedIDs[0] != id {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if _, err := e.svc.Get(ctx, id); err != nil {
		t.Fatalf("dry run deleted the memory: %v", err)
	}
}

func TestForgetProtectsGoldenRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rule := e.remember(t, memory.StoreRequest{Content: "MUST run the linter before pushing", Type: memory.TypeGoldenRule}).ID
	note := e.remember(t, memory.StoreRequest{Content: "the linter config lives in the repo root"}).ID

	_, err := e.svc.Forget(ctx, memory.ForgetRequest{MemoryID: rule, Confirm: true})
	if !errors.Is(err, memory.ErrProtected) || !strings.Contains(err.Error(), "force=true") {
		t.Fatalf("golden rule by id without force: %v", err)
	}
	res, err := e.svc.Forget(ctx, memory.ForgetRequest{Query: "linter", Confirm: true})
	if err != nil || res.DeletedCount != 1 || res.DeletedIDs[0] != note || len(res.Protected) != 1 || res.Protected[0] != rule {
		t.Fatalf("golden rule by query: %+v, %v", res, err)
	}
	if _, err := e.svc.Get(ctx, rule); err != nil {
		t.Fatalf("golden rule deleted: %v", err)
	}
	res, err = e.svc.Forget(ctx, memory.ForgetRequest{MemoryID: rule, Confirm: true, Force: true})
	if err != nil || res.DeletedCount != 1 {
		t.Fatalf("golden rule with force: %+v, %v", res, err)
	}
}

func TestForgetRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	bad := []struct {
		req   memory.ForgetRequest
		field string
	}{
		{memory.ForgetRequest{}, "forget selector"},
		{memory.ForgetRequest{MemoryID: "mem_1_ab", Query: "x"}, "forget selector"},
		{memory.ForgetRequest{MemoryID: "not-an-id"}, "memory_id"},
		{memory.ForgetRequest{Query: "   "}, "query"},
		{memory.ForgetRequest{Query: "x", NResults: 500}, "n_results"},
		{memory.ForgetRequest{Query: "x", Namespace: "bogus"}, "namespace"},
	}
	for _, c := range bad {
		_, err := e.svc.Forget(context.Background(), c.req)
		wantInvalid(t, err, c.field)
	}
}
