package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recall-mcp/recall/internal/lines"
)

// Anchor says which message of a transcript a record comes from and roughly
// where it is, so that the message is found by reading near it instead of
// reading the transcript from its start (transcripts grow to hundreds of
// megabytes). One of UUID, ToolUseID, PromptID and Prompt names the message.
type Anchor struct {
	UUID      string // the message's uuid
	ToolUseID string // the assistant message holding the tool call with this id
	PromptID  string // the prompt with this promptId (Claude Code 2.1 and later)
	Prompt    bool   // the first prompt the user typed after Offset
	// Offset is the transcript's size when the record was taken (a hook
	// stats the file, it never reads it). Claude Code writes a tool call's
	// message before its PostToolUse hook runs, and a prompt after its
	// UserPromptSubmit hook: a tool call lies just before Offset, a prompt
	// just after it. 0 when unknown (or the file did not exist yet).
	Offset int64
}

func (a Anchor) String() string {
	switch {
	case a.UUID != "":
		return "message " + a.UUID
	case a.ToolUseID != "":
		return "tool call " + a.ToolUseID
	case a.PromptID != "":
		return "prompt " + a.PromptID
	}
	return fmt.Sprintf("the prompt after byte %d", a.Offset)
}

// anchorReach is how far from an anchor's offset, each way, its message is
// looked for, and how far before it the window's earlier messages are read.
// Past it the transcript was rewritten and the message is looked for from the
// file's start.
const anchorReach = 16 << 20

// chunkBytes is how much is read at a time when reading backwards.
const chunkBytes = 64 << 10

