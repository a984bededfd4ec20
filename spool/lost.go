package spool

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A write that neither the database nor the spool could take (a full disk, a
// read-only directory) is lost: the hook has to answer and exit. It must not
// be lost silently, so the loss itself is recorded, without the write's
// content: in the spool's directory when that takes it, else in a directory
// of the user's own under the system's temporary directory (often another
// file system). Stats, doctor and the next session's start read it.

// Lost is one write that could be kept nowhere.
type Lost struct {
	At    time.Time `json:"at"`
	Kind  string    `json:"kind"`
	Cause string    `json:"cause"`
}

const (
	lostFile     = "lost.jsonl"
	reportedFile = "reported" // when the last session start told of losses
	maxLostBytes = 1 << 20    // a record that grows past this keeps its newest half
)

// lostPlaces are where the record of lost writes may be, in the order tried.
func (s *Spool) lostPlaces() []string {
	sum := sha256.Sum256([]byte(s.dir))
	own := filepath.Join(os.TempDir(), "recall-"+strconv.Itoa(os.Getuid()), hex.EncodeToString(sum[:8]))
	return []string{s.dir, own}
}

// RecordLost records that a write of kind was lost, and why. It returns an
// error only when no place took the record either.
func (s *Spool) RecordLost(kind, cause string) error {
	line, err := json.Marshal(Lost{At: time.Now().UTC(), Kind: kind, Cause: cause})
	if err != nil {
		return err
	}
	var errs []error
	for _, dir := range s.lostPlaces() {
		err := appendLine(dir, lostFile, line)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("record a lost %s write: %w", kind, errors.Join(errs...))
}

// appendLine appends one line to dir/name, creating both for the owner alone.
// A directory of another owner, or open to others, is not written to (it may
// be planted in a shared temporary directory).
func appendLine(dir, name string, line []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := ownDir(dir); err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLostBytes {
		trimHalf(path)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	return errors.Join(werr, cerr)
}

// ownDir refuses a directory of another user's, and in the shared temporary
// directory one that others may write to.
func ownDir(dir string) error {
	for d := dir; strings.HasPrefix(d, os.TempDir()+string(filepath.Separator)); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%s is not the user's own directory", d)
		}
	}
	return nil
}

// trimHalf keeps the newer half of a record's lines.
func trimHalf(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	lines := strings.SplitAfter(string(b), "\n")
	_ = os.WriteFile(path, []byte(strings.Join(lines[len(lines)/2:], "")), 0o600)
}

// LostWrites returns the lost writes recorded in every place, oldest first.
func (s *Spool) LostWrites() ([]Lost, error) {
	var out []Lost
	for _, dir := range s.lostPlaces() {
		f, err := os.Open(filepath.Join(dir, lostFile))
		if err != nil {
			continue // no record there, or not readable: the other place's
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var l Lost
			if json.Unmarshal(sc.Bytes(), &l) == nil && !l.At.IsZero() {
				out = append(out, l)
			}
		}
		f.Close()
	}
	slices.SortStableFunc(out, func(a, b Lost) int { return a.At.Compare(b.At) })
	return out, nil
}

// LostTally counts the lost writes recorded and says the last one ("" when
// none), as stats show them. An unreadable record counts none.
func (s *Spool) LostTally() (n int, last string) {
	lost, err := s.LostWrites()
	if err != nil || len(lost) == 0 {
		return 0, ""
	}
	l := lost[len(lost)-1]
	return len(lost), fmt.Sprintf("%s %s: %s", l.At.Format(time.RFC3339), l.Kind, l.Cause)
}

// LostRecords are the files that record lost writes, for a person to read
// and delete once the cause is fixed.
func (s *Spool) LostRecords() []string {
	var out []string
	for _, dir := range s.lostPlaces() {
		if _, err := os.Stat(filepath.Join(dir, lostFile)); err == nil {
			out = append(out, filepath.Join(dir, lostFile))
		}
	}
	return out
}

// Losses are what the spool could not keep or apply since a moment: writes
// lost, and spooled writes moved aside because they can never be applied.
type Losses struct {
	Lost     []Lost
	SetAside int
	Since    time.Time // zero: ever
}

// Unreported returns the losses since the last MarkReported.
func (s *Spool) Unreported() (Losses, error) {
	since := s.reported()
	l := Losses{Since: since}
	lost, err := s.LostWrites()
	if err != nil {
		return l, err
	}
	for _, w := range lost {
		if w.At.After(since) {
			l.Lost = append(l.Lost, w)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(s.dir, failedDir)) // none, or no spool to read: nothing set aside to tell
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), fileExt) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(since) {
			l.SetAside++
		}
	}
	return l, nil
}

// MarkReported records that the losses until at were told (best effort:
// where nothing can be written, they are told again).
func (s *Spool) MarkReported(at time.Time) {
	for _, dir := range s.lostPlaces() {
		if os.MkdirAll(dir, 0o700) == nil && ownDir(dir) == nil &&
			os.WriteFile(filepath.Join(dir, reportedFile), []byte(at.UTC().Format(time.RFC3339Nano)), 0o600) == nil {
			return
		}
	}
}

// reported is the latest moment any place says losses were told until.
func (s *Spool) reported() time.Time {
	var t time.Time
	for _, dir := range s.lostPlaces() {
		b, err := os.ReadFile(filepath.Join(dir, reportedFile))
		if err != nil {
			continue
		}
		if at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b))); err == nil && at.After(t) {
			t = at
		}
	}
	return t
}
