package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/capture"
	"github.com/recall-mcp/recall/hook"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/project"
	"github.com/recall-mcp/recall/storage/sqlite"
)

// A prompt hook's process searches and records the prompt on the one
// connection it opened: a second connection would read the whole schema
// again. The prompt is recorded all the same, and the memory it matches is
// listed.
func TestPromptHookSearchesAndRecordsOnOneConnection(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "shop-api")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "recall.db")
	seed, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ns := project.Candidates(root)[0]
	stored, err := memory.NewService(seed, nil, memory.Options{}).Remember(ctx, memory.StoreRequest{
		Content: "Orders are cached for five minutes in the orders service", Namespace: ns, Type: memory.TypeDecision,
	})
	if err != nil {
		t.Fatal(err)
	}
	seed.Close()

	db, err := sqlite.OpenWith(ctx, path, sqlite.Options{SpoolWhenBusy: true, ShortLived: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := &hook.Handler{
		Memory:   memory.NewService(db, nil, memory.Options{}),
		Projects: project.NewResolver(db, "", nil),
		Capture:  &capture.Recorder{Store: db},
		Floor:    memory.Floor{MinCoverage: 0.6},
	}
	out, err := h.Handle(ctx, hook.UserPromptSubmit, &hook.Input{SessionID: "s1", Cwd: root, Prompt: "How many minutes are orders cached in the orders service?"})
	if err != nil {
		t.Fatal(err)
	}
	if out == nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, stored.ID) {
		t.Fatalf("the prompt hook answered %+v; want the index listing %s", out, stored.ID)
	}
	var prompts int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM journal WHERE kind = 'prompt' AND session_id = 's1'`).Scan(&prompts); err != nil {
		t.Fatal(err)
	}
	if prompts != 1 {
		t.Errorf("%d prompts recorded; want 1", prompts)
	}
	if n := db.SQL().Stats().OpenConnections; n != 1 {
		t.Errorf("the prompt hook opened %d connections; want 1", n)
	}
}
