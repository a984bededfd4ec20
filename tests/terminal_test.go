package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// These tests drive recall in a real terminal: a shell in a tmux pane, keys
// sent with send-keys, the screen read with capture-pane. They are what a
// person sees: completion in bash and zsh, $EDITOR, the pager, colours.

// terminal is a shell running in a detached tmux session of its own server.
type terminal struct {
	t      *testing.T
	socket string
}

// newTerminal starts shell (its argv) in a 160x40 pane, with the cliEnv's
// variables and recall's directory first on PATH.
func newTerminal(t *testing.T, c *cliEnv, extra map[string]string, shell ...string) *terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	if _, err := exec.LookPath(shell[0]); err != nil {
		t.Skipf("%s not installed", shell[0])
	}
	term := &terminal{t: t, socket: filepath.Join(c.dir, "tmux-"+shell[0]+".sock")}
	env := []string{"env", "-i",
		"PATH=" + filepath.Dir(recallBin) + ":" + os.Getenv("PATH"),
		"HOME=" + c.dir, "TERM=xterm-256color", "LANG=C.UTF-8", "PS1=ready> ", "PROMPT=ready> ", "LESS=", "PAGER=less", "HISTFILE=/dev/null", "LESSHISTFILE=-"}
	for k, v := range c.vars {
		env = append(env, k+"="+v)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	args := append([]string{"-S", term.socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "40", "-c", c.dir}, append(env, shell...)...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", term.socket, "kill-server").Run() })
	term.waitFor("ready>", 10*time.Second)
	return term
}

// send types keys (tmux key names such as Enter, Tab, Escape, or text).
func (term *terminal) send(keys ...string) {
	term.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", term.socket, "send-keys", "-t", "0"}, keys...)...).CombinedOutput(); err != nil {
		term.t.Fatalf("send-keys %q: %v\n%s", keys, err, out)
	}
}

// line types text and presses Enter.
func (term *terminal) line(text string) {
	term.t.Helper()
	term.send("-l", text)
	term.send("Enter")
}