// AroundAnchor returns the message the anchor names with at most before
// messages before it and after messages after it, in file order, and the
// anchor's index among them. With an offset it reads the file near it only
// (a message not there is an error: it may be in a subagent's transcript, or
// the file was rewritten); without one, from the start.
func (rd Reader) AroundAnchor(path string, a Anchor, before, after int) (msgs []Message, anchor int, err error) {
	if a.UUID == "" && a.ToolUseID == "" && a.PromptID == "" && !a.Prompt {
		return nil, 0, errors.New("anchor names no message")
	}
	f, size, err := openTranscript(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	start, line, err := findAnchor(f, size, a)
	if err != nil {
		return nil, 0, fmt.Errorf("%s is not in %s: %w", a, path, err)
	}
	m, ok, perr := parseLine(bytes.TrimSpace(line), rd.Text)
	if perr != nil || !ok {
		return nil, 0, fmt.Errorf("%s in %s holds no message", a, path)
	}
	msgs, err = rd.messagesBefore(f, start, before)
	if err != nil {
		return nil, 0, err
	}
	anchor = len(msgs)
	msgs = append(msgs, m)
	if after > 0 {
		if _, err := f.Seek(start+int64(len(line)), io.SeekStart); err != nil {
			return nil, 0, err
		}
		errDone := errors.New("window complete")
		rd.deferClean = true
		_, _, err = rd.Read(f, start+int64(len(line)), func(m Message) error {
			msgs = append(msgs, m)
			if len(msgs)-1-anchor >= after {
				return errDone
			}
			return nil
		})
		if err != nil && !errors.Is(err, errDone) {
			return nil, 0, err
		}
	}
	for i := range msgs {
		msgs[i].finish()
	}
	return msgs, anchor, nil
}

// findAnchor returns the start offset of the anchor's line and the line (with
// its newline). A tool call or a message is looked for backwards from the
// offset, then forwards; a prompt forwards; no further than anchorReach. An
// anchor without an offset is looked for from the file's start.
func findAnchor(f *os.File, size int64, a Anchor) (int64, []byte, error) {
	match := anchorMatch(a)
	if a.Offset <= 0 {
		start, line, err := scanForward(f, 0, size, match)
		if err == nil && line == nil {
			err = errors.New("not found")
		}
		return start, line, err
	}
	off := min(a.Offset, size)
	prompt := a.UUID == "" && a.ToolUseID == ""
	if !prompt {
		start, line, err := scanBackward(f, off, max(off-anchorReach, 0), match)
		if err != nil || line != nil {
			return start, line, err
		}
	}
	start, line, err := scanForward(f, off, off+anchorReach, match)
	if err == nil && line == nil {
		err = fmt.Errorf("not within %d MB of byte %d, where it was captured", anchorReach>>20, a.Offset)
	}
	return start, line, err
}

// anchorMatch tells the anchor's line among a transcript's lines: a cheap
// byte test first, the record decoded only for lines that pass it.
func anchorMatch(a Anchor) func(line []byte) bool {
	switch {
	case a.UUID != "":
		id := []byte(`"` + a.UUID + `"`)
		return func(line []byte) bool {
			if !bytes.Contains(line, id) {
				return false
			}
			var r struct {
				UUID string `json:"uuid"`
			}
			return json.Unmarshal(line, &r) == nil && r.UUID == a.UUID
		}
	case a.ToolUseID != "":
		id := []byte(`"` + a.ToolUseID + `"`)
		return func(line []byte) bool {
			return bytes.Contains(line, id) && holdsToolUse(line, a.ToolUseID)
		}
	case a.PromptID != "":
		id := []byte(`"` + a.PromptID + `"`)
		return func(line []byte) bool {
			if !bytes.Contains(line, id) || PromptUUID(line) == "" {
				return false
			}
			var r struct {
				PromptID string `json:"promptId"`
			}
			return json.Unmarshal(line, &r) == nil && r.PromptID == a.PromptID
		}
	}
	return func(line []byte) bool { return PromptUUID(line) != "" }
}

// holdsToolUse reports whether a transcript line is an assistant message with
// the tool call id (not the user line carrying its result).
func holdsToolUse(line []byte, id string) bool {
	var r struct {
		Type    string `json:"type"`
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &r) != nil || r.Type != "assistant" || r.Message == nil {
		return false
	}
	var blocks []struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(r.Message.Content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.Type == "tool_use" && b.ID == id {
			return true
		}
	}
	return false
}

// scanForward looks for the first complete line starting at or after from
// (from itself, or the first line start after it) and before limit that
// matches. Nil line: none.
func scanForward(f *os.File, from, limit int64, match func([]byte) bool) (int64, []byte, error) {
	pos := from
	if from > 0 {
		// from may fall inside a line: skip to the next line start, unless
		// from is one already.
		prev := make([]byte, 1)
		if _, err := f.ReadAt(prev, from-1); err != nil {
			return 0, nil, err
		}
		if prev[0] != '\n' {
			next, err := nextLineStart(f, from)
			if err != nil || next < 0 {
				return 0, nil, err
			}
			pos = next
		}
	}
	var found []byte
	var at int64
	errFound := errors.New("found")
	err := eachLine(f, pos, func(start int64, line []byte) error {
		if start >= limit {
			return io.EOF
		}
		if match(line) {
			found, at = append([]byte(nil), line...), start
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) && !errors.Is(err, io.EOF) {
		return 0, nil, err
	}
	return at, found, nil
}

// nextLineStart is the offset just past the next newline at or after from; -1
// when there is none.
func nextLineStart(f *os.File, from int64) (int64, error) {
	buf := make([]byte, chunkBytes)
	for pos := from; ; {
		n, err := f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		if err == io.EOF {
			return -1, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// eachLine calls fn with each complete line from offset pos on (with its
// newline) and the line's start offset, until fn returns an error. Lines
// longer than maxLineBytes are skipped; a last line without its newline is
// being written and is not read.
func eachLine(f *os.File, pos int64, fn func(start int64, line []byte) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(f, pos, 1<<62), 256<<10)
	for {
		line, tooLong, n, err := lines.Read(br, maxLineBytes)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !tooLong {
			if err := fn(pos, line); err != nil {
				return err
			}
		}
		pos += int64(n)
	}
}

// scanBackward looks for the last complete line ending at or before end and
// starting at or after limit that matches, reading backwards. Nil line: none.
func scanBackward(f *os.File, end, limit int64, match func([]byte) bool) (int64, []byte, error) {
	var found []byte
	var at int64
	errFound := errors.New("found")
	err := eachLineBackward(f, end, limit, func(start int64, line []byte) error {
		if match(line) {
			found, at = append([]byte(nil), line...), start
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return 0, nil, err
	}
	return at, found, nil
}

// eachLineBackward calls fn with the complete lines that end at or before end,
// last first, with their start offsets, down to the line that starts at or
// after limit. Bytes before end after its last newline are a line being
// written: skipped. Lines longer than maxLineBytes are skipped.
func eachLineBackward(f *os.File, end, limit int64, fn func(start int64, line []byte) error) error {
	var tail []byte // the bytes after the last newline seen: part of a line not yet whole
	partial := true // tail is not a line's end: drop bytes until a newline
	pos := end
	for pos > limit {
		n := min(max(int64(chunkBytes), int64(len(tail))), pos-limit) // doubling: long lines cost linear time
		buf := make([]byte, n, n+int64(len(tail)))
		if _, err := f.ReadAt(buf, pos-n); err != nil && err != io.EOF {
			return err
		}
		pos -= n
		buf = append(buf, tail...)
		if partial {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				tail = nil
				continue
			}
			buf, partial = buf[:i+1], false
		}
		for {
			// buf ends with a newline: its last line starts after the
			// newline before that one.
			i := bytes.LastIndexByte(buf[:len(buf)-1], '\n')
			if i < 0 {
				break
			}
			if err := fn(pos+int64(i)+1, buf[i+1:]); err != nil {
				return err
			}
			buf = buf[:i+1]
		}
		tail = buf
		if len(tail) > maxLineBytes {
			tail, partial = nil, true
		}
	}
	if pos == 0 && !partial && len(tail) > 0 {
		return fn(0, tail)
	}
	return nil
}

// messagesBefore returns at most n messages whose lines end at or before
// offset end, in file order, reading backwards no further than anchorReach.
func (rd Reader) messagesBefore(f *os.File, end int64, n int) ([]Message, error) {
	if n <= 0 || end == 0 {
		return nil, nil
	}
	var rev []Message
	errDone := errors.New("enough")
	err := eachLineBackward(f, end, max(end-anchorReach, 0), func(_ int64, line []byte) error {
		m, ok, err := parseLine(bytes.TrimSpace(line), rd.Text)
		if err != nil || !ok {
			return nil
		}
		rev = append(rev, m)
		if len(rev) == n {
			return errDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDone) {
		return nil, err
	}
	out := make([]Message, len(rev))
	for i, m := range rev {
		out[len(rev)-1-i] = m
	}
	return out, nil
}
