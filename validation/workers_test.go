package validation_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/jobs"
	"github.com/recall-mcp/recall/memory"
	"github.com/recall-mcp/recall/validation"
)

// relatesWhen replies relates_to (confidence 0.8) to prompts naming word, none
// to the rest.
func relatesWhen(word string) func(string) string {
	return func(prompt string) string {
		if strings.Contains(prompt, word) {
			return `{"relation": "relates_to", "confidence": 0.8, "reason": "same test setup"}`
		}
		return `{"relation": "none", "confidence": 0.9, "reason": "unrelated"}`
	}
}

func TestStoreQueuesInferenceAndWorkersLinkMemories(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true})
	e.needFake()
	e.judgeBy(relatesWhen("fixtures"))
	before := workerGoroutines()

	a := e.remember(pytest, memory.TypePreference, "global")
	b := e.remember(fixtures, memory.TypePattern, "global")
	res, err := e.mem.Remember(e.ctx, memory.StoreRequest{Content: docker, Type: memory.TypeDecision})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing is judged on the request path.
	if n := e.fake.Counts().ChatCalls; n != 0 || len(res.AutoRelationships) != 0 {
		t.Fatalf("store made %d chat calls and returned %v; want it queued", n, res.AutoRelationships)
	}
	if n := e.pendingJobs(); n != 3 {
		t.Fatalf("%d jobs queued, want 3", n)
	}

	embedsBefore := e.fake.Counts().EmbedCalls
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := e.pendingJobs(); n != 0 {
		t.Errorf("%d jobs left after draining", n)
	}
	edges := e.edges(b.ID, memory.RelationRelatesTo)
	if len(edges) != 1 || edges[0].SourceID != b.ID || edges[0].TargetID != a.ID || edges[0].Weight != 0.8 {
		t.Errorf("relates_to edges = %+v, want one from the newer %s to the older %s", edges, b.ID, a.ID)
	}
	if edges := e.edges(res.ID, memory.RelationRelatesTo); len(edges) != 0 {
		t.Errorf("the unrelated memory got edges %+v", edges)
	}
	// Bound: jobs use the vectors stored with the memories (no embed call) and
	// make at most 3 chat calls each. a and b see each other (one judgment
	// each), the docker memory sees nothing similar.
	c := e.fake.Counts()
	if c.EmbedCalls-embedsBefore != 0 || c.ChatCalls != 2 {
		t.Errorf("model calls for 3 jobs: %d embed, %d chat; want 0 and 2", c.EmbedCalls-embedsBefore, c.ChatCalls)
	}
	if after := workersLeftAfter(before); after != before {
		t.Errorf("%d worker goroutines after Close, %d before", after, before)
	}
}

func TestJobsLeftAtExitResumeAtNextStart(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true})
	e.needFake()
	e.judgeBy(relatesWhen("fixtures"))
	a := e.remember(pytest, memory.TypePreference, "global")
	b := e.remember(fixtures, memory.TypePattern, "global")
	// The first process stored and exited without running its queue.
	if n := e.pendingJobs(); n != 2 {
		t.Fatalf("%d jobs queued, want 2", n)
	}

	db := e.open()
	runner := jobs.New(db, jobs.Options{Workers: 1, Logger: quietLog})
	validation.New(db, e.mem, e.client, e.client, validation.Options{Enabled: true, Logger: quietLog, Jobs: runner})
	runner.Start(e.ctx)
	if err := runner.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := e.pendingJobs(); n != 0 {
		t.Errorf("%d jobs left", n)
	}
	if edges := e.edges(a.ID, memory.RelationRelatesTo); len(edges) != 1 || edges[0].SourceID != b.ID {
		t.Errorf("edges = %+v, want %s relates_to %s", edges, b.ID, a.ID)
	}
}

func TestCloseWithEndedContextHandsJobsBack(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true, Workers: 2})
	e.needFake()
	e.remember(pytest, memory.TypePreference, "global")
	e.remember(fixtures, memory.TypePattern, "global")
	e.fake.SetDelay(1 << 40) // the model hangs
	before := workerGoroutines()

	e.jobs.Start(e.ctx)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.jobs.Close(ctx); err == nil || !strings.Contains(err.Error(), "resumed at next start") {
		t.Errorf("Close = %v, want an error saying the rest is resumed", err)
	}
	if n := e.pendingJobs(); n != 2 {
		t.Errorf("%d jobs in the queue after an interrupted drain, want 2", n)
	}
	if after := workersLeftAfter(before); after != before {
		t.Errorf("%d worker goroutines after Close, %d before", after, before)
	}
}

func TestCurationOffQueuesNothing(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: false})
	e.remember(pytest, memory.TypePreference, "global")
	e.remember(fixtures, memory.TypePattern, "global")
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := e.pendingJobs(); n != 0 {
		t.Errorf("%d jobs queued with curation off", n)
	}
	if e.fake != nil && e.fake.Counts().ChatCalls != 0 {
		t.Errorf("chat calls with curation off")
	}
}

func TestInferredSupersedesNeverHidesAGoldenRule(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true})
	e.needFake()
	old := e.remember(unittest, memory.TypePreference, "global")
	if _, err := e.db.UpdateMemory(e.ctx, old.ID, func(m *memory.Memory) error { m.Type = memory.TypeGoldenRule; return nil }); err != nil {
		t.Fatal(err)
	}
	e.judgeBy(func(string) string { return `{"relation": "supersedes", "confidence": 0.95, "reason": "newer choice"}` })
	newer := e.remember(pytest, memory.TypePreference, "global")
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.edges(old.ID, memory.RelationSupersedes); len(got) != 0 {
		t.Errorf("golden rule superseded by a guess: %+v", got)
	}
	if got := e.edges(old.ID, memory.RelationContradicts); len(got) != 1 || got[0].SourceID != newer.ID {
		t.Errorf("contradicts edges = %+v, want one from %s", got, newer.ID)
	}
}

func TestInferredSupersedesFollowsTheRecordRule(t *testing.T) {
	e := newEnv(t, validation.Options{Enabled: true})
	e.needFake()
	e.judgeBy(func(string) string { return `{"relation": "supersedes", "confidence": 0.95, "reason": "newer choice"}` })
	old := e.remember(unittest, memory.TypePreference, "global")
	newer := e.remember(pytest, memory.TypePreference, "global")
	// Before the workers run, the newer memory earns a clearly better record:
	// confidence 0.6 against 0.3, three successes.
	for range 3 {
		e.outcome(newer.ID, true, "")
	}
	e.jobs.Start(e.ctx)
	if err := e.jobs.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.edges(old.ID, memory.RelationSupersedes); len(got) != 1 || got[0].SourceID != newer.ID {
		t.Errorf("supersedes edges = %+v, want one from %s, whose record allows it", got, newer.ID)
	}
}
