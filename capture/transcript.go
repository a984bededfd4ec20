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

// promptSlack is how far before an anchor a prompt's line is looked for:
// Claude Code before 2.1 wrote the prompt before UserPromptSubmit ran, so its
// line ends where the hook found the transcript's end.
const promptSlack = 64 << 10

// LastUserTurn returns the uuid of the last prompt the user typed in a Claude
// Code transcript (JSONL), read from the file's end; "" when there is none in
// reach or the file cannot be read. Tool results, which Claude Code also writes
// as user lines, are not turns.
func LastUserTurn(path string) string {
	return lastUserTurnBefore(path, -1)
}

// lastUserTurnBefore is LastUserTurn of the transcript's first size bytes
// (below zero: all of it).
func lastUserTurnBefore(path string, size int64) string {
	if now := TranscriptSize(path); size < 0 || size > now {
		size = now
	}
	return last(promptsIn(path, max(size-tailBytes, 0), size))
}

// turnNear returns the uuid of the prompt recorded with the transcript at
// offset bytes (a prompt entry's anchor), reading only around it: Claude
// Code 2.1 writes the prompt's line after the hook, the first prompt past
// offset, and older versions before it, the last one ending at offset. At
// most tailBytes are read past offset, and promptSlack before it. The prompt
// past offset is looked for only before before, when that is past offset
// (below zero: to the transcript's end): an event's turn is not a prompt
// written after the event.
func turnNear(path string, offset, before int64) string {
	size := TranscriptSize(path)
	offset = min(max(offset, 0), size)
	end := min(size, offset+tailBytes)
	if before > offset {
		end = min(end, before)
	}
	if after := promptsIn(path, offset, end); len(after) > 0 {
		return after[0]
	}
	return last(promptsIn(path, max(offset-promptSlack, 0), offset))
}

func last(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}

// promptsIn are the uuids of the prompt lines within [from, to) of the
// transcript at path, in order; none when it cannot be read. A line cut by
// from or to does not decode, and so is no prompt.
func promptsIn(path string, from, to int64) []string {
	if path == "" || to <= from {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return nil
	}
	var ids []string
	for _, line := range bytes.Split(buf, []byte("\n")) {
		if id := history.PromptUUID(line); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
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
