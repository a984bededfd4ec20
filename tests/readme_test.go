package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README's Contents lists every section, by the anchor GitHub makes of its
// heading, and every file README links to exists: a section added or renamed
// without its line, or a page moved under docs/, fails here.
func TestReadmeContentsAndLinks(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	start, end := strings.Index(text, "## Contents\n"), strings.Index(text, "\n## Set up\n")
	if start < 0 || end < start {
		t.Fatal("README has no Contents section before Set up")
	}
	contents := text[start:end]
	anchor := func(heading string) string {
		a := strings.ToLower(heading)
		a = regexp.MustCompile(`[^a-z0-9 _-]`).ReplaceAllString(a, "")
		return strings.ReplaceAll(a, " ", "-")
	}
	for _, m := range regexp.MustCompile(`(?m)^## (.+)$`).FindAllStringSubmatch(text, -1) {
		if m[1] == "Contents" {
			continue
		}
		if link := "](#" + anchor(m[1]) + ")"; !strings.Contains(contents, link) {
			t.Errorf("README's Contents lacks the section %q (a line with %s)", m[1], link)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("README links to %s, which is not in the repository", m[1])
		}
	}
}
