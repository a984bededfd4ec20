package spool

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A write kept nowhere is recorded where a record can still go: the spool's
// directory, else the user's own temporary directory; told once at a
// session start, counted until the record is deleted.
func TestLostWritesAreRecordedAndToldOnce(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	base := t.TempDir()
	s := New(filepath.Join(base, "recall.db.spool"), nil)
	if err := s.RecordLost("tool_call", "the disk is full"); err != nil {
		t.Fatal(err)
	}
	// The database's directory turns read-only: the record goes elsewhere.
	if err := os.Chmod(s.Dir(), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(s.Dir(), 0o700)
	if os.Getuid() == 0 {
		// root writes to read-only directories: make the spool's place a
		// file for a while.
		os.Chmod(s.Dir(), 0o700)
		os.Rename(s.Dir(), s.Dir()+".aside")
		os.WriteFile(s.Dir(), nil, 0o600)
	}
	if err := s.RecordLost("journal_entry", "the place is read-only"); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		os.Remove(s.Dir())
		os.Rename(s.Dir()+".aside", s.Dir())
	}
	if len(s.LostRecords()) != 2 {
		t.Fatalf("records %v: want the spool's and the temporary one", s.LostRecords())
	}
	lost, err := s.LostWrites()
	if err != nil || len(lost) < 2 || lost[len(lost)-1].Kind != "journal_entry" {
		t.Fatalf("lost writes %+v, %v", lost, err)
	}
	u, err := s.Unreported()
	if err != nil || len(u.Lost) != len(lost) {
		t.Fatalf("unreported %+v, %v", u, err)
	}
	s.MarkReported(time.Now())
	if u, _ := s.Unreported(); len(u.Lost) != 0 {
		t.Fatalf("told again after being told: %+v", u)
	}
	if err := s.RecordLost("session", "the place is read-only"); err != nil {
		t.Fatal(err)
	}
	if u, _ := s.Unreported(); len(u.Lost) != 1 || u.Lost[0].Kind != "session" {
		t.Fatalf("a new loss after the report: %+v", u)
	}
	if all, _ := s.LostWrites(); len(all) != len(lost)+1 {
		t.Fatalf("the record keeps every loss until deleted: %d", len(all))
	}
}
