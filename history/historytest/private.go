// Package historytest holds the private transcript fixture that the history
// index and the tools over it are tested with: a Claude Code transcript with
// an AWS key, a GitHub token and a <private> section, none of which may reach
// the index or an answer.
package historytest

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture's secrets, built here so that no secret scanner mistakes the
// repository for a leak.
const (
	Session     = "c0ffee00-0000-4000-8000-00000000000a"
	AWSKey      = "AKIA" + "QZ3XW7PLM4RT6YHN"
	GitHubToken = "ghp_" + "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"
	PrivateWord = "zq7xkw"
)

//go:embed private.jsonl.tmpl
var template string

// WritePrivateTranscript writes the fixture (the AWS key in the first prompt,
// within the file's first 256 bytes; the GitHub token in a tool call and in a
// tool's output after filler; a <private> section) under root, in the project
// directory of /home/dev/vault, and returns its path.
func WritePrivateTranscript(t testing.TB, root, filler string) string {
	t.Helper()
	text := strings.NewReplacer("@AWS_KEY@", AWSKey, "@GITHUB_TOKEN@", GitHubToken, "@FILLER@", filler).Replace(template)
	path := filepath.Join(root, "-home-dev-vault", Session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Leaks names the fixture's secrets that s holds, in any case (the keyword
// index keeps words lower-case). extra adds words of a caller's own.
func Leaks(s string, extra ...string) []string {
	low := strings.ToLower(s)
	var out []string
	for _, secret := range append([]string{AWSKey[:16], GitHubToken[4:], PrivateWord, "passphrase"}, extra...) {
		if strings.Contains(low, strings.ToLower(secret)) {
			out = append(out, secret)
		}
	}
	return out
}