// screen is what the pane shows; with escapes, its colours too.
func (term *terminal) screen(escapes bool) string {
	term.t.Helper()
	args := []string{"-S", term.socket, "capture-pane", "-p", "-t", "0"}
	if escapes {
		args = append(args, "-e")
	}
	out, err := exec.Command("tmux", args...).Output()
	if err != nil {
		term.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// waitFor waits until the screen shows want and returns it.
func (term *terminal) waitFor(want string, limit time.Duration) string {
	term.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		s := term.screen(false)
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clear empties the screen, so that the next waitFor sees only new output.
func (term *terminal) clear() {
	term.t.Helper()
	term.line("clear")
	time.Sleep(100 * time.Millisecond)
	exec.Command("tmux", "-S", term.socket, "clear-history", "-t", "0").Run()
}

func TestCompletionInBashAndZsh(t *testing.T) {
	c := newCLIEnv(t)
	id := c.store("Deploys MUST go through the staging cluster first", "--type", "decision", "--namespace", "project:shop")
	for _, shell := range [][]string{
		{"bash", "--norc", "--noprofile"},
		{"zsh", "-f"},
	} {
		t.Run(shell[0], func(t *testing.T) {
			term := newTerminal(t, c, nil, shell...)
			switch shell[0] {
			case "zsh":
				term.line("autoload -U compinit && compinit -u")
			case "bash":
				// recall's bash completion needs the bash-completion package, as
				// cobra's scripts do; distributions install it with bash.
				const lib = "/usr/share/bash-completion/bash_completion"
				if _, err := os.Stat(lib); err != nil {
					t.Skip("the bash-completion package is not installed")
				}
				term.line("source " + lib)
			}
			term.line("source <(recall completion " + shell[0] + ") && echo loaded")
			term.waitFor("loaded", 10*time.Second)
			term.clear()

			term.send("-l", "recall sho")
			term.send("Tab")
			term.waitFor("recall show", 10*time.Second)
			// The only memory's id is the only choice: it is typed in.
			term.send("Tab")
			term.waitFor("recall show "+id, 10*time.Second)
			term.send("C-u")
			term.clear()

			term.send("-l", "recall list --names")
			term.send("Tab")
			term.waitFor("recall list --namespace", 10*time.Second)
			term.send("-l", "project:s")
			term.send("Tab")
			term.waitFor("recall list --namespace project:shop", 10*time.Second)
			term.send("C-u")
			term.clear()

			term.send("-l", "recall list --type go")
			term.send("Tab")
			term.waitFor("recall list --type golden_rule", 10*time.Second)
			term.send("C-u")
		})
	}
}

func TestEditorRoundTripInATerminal(t *testing.T) {
	if _, err := exec.LookPath("vi"); err != nil {
		t.Skip("vi not installed")
	}
	c := newCLIEnv(t)
	id := c.store("Deploys MUST go through the staging cluster first", "--type", "decision")
	term := newTerminal(t, c, map[string]string{"EDITOR": "vi -u NONE -i NONE -N"}, "bash", "--norc", "--noprofile")

	// recall edit opens the memory in vi: change the importance, add a line.
	term.line("recall edit " + id)
	term.waitFor("importance: 0.5", 10*time.Second)
	term.send("-l", "/^importance")
	term.send("Enter")
	term.send("-l", "Cimportance: 0.9")
	term.send("Escape")
	term.send("-l", "Go")
	term.send("-l", "Staging runs the smoke tests.")
	term.send("Escape")
	term.send("-l", ":wq")
	term.send("Enter")
	term.waitFor("changed content, importance of "+id, 10*time.Second)

	show := c.ok("show", "--json", id)
	if !strings.Contains(show, `"importance": 0.9`) || !strings.Contains(show, `first\nStaging runs the smoke tests.`) || !strings.Contains(show, `"source": "cli"`) {
		t.Errorf("after the edit, show --json:\n%s", show)
	}

	// A bad value is refused and the text kept, not lost.
	term.clear()
	term.line("recall edit " + id)
	term.waitFor("importance: 0.9", 10*time.Second)
	term.send("-l", "/^importance")
	term.send("Enter")
	term.send("-l", "Cimportance: 7")
	term.send("Escape")
	term.send("-l", ":wq")
	term.send("Enter")
	screen := term.waitFor("your text is kept in", 10*time.Second)
	if !strings.Contains(screen, "accepted a number from 0 to 1") {
		t.Errorf("a bad importance should be refused saying what is accepted:\n%s", screen)
	}

	// recall add without text opens the editor on an empty memory.
	term.clear()
	term.line("recall add --type pattern --namespace global")
	term.waitFor("Write the memory below", 10*time.Second)
	term.send("-l", "Go")
	term.send("-l", "Table tests SHOULD name each case.")
	term.send("Escape")
	term.send("-l", ":wq")
	term.send("Enter")
	term.waitFor("(pattern, global)", 10*time.Second)
	if out := c.ok("search", "--json", "table tests name case"); !strings.Contains(out, `"content": "Table tests SHOULD name each case."`) {
		t.Errorf("the memory written in the editor was not stored whole:\n%s", out)
	}
}

func TestPagerAndColourInATerminal(t *testing.T) {
	if _, err := exec.LookPath("less"); err != nil {
		t.Skip("less not installed")
	}
	c := newCLIEnv(t)
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf(`{"record":"memory","id":"mem_17000000000%02d_0000abcd","content":"Paged memory number %02d","memory_type":"pattern","namespace":"global","importance":0.5,"confidence":0.3,"created_at":"2026-01-%02dT10:00:00Z"}`, i, i, 1+i%28))
	}
	file := filepath.Join(c.dir, "many.jsonl")
	header := `{"record":"header","format":"recall-export","version":1}`
	if err := os.WriteFile(file, []byte(header+"\n"+strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok("import", file)

	term := newTerminal(t, c, nil, "bash", "--norc", "--noprofile")
	// 60 rows do not fit 40 lines: less shows the first screen and waits.
	term.line("recall list --limit 60")
	term.waitFor("Paged memory number", 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	screen := term.screen(true)
	if strings.Contains(screen, "showing 1-60 of 60") {
		t.Errorf("the end of a long list is on the first screen: no pager?\n%s", screen)
	}
	if !strings.Contains(screen, "\x1b[36m") && !strings.Contains(screen, "\x1b[1m") {
		t.Errorf("no colour on a terminal:\n%q", screen)
	}
	term.send("q")
	term.clear()

	// Short output is printed as it is; NO_COLOR turns the colours off.
	term.line("NO_COLOR=1 recall list --limit 3")
	term.waitFor("showing 1-3 of 60", 10*time.Second)
	if screen := term.screen(true); strings.Contains(screen, "\x1b[36m") {
		t.Errorf("colours with NO_COLOR set:\n%q", screen)
	}
	// Through a pipe: no colour, no pager.
	if out := c.ok("list", "--limit", "60"); strings.Contains(out, "\x1b[") || !strings.Contains(out, "showing 1-60 of 60") {
		t.Errorf("list into a pipe should be plain and whole:\n%s", out)
	}
}
