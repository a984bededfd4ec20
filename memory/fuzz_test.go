package memory_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/recall-mcp/recall/memory"
)

// FuzzRemember stores arbitrary content, namespace, type and importance. Every
// input either gets a clear invalid-input error or is stored and comes back
// with exactly its (trimmed) content, and memories stored before are untouched.
func FuzzRemember(f *testing.F) {
	seeds := []struct {
		content, namespace, typ string
		importance              float64
	}{
		{"Prefer table-driven tests", "global", "preference", 0.5},
		{"  padded  ", "project:recall", "", 1},
		{"", "global", "session", 0.5},
		{"claude-mem AND NEAR( \"quoted\" * -x", "project:x", "decision", 0},
		{"bad \xff utf8", "global", "session", 0.5},
		{"nul \x00 byte", "global", "session", 0.5},
		{"émoji 🚀 ünïcode", "project:ünï", "pattern", 0.3},
		{"ok", "project:", "session", 0.5},
		{"ok", "Global", "session", 0.5},
		{"ok", "global", "golden_rule", math.NaN()},
		{"ok", "global", "note", 1.5},
		{"ok", "project:a\nb", "session", 0.5},
	}
	for _, s := range seeds {
		f.Add(s.content, s.namespace, s.typ, s.importance)
	}
	e := newEnv(f)
	ctx := context.Background()
	sentinel := e.remember(f, memory.StoreRequest{Content: "sentinel memory that must never change", Namespace: "project:sentinel", Importance: ptr(0.7)})
	before, err := e.svc.Get(ctx, sentinel.ID)
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, content, namespace, typ string, importance float64) {
		res, err := e.svc.Remember(ctx, memory.StoreRequest{Content: content, Namespace: namespace, Type: memory.Type(typ), Importance: &importance})
		if err != nil {
			var ie *memory.InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, memory.ErrInvalid) || ie.Field == "" || ie.Accepted == "" {
				t.Fatalf("error is not a clear invalid-input error: %v", err)
			}
			return
		}
		got, err := e.svc.Get(ctx, res.ID)
		if err != nil {
			t.Fatalf("stored memory %s not retrievable: %v", res.ID, err)
		}
		if !res.Duplicate && got.Content != strings.TrimSpace(content) {
			t.Fatalf("content %q came back as %q", strings.TrimSpace(content), got.Content)
		}
		if res.Duplicate && got.ContentHash != memory.ContentHash(content) {
			t.Fatalf("duplicate %s has hash %s, content hashes to %s", res.ID, got.ContentHash, memory.ContentHash(content))
		}
		wantNS := namespace
		if wantNS == "" {
			wantNS = memory.GlobalNamespace // the default
		}
		if !res.Duplicate && (got.Namespace != wantNS || got.Importance != importance || (typ != "" && string(got.Type) != typ)) {
			t.Fatalf("stored %+v for namespace %q type %q importance %v", got, namespace, typ, importance)
		}
		after, err := e.svc.Get(ctx, sentinel.ID)
		if err != nil || after.Content != before.Content || after.Namespace != before.Namespace ||
			after.Importance != before.Importance || after.Type != before.Type || after.ContentHash != before.ContentHash {
			t.Fatalf("sentinel changed: %+v -> %+v (%v)", before, after, err)
		}
	})
}
