package tests

import (
	"strings"
	"testing"
	"time"
)

// TestShowEditRmRestore walks one memory through the commands a person uses
// on it, reading what each prints.
func TestShowEditRmRestore(t *testing.T) {
	c := newCLIEnv(t)
	r := c.run("Orders MUST be cached in Redis\n", "add", "--type", "decision", "--namespace", "shop")
	id := storedID.FindStringSubmatch(r.stdout)
	if r.code != 0 || id == nil || !strings.Contains(r.stdout, "(decision, project:shop)") {
		t.Fatalf("add from a pipe: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	redis := id[1]
	old := c.store("Orders are cached in memcached", "--type", "decision", "--namespace", "shop")
	c.call("memory_relate_tool", `{"source_id":"`+redis+`","target_id":"`+old+`","relation":"supersedes"}`)
	for _, ok := range []string{"true", "true", "false"} {
		c.call("memory_outcome_tool", `{"memory_id":"`+redis+`","success":`+ok+`}`)
	}
	if out := c.ok("edit", redis, "--importance", "0.9"); !strings.Contains(out, "changed importance of "+redis) {
		t.Errorf("edit --importance: %q", out)
	}
	if r := c.run("", "edit", redis, "--type", "opinion"); r.code == 0 || !strings.Contains(r.stderr, "preference") {
		t.Errorf("edit to an unknown type: exit %d, %q; want a refusal naming the types", r.code, r.stderr)
	}
	// A move, by a project's name, and back: both in the change log.
	if out := c.ok("edit", redis, "--namespace", "web"); !strings.Contains(out, "changed namespace of "+redis) {
		t.Errorf("edit --namespace: %q", out)
	}
	if show := c.ok("show", redis); !strings.Contains(show, "namespace project:web") || !strings.Contains(show, "namespace project:shop → project:web") {
		t.Errorf("show after the move:\n%s", show)
	}
	c.ok("edit", redis, "--namespace", "project:shop")
	if r := c.run("", "edit", redis, "--namespace", "project:"); r.code == 0 || !strings.Contains(r.stderr, "namespace") {
		t.Errorf("edit to a bad namespace: exit %d, %q; want a refusal saying what is accepted", r.code, r.stderr)
	}

	show := c.ok("show", redis)
	for _, want := range []string{
		"Orders MUST be cached in Redis",
		`This memory replaces ` + old + ` "Orders are cached in memcached".`,
		"0.30 → 0.35 over 3 events",
		"0 applied, 2 succeeded, 1 failed; success rate 67%",
		"edit by cli: importance 0.5 → 0.9",
	} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if other := c.ok("show", old); !strings.Contains(other, "Replaced by "+redis) {
		t.Errorf("show of the superseded memory:\n%s", other)
	}

	if out := c.ok("rm", old); !strings.Contains(out, "deleted "+old) || !strings.Contains(out, "recall restore") {
		t.Errorf("rm: %q", out)
	}
	if r := c.run("", "show", old); r.code != 1 || !strings.Contains(r.stderr, "no memory "+old) {
		t.Errorf("show of a deleted memory: exit %d %q", r.code, r.stderr)
	}
	if trash := c.ok("restore"); !strings.Contains(trash, old) {
		t.Errorf("restore without an id should list the trash:\n%s", trash)
	}
	if out := c.ok("restore", old); !strings.Contains(out, "restored "+old) {
		t.Errorf("restore: %q", out)
	}
	if js := c.ok("show", "--json", old); !strings.Contains(js, `"action": "restore",
      "source": "cli"`) {
		t.Errorf("the restore is not recorded as the cli's:\n%s", js)
	}
	if show := c.ok("show", redis); !strings.Contains(show, "This memory replaces "+old) {
		t.Errorf("the restored memory lost its link:\n%s", show)
	}

	gold := c.store("You MUST NOT push to main", "--type", "golden_rule", "--namespace", "global")
	if r := c.run("", "rm", gold); r.code != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("rm of a golden rule without --force: exit %d %q", r.code, r.stderr)
	}
	c.ok("rm", "--force", gold)
}

// TestListAndSearchFilters narrows by confidence, date and project and sorts.
func TestListAndSearchFilters(t *testing.T) {
	c := newCLIEnv(t)
	low := c.store("Cache keys are prefixed by tenant", "--type", "pattern", "--namespace", "shop")
	high := c.store("Cache entries expire after five minutes", "--type", "decision", "--namespace", "shop")
	other := c.store("Cache the blog's feed for an hour", "--type", "decision", "--namespace", "blog")
	for range 3 {
		c.call("memory_outcome_tool", `{"memory_id":"`+high+`","success":true}`)
	}
	out := c.ok("list", "--min-confidence", "0.5")
	if !strings.Contains(out, high) || strings.Contains(out, low) || strings.Contains(out, other) {
		t.Errorf("list --min-confidence 0.5:\n%s", out)
	}
	out = c.ok("list", "--project", "shop", "--sort", "confidence", "--asc")
	if strings.Contains(out, other) || strings.Index(out, low) > strings.Index(out, high) {
		t.Errorf("list --project shop --sort confidence --asc: want %s before %s, no %s:\n%s", low, high, other, out)
	}
	tomorrow := time.Now().Add(24 * time.Hour).Format("2006-01-02")
	if out := c.ok("list", "--since", tomorrow); !strings.Contains(out, "no memories") {
		t.Errorf("list --since tomorrow:\n%s", out)
	}
	if r := c.run("", "list", "--since", "last tuesday"); r.code != 2 || !strings.Contains(r.stderr, "2026-03-01") {
		t.Errorf("a bad date: exit %d %q", r.code, r.stderr)
	}
	if r := c.run("", "list", "--min-confidence", "2"); r.code != 2 || !strings.Contains(r.stderr, "accepted 0 to 1") {
		t.Errorf("a bad confidence: exit %d %q", r.code, r.stderr)
	}
	out = c.ok("search", "cache", "--type", "decision", "--sort", "confidence")
	if strings.Contains(out, low) || !strings.Contains(out, high) || !strings.Contains(out, other) || strings.Index(out, high) > strings.Index(out, other) {
		t.Errorf("search --type decision --sort confidence:\n%s", out)
	}
	if !strings.Contains(out, "100%") {
		t.Errorf("search shows no match percentage:\n%s", out)
	}
}
