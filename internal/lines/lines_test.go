package lines

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadBoundsLinesAndGoesOn(t *testing.T) {
	long := strings.Repeat("x", 100)
	in := "short\n" + long + "\n" + strings.Repeat("y", 40) + "\nhalf"
	br := bufio.NewReaderSize(strings.NewReader(in), 16) // lines span several buffers
	type read struct {
		line    string
		tooLong bool
		n       int
		eof     bool
	}
	want := []read{
		{"short\n", false, 6, false},
		{"", true, 101, false},
		{strings.Repeat("y", 40) + "\n", false, 41, false},
		{"half", false, 4, true},
	}
	for i, w := range want {
		line, tooLong, n, err := Read(br, 50)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		got := read{string(line), tooLong, n, errors.Is(err, io.EOF)}
		if got != w {
			t.Errorf("read %d = %+v, want %+v", i, got, w)
		}
	}
}
