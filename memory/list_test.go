package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// clock is a fake time source that advances one second per reading, so every
// stored memory has a distinct creation time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { c.t = c.t.Add(time.Second); return c.t }

func listEnv(t *testing.T) (*memory.Service, *sqlite.DB, []string) {
	t.Helper()
	db := openStore(t)
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	svc := memory.NewService(db, nil, memory.Options{Now: c.now})
	var ids []string
	for i := range 7 {
		ns := "project:a"
		if i%2 == 1 {
			ns = "project:b"
		}
		res, err := svc.Remember(context.Background(), memory.StoreRequest{
			Content: fmt.Sprintf("note number %d", i), Namespace: ns, Importance: ptr(float64(i) / 10),
			Type: []memory.Type{memory.TypeSession, memory.TypeDecision}[i%3/2],
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	return svc, db, ids
}

func TestListOrdersAndPages(t *testing.T) {
	svc, _, stored := listEnv(t)
	ctx := context.Background()

	res, err := svc.List(ctx, memory.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 7 || res.Count != 7 || res.HasMore || res.Limit != 100 || res.Offset != 0 {
		t.Fatalf("defaults: %+v", res)
	}
	if res.Memories[0].ID != stored[6] || res.Memories[6].ID != stored[0] {
		t.Fatal("default order is newest first")
	}

	res, err = svc.List(ctx, memory.ListRequest{Limit: 3, Offset: 3, OrderBy: "importance", Descending: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 3 || !res.HasMore || res.Total != 7 {
		t.Fatalf("page: %+v", res)
	}
	for i, m := range res.Memories {
		if m.ID != stored[3+i] {
			t.Fatalf("ascending importance page 2: position %d is %s, want %s", i, m.ID, stored[3+i])
		}
	}
	res, err = svc.List(ctx, memory.ListRequest{Limit: 3, Offset: 6})
	if err != nil || res.Count != 1 || res.HasMore {
		t.Fatalf("last page: %+v, %v", res, err)
	}
	res, err = svc.List(ctx, memory.ListRequest{Offset: 50})
	if err != nil || res.Count != 0 || res.Memories == nil || res.HasMore {
		t.Fatalf("past the end: %+v, %v", res, err)
	}

	res, err = svc.List(ctx, memory.ListRequest{Namespace: "project:b", Type: memory.TypeSession})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Memories {
		if m.Namespace != "project:b" || m.Type != memory.TypeSession {
			t.Fatalf("filter let through %+v", m)
		}
	}
	n, err := svc.Count(ctx, memory.CountRequest{Namespace: "project:b", Type: memory.TypeSession})
	if err != nil || n != res.Total || n == 0 {
		t.Fatalf("count %d, %v; list total %d", n, err, res.Total)
	}
}

func TestListRefusesBadInput(t *testing.T) {
	svc, _, _ := listEnv(t)
	bad := []struct {
		req   memory.ListRequest
		field string
	}{
		{memory.ListRequest{Limit: 1001}, "limit"},
		{memory.ListRequest{Limit: -1}, "limit"},
		{memory.ListRequest{Offset: -1}, "offset"},
		{memory.ListRequest{OrderBy: "random"}, "order_by"},
		{memory.ListRequest{Namespace: "x"}, "namespace"},
		{memory.ListRequest{Type: "x"}, "memory_type"},
	}
	for _, c := range bad {
		_, err := svc.List(context.Background(), c.req)
		wantInvalid(t, err, c.field)
	}
	_, err := svc.Count(context.Background(), memory.CountRequest{Namespace: "nope"})
	wantInvalid(t, err, "namespace")
	if res, err := svc.List(context.Background(), memory.ListRequest{Limit: 1000}); err != nil || res.Limit != 1000 {
		t.Fatalf("limit 1000 is accepted: %v", err)
	}
}
