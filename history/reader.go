package history

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recall-mcp/recall/internal/lines"
)

// maxLineBytes bounds one transcript line held in memory. Longer lines (a
// tool result holding a whole file, say) are skipped and counted.
const maxLineBytes = 16 << 20

// ReadStats count what a read met.
type ReadStats struct {
	Lines     int // complete lines read
	Messages  int // messages emitted
	Malformed int // lines that were not a transcript record, or too long
}

// Reader reads transcripts. The zero value indexes what people and the model
// wrote, tool calls and trimmed tool output, <private> sections and secrets
// taken out (see ExtractText).
type Reader struct {
	Text TextOptions

	// deferClean leaves emitted messages' text to be made safe by the caller
	// (Message.finish), which keeps only some of them.
	deferClean bool
}

// Read emits the messages of the complete lines of r, which starts at byte
// offset start of its file, and returns the offset just past the last
// complete line. A last line without its newline is being written: it is
// left for the next read. Malformed lines are skipped and counted.
func (rd Reader) Read(r io.Reader, start int64, emit func(Message) error) (end int64, stats ReadStats, err error) {
	br := bufio.NewReaderSize(r, 256<<10)
	end = start
	for {
		line, tooLong, n, err := lines.Read(br, maxLineBytes)
		if errors.Is(err, io.EOF) {
			return end, stats, nil // n bytes without a newline: half-written
		}
		if err != nil {
			return end, stats, err
		}
		end += int64(n)
		stats.Lines++
		if tooLong {
			stats.Malformed++
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		m, ok, perr := parseLine(line, rd.Text)
		if perr != nil {
			stats.Malformed++
			continue
		}
		if !ok {
			continue
		}
		stats.Messages++
		if !rd.deferClean {
			m.finish()
		}
		if err := emit(m); err != nil {
			return end, stats, err
		}
	}
}

// ReadFile reads every message of a transcript file.
func (rd Reader) ReadFile(path string) ([]Message, ReadStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ReadStats{}, err
	}
	defer f.Close()
	var out []Message
	_, stats, err := rd.Read(f, 0, func(m Message) error { out = append(out, m); return nil })
	return out, stats, err
}

// Around reads the transcript at path and returns the message with the given
// uuid with at most before messages before it and after messages after it,
// in file order, reading the file once and holding no more than the window.
// The anchor's index in the result is returned too.
func (rd Reader) Around(path, uuid string, before, after int) (msgs []Message, anchor int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	anchor = -1
	errDone := errors.New("window complete")
	rd.deferClean = true // only the window is made safe to keep, below
	_, _, err = rd.Read(f, 0, func(m Message) error {
		switch {
		case anchor < 0 && m.UUID == uuid:
			anchor = len(msgs)
			msgs = append(msgs, m)
		case anchor < 0:
			msgs = append(msgs, m)
			if len(msgs) > before {
				msgs = msgs[1:]
			}
		default:
			msgs = append(msgs, m)
		}
		if anchor >= 0 && len(msgs)-1-anchor >= after {
			return errDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDone) {
		return nil, 0, err
	}
	if anchor < 0 {
		return nil, 0, fmt.Errorf("message %q is not in %s", uuid, path)
	}
	for i := range msgs {
		msgs[i].finish()
	}
	return msgs, anchor, nil
}

// openTranscript opens a transcript and tells its size, for a read that
// seeks in it.
func openTranscript(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
