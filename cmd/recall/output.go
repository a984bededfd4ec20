package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// How the human commands print: tables cut to the terminal's width, colour
// only on a terminal and never with NO_COLOR, long output through a pager on
// a terminal. Scripts get the same data whole with --json.

// terminal returns the file descriptor of w (stdin, stdout or stderr) when
// it is a terminal; ok is false for a pipe, a file or /dev/null.
func terminal(w any) (fd int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

// isTerminal reports whether w (stdin, stdout or stderr) is a terminal.
func isTerminal(w any) bool {
	_, ok := terminal(w)
	return ok
}

// defaultWidth is the width of tables written to a pipe or a file.
const defaultWidth = 120

// termWidth is the width tables are cut to: the terminal's, else $COLUMNS,
// else defaultWidth.
func termWidth(w io.Writer) int {
	if fd, ok := terminal(w); ok {
		if width, _, err := term.GetSize(fd); err == nil && width > 20 {
			return width
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return defaultWidth
}

// colour says whether to colour what goes to w: a terminal, NO_COLOR unset
// (https://no-color.org) and TERM not dumb.
func colour(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// style paints text with an SGR code when on.
type style bool

func (s style) paint(code, text string) string {
	if !s || text == "" {
		return text
	}
	return "\033[" + code + "m" + text + "\033[0m"
}

func (s style) bold(t string) string   { return s.paint("1", t) }
func (s style) dim(t string) string    { return s.paint("2", t) }
func (s style) green(t string) string  { return s.paint("32", t) }
func (s style) yellow(t string) string { return s.paint("33", t) }
func (s style) red(t string) string    { return s.paint("31", t) }
func (s style) cyan(t string) string   { return s.paint("36", t) }

// cut shortens s to at most n columns (runes), ending it with … when cut,
// and makes it one line.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// pad fills s with spaces to n columns.
func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// table writes rows in columns; the last column takes what is left of the
// width and is cut to it. Colours apply after cutting, by column.
type table struct {
	header []string
	rows   [][]string
	paint  []func(string) string // per column, nil for none
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer, width int, st style) {
	n := len(t.header)
	widths := make([]int, n)
	for i, h := range t.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i := 0; i < n-1; i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	used := 0
	for i := 0; i < n-1; i++ {
		used += widths[i] + 2
	}
	last := max(width-used, 30)
	line := func(cells []string, head bool) {
		var b strings.Builder
		for i, c := range cells {
			if i == n-1 {
				c = cut(c, last)
			} else {
				c = pad(c, widths[i]+2)
			}
			switch {
			case head:
				c = st.bold(c)
			case i < len(t.paint) && t.paint[i] != nil:
				c = t.paint[i](c)
			}
			b.WriteString(c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.header, true)
	for _, r := range t.rows {
		line(r, false)
	}
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// paged collects a command's output and, on a terminal, shows it through
// $PAGER (less -FRX by default: it quits at once when the text fits) when it
// is longer than the screen. Elsewhere it is written as it is.
type paged struct {
	out io.Writer
	buf bytes.Buffer
}

func page(out io.Writer) *paged { return &paged{out: out} }

func (p *paged) Write(b []byte) (int, error) { return p.buf.Write(b) }

// flush writes what was collected, through the pager when it is needed.
func (p *paged) flush() error {
	fd, ok := terminal(p.out)
	if !ok {
		_, err := p.out.Write(p.buf.Bytes())
		return err
	}
	_, height, err := term.GetSize(fd)
	if err != nil || bytes.Count(p.buf.Bytes(), []byte("\n")) < height-1 {
		_, err := p.out.Write(p.buf.Bytes())
		return err
	}
	pager := strings.TrimSpace(os.Getenv("RECALL_PAGER"))
	if pager == "" {
		pager = strings.TrimSpace(os.Getenv("PAGER"))
	}
	if pager == "" {
		pager = "less"
	}
	if pager == "cat" {
		_, err := p.out.Write(p.buf.Bytes())
		return err
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Env = os.Environ()
	if os.Getenv("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX") // quit if one screen, keep colours, leave the text on screen
	}
	cmd.Stdin = bytes.NewReader(p.buf.Bytes())
	cmd.Stdout, cmd.Stderr = p.out, os.Stderr
	if err := cmd.Run(); err != nil {
		if _, isExit := err.(*exec.ExitError); isExit {
			return nil // the reader quit the pager
		}
		// No pager to be found: the text itself is better than an error.
		_, err := p.out.Write(p.buf.Bytes())
		return err
	}
	return nil
}
