// Package lines reads newline-delimited input one bounded line at a time: a
// line longer than the bound is skipped whole, never held in memory, and the
// reader goes on with the next one. The MCP stdio transport and the
// transcript reader both read this way.
package lines

import (
	"bufio"
	"errors"
)

// Read reads through the next newline of br. It returns the line with its
// newline (nil when it is longer than max, whose rest is read and dropped),
// whether it was too long, the bytes consumed, and the read's error: io.EOF
// when the input ended before a newline, with what came before it in line.
//
// line may share br's buffer: it is valid until the next read; copy it to
// keep it.
func Read(br *bufio.Reader, max int) (line []byte, tooLong bool, n int, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		full := errors.Is(err, bufio.ErrBufferFull)
		if !tooLong {
			switch {
			case len(buf)+len(chunk) > max:
				tooLong, buf = true, nil
			case buf == nil && !full:
				return chunk, false, n, err // the common case: no copy
			default:
				buf = append(buf, chunk...)
			}
		}
		if !full {
			return buf, tooLong, n, err
		}
	}
}
