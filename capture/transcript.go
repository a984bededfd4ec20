package capture

import (
	"bytes"
	"io"
	"os"

	"github.com/recall-mcp/recall/history"
)

// tailBytes is how much of a transcript's end LastUserTurn reads: a hook must
// not read a transcript of many megabytes to find its last turn.
const tailBytes = 256 << 10

// LastUserTurn returns the uuid of the last prompt the user typed in a Claude
// Code transcript (JSONL), read from the file's end; "" when there is none in
// reach or the file cannot be read. Tool results, which Claude Code also writes
// as user lines, are not turns.
func LastUserTurn(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return ""
	}
	start := max(size-tailBytes, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if id := history.PromptUUID(lines[i]); id != "" {
			return id
		}
	}
	return ""
}

// TranscriptSize is a transcript's size now (0 when it does not exist yet):
// where a hook's entry is anchored. Claude Code has written a tool call's
// message when PostToolUse runs, and writes a prompt after UserPromptSubmit,
// so the entry's message is found next to this offset without reading the
// file (history.Anchor). A stat, never a read: hooks run on every tool call.
func TranscriptSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
