package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/capture/journal"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/spool"
)

// A tool call a hook kept without opening the database waits in the spool
// until a process that can complete it drains it (with the writes after it),
// is then written once with what the resolver found, and a resolver's
// lasting error moves it aside rather than holding up the spool.
func TestKeptToolCallsAreCompletedWhenApplied(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	sp := spool.New(db.SpoolDir(), nil)
	type kept struct{ Title, Cwd string }
	for _, k := range []kept{{"Edit: orders.go", "/src/shop"}, {"Bash: go test", "/src/shop"}} {
		if _, err := sp.AddUnsynced(SpoolKeptToolCall, "", k); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sp.AddUnsynced(spoolJournal, "", capture.Entry{Kind: capture.KindPrompt, Namespace: "project:shop", SessionID: "s1", Title: "next prompt"}); err != nil {
		t.Fatal(err)
	}

	// No resolver in this process: everything waits, in order.
	res, err := db.DrainSpool(ctx, spool.Budget{})
	if !spool.IsLater(err) || res.Applied != 0 || res.Failed != 0 || res.Left != 3 {
		t.Fatalf("DrainSpool without a resolver = %+v, %v; want all 3 left for later", res, err)
	}

	resolved := 0
	var before []int // how many entries the drain wrote before each, in its transaction
	db.ResolveKeptToolCalls(func(ctx context.Context, data json.RawMessage, written []*journal.Entry) (*journal.Entry, *memory.FileActivity, error) {
		var k kept
		if err := json.Unmarshal(data, &k); err != nil {
			return nil, nil, err
		}
		resolved++
		before = append(before, len(written))
		return &journal.Entry{Kind: capture.KindObservation, Namespace: "project:shop", SessionID: "s1", ToolName: "Edit", Title: k.Title, Body: k.Title},
			&memory.FileActivity{FilePath: k.Cwd + "/orders.go", Action: memory.ActionEdit, SessionID: "s1", ProjectRoot: k.Cwd, FileType: "go"}, nil
	})
	res, err = db.DrainSpool(ctx, spool.Budget{})
	if err != nil || res != (spool.Result{Applied: 3}) {
		t.Fatalf("DrainSpool = %+v, %v; want 3 applied", res, err)
	}
	if resolved != 2 || before[0] != 0 || before[1] != 1 {
		t.Fatalf("the resolver completed %d kept tool calls, told of %v entries written before them; want 2, told of [0 1] (one transaction)", resolved, before)
	}
	var titles []string
	r, err := db.SQL().QueryContext(ctx, `SELECT namespace || ' ' || title FROM journal WHERE session_id = 's1' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var s string
		r.Scan(&s)
		titles = append(titles, s)
	}
	r.Close()
	want := []string{"project:shop Edit: orders.go", "project:shop Bash: go test", "project:shop next prompt"}
	if len(titles) != len(want) {
		t.Fatalf("journal = %q, want %q", titles, want)
	}
	for i := range want {
		if titles[i] != want[i] {
			t.Fatalf("journal = %q, want %q (in the order kept)", titles, want)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM file_activity WHERE file_path = '/src/shop/orders.go'`); n != 2 {
		t.Fatalf("%d file touches, want 2", n)
	}

	// A kept tool call the resolver rejects for good is moved aside.
	db.ResolveKeptToolCalls(func(context.Context, json.RawMessage, []*journal.Entry) (*journal.Entry, *memory.FileActivity, error) {
		return nil, nil, errors.New("decode kept tool call: unexpected end of JSON input")
	})
	if _, err := sp.AddUnsynced(SpoolKeptToolCall, "", kept{"x", "/src/shop"}); err != nil {
		t.Fatal(err)
	}
	if res, err := db.DrainSpool(ctx, spool.Budget{}); err != nil || res != (spool.Result{Failed: 1}) {
		t.Fatalf("DrainSpool of a kept tool call that cannot be completed = %+v, %v; want it moved aside", res, err)
	}
}
