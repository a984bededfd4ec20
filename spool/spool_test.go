package spool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newSpool(t *testing.T) *Spool {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "recall.db.spool"), slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func add(t *testing.T, s *Spool, kind string, data any) Write {
	t.Helper()
	w, err := s.Add(kind, data)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// collect is an Apply that records what it was given.
func collect(got *[]string) Apply {
	return func(_ context.Context, w Write) error {
		var v string
		if err := json.Unmarshal(w.Data, &v); err != nil {
			return err
		}
		*got = append(*got, v)
		return nil
	}
}

func TestDrainAppliesInTheOrderAdded(t *testing.T) {
	s := newSpool(t)
	var want []string
	for _, v := range []string{"first", "second", "third", "fourth", "fifth"} {
		add(t, s, "note", v)
		want = append(want, v)
	}
	if n, err := s.Pending(); err != nil || n != 5 {
		t.Fatalf("Pending = %d, %v; want 5", n, err)
	}
	var got []string
	res, err := s.Drain(context.Background(), collect(&got), Budget{})
	if err != nil || res != (Result{Applied: 5}) {
		t.Fatalf("Drain = %+v, %v; want 5 applied", res, err)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("applied %v, want %v", got, want)
	}
	if n, _ := s.Pending(); n != 0 {
		t.Fatalf("%d writes left after a full drain", n)
	}
}

func TestAddMakesPrivateFilesInAPrivateDirectory(t *testing.T) {
	s := newSpool(t)
	w := add(t, s, "note", "x")
	for path, want := range map[string]os.FileMode{s.Dir(): 0o700, filepath.Join(s.Dir(), w.ID+".json"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

// A write added without a sync is a write like any other: private, whole,
// and applied in its turn among the synced ones.
func TestAddUnsyncedIsAppliedInItsTurn(t *testing.T) {
	s := newSpool(t)
	add(t, s, "note", "first")
	w, err := s.AddUnsynced("note", "", "second")
	if err != nil {
		t.Fatal(err)
	}
	add(t, s, "note", "third")
	if fi, err := os.Stat(filepath.Join(s.Dir(), w.ID+".json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the unsynced write's file: %v, %v; want mode 0600", fi, err)
	}
	var got []string
	if res, err := s.Drain(context.Background(), collect(&got), Budget{}); err != nil || res != (Result{Applied: 3}) {
		t.Fatalf("Drain = %+v, %v; want 3 applied", res, err)
	}
	if strings.Join(got, ",") != "first,second,third" {
		t.Fatalf("applied %v, want first,second,third", got)
	}
}

func TestDrainIgnoresAPartialTempFile(t *testing.T) {
	s := newSpool(t)
	add(t, s, "note", "whole")
	// A writer that died mid-write leaves its temporary file, truncated.
	partial := filepath.Join(s.Dir(), tempPrefix+"123")
	if err := os.WriteFile(partial, []byte(`{"id": "0000`), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Pending(); n != 1 {
		t.Fatalf("Pending = %d, want 1: a temporary file is not a write", n)
	}
	var got []string
	res, err := s.Drain(context.Background(), collect(&got), Budget{})
	if err != nil || res != (Result{Applied: 1}) || len(got) != 1 || got[0] != "whole" {
		t.Fatalf("Drain = %+v, %v, applied %v; want only the whole write", res, err, got)
	}
	if _, err := os.Stat(partial); err != nil {
		t.Fatalf("a fresh temporary file may still be being written; it must be left alone: %v", err)
	}

	// An old one was left by a writer that died: it goes.
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(partial, old, old)
	add(t, s, "note", "next")
	if _, err := s.Drain(context.Background(), collect(&got), Budget{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(partial); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a temporary file two hours old should be removed: %v", err)
	}
}

func TestDrainMovesABadFileAsideAndGoesOn(t *testing.T) {
	s := newSpool(t)
	add(t, s, "note", "before")
	bad := add(t, s, "note", "placeholder")
	if err := os.WriteFile(filepath.Join(s.Dir(), bad.ID+".json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := add(t, s, "note", "refused")
	add(t, s, "note", "after")

	var got []string
	apply := func(ctx context.Context, w Write) error {
		if w.ID == refused.ID {
			return errors.New("title is empty")
		}
		return collect(&got)(ctx, w)
	}
	res, err := s.Drain(context.Background(), apply, Budget{})
	if err != nil || res != (Result{Applied: 2, Failed: 2}) {
		t.Fatalf("Drain = %+v, %v; want 2 applied and 2 moved aside", res, err)
	}
	if strings.Join(got, ",") != "before,after" {
		t.Fatalf("applied %v, want before and after", got)
	}
	if n, err := s.Failed(); err != nil || n != 2 {
		t.Fatalf("Failed = %d, %v; want 2", n, err)
	}
	reason, err := os.ReadFile(filepath.Join(s.Dir(), failedDir, refused.ID+".reason"))
	if err != nil || !strings.Contains(string(reason), "title is empty") {
		t.Fatalf("the reason beside the refused write: %q, %v", reason, err)
	}
	// Moved aside, never retried.
	res, err = s.Drain(context.Background(), apply, Budget{})
	if err != nil || res != (Result{}) {
		t.Fatalf("second Drain = %+v, %v; want nothing to do", res, err)
	}
}

func TestDrainStopsAtLaterAndKeepsTheRestInOrder(t *testing.T) {
	s := newSpool(t)
	for _, v := range []string{"a", "b", "c"} {
		add(t, s, "note", v)
	}
	busy := true
	var got []string
	apply := func(ctx context.Context, w Write) error {
		var v string
		json.Unmarshal(w.Data, &v)
		if v == "b" && busy {
			return Later(errors.New("database is locked"))
		}
		return collect(&got)(ctx, w)
	}
	res, err := s.Drain(context.Background(), apply, Budget{})
	if !IsLater(err) || res != (Result{Applied: 1, Left: 2}) {
		t.Fatalf("Drain = %+v, %v; want a applied, b and c left, and the busy error", res, err)
	}
	busy = false
	res, err = s.Drain(context.Background(), apply, Budget{})
	if err != nil || res != (Result{Applied: 2}) || strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("Drain = %+v, %v, applied %v; want a, b, c in order", res, err, got)
	}
}

func TestDrainKeepsToItsBudget(t *testing.T) {
	s := newSpool(t)
	for range 5 {
		add(t, s, "note", "x")
	}
	var got []string
	res, err := s.Drain(context.Background(), collect(&got), Budget{Files: 2})
	if err != nil || res != (Result{Applied: 2, Left: 3}) {
		t.Fatalf("Drain = %+v, %v; want 2 applied, 3 left", res, err)
	}
	slow := func(ctx context.Context, w Write) error { time.Sleep(20 * time.Millisecond); return nil }
	res, err = s.Drain(context.Background(), slow, Budget{Time: time.Millisecond})
	if err != nil || res.Applied != 1 || res.Left != 2 {
		t.Fatalf("Drain = %+v, %v; want one applied before the time ran out", res, err)
	}
}

func TestIDsSortByTimeWithinAProcess(t *testing.T) {
	s := newSpool(t)
	at := time.Now()
	a, b := s.nextID(at), s.nextID(at) // the same clock reading twice
	if !(a < b) {
		t.Fatalf("ids %q then %q do not increase", a, b)
	}
	if later := s.nextID(at.Add(time.Hour)); !(b < later) {
		t.Fatalf("id %q of an hour later sorts before %q", later, b)
	}
}

func TestAnEmptySpoolCostsNothing(t *testing.T) {
	s := newSpool(t)
	if n, err := s.Pending(); err != nil || n != 0 {
		t.Fatalf("Pending of a spool never written = %d, %v", n, err)
	}
	res, err := s.Drain(context.Background(), func(context.Context, Write) error { t.Fatal("nothing to apply"); return nil }, Budget{})
	if err != nil || res != (Result{}) {
		t.Fatalf("Drain = %+v, %v", res, err)
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reading the spool must not create its directory: %v", err)
	}
}

// A batched drain commits several writes at once; a batch holding a write
// that cannot be applied (or a file that does not decode) is applied again
// one write at a time, so that only that write is moved aside, in order; a
// batch the database cannot take now stops the drain with the rest kept.
func TestDrainBatchedAppliesManyAtOnceAndABadOneAlone(t *testing.T) {
	s := newSpool(t)
	var all []string
	for i := range 7 {
		v := fmt.Sprintf("w%d", i)
		add(t, s, "note", v)
		all = append(all, v)
	}
	refused := add(t, s, "note", "refused")
	bad := add(t, s, "note", "placeholder")
	if err := os.WriteFile(filepath.Join(s.Dir(), bad.ID+".json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	add(t, s, "note", "after")

	var got []string
	var batches []int
	batch := func(ctx context.Context, ws []Write) error {
		for _, w := range ws {
			if w.ID == refused.ID {
				return errors.New("title is empty")
			}
		}
		batches = append(batches, len(ws))
		for _, w := range ws {
			collect(&got)(ctx, w)
		}
		return nil
	}
	one := func(ctx context.Context, w Write) error {
		if w.ID == refused.ID {
			return errors.New("title is empty")
		}
		return collect(&got)(ctx, w)
	}
	res, err := s.DrainBatched(context.Background(), batch, one, Budget{}, 4)
	if err != nil || res != (Result{Applied: 8, Failed: 2}) {
		t.Fatalf("DrainBatched = %+v, %v; want 8 applied, 2 moved aside", res, err)
	}
	if want := strings.Join(append(all, "after"), ","); strings.Join(got, ",") != want {
		t.Fatalf("applied %v, want %s", got, want)
	}
	if len(batches) != 1 || batches[0] != 4 {
		t.Fatalf("batches applied whole: %v, want the first four together", batches)
	}
	if n, _ := s.Pending(); n != 0 {
		t.Fatalf("%d writes left", n)
	}

	for i := range 3 {
		add(t, s, "note", fmt.Sprintf("late%d", i))
	}
	busy := func(context.Context, []Write) error { return Later(errors.New("database is locked")) }
	res, err = s.DrainBatched(context.Background(), busy, one, Budget{}, 4)
	if !IsLater(err) || res != (Result{Left: 3}) {
		t.Fatalf("DrainBatched behind a lock = %+v, %v; want all 3 left", res, err)
	}
}
