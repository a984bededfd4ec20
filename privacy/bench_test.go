package privacy

import (
	"strings"
	"testing"
)

// observation is what a tool call typically leaves: a command, a path and some
// output, about 2 KB.
var observation = "Bash: go test -tags sqlite_fts5 ./storage/... in /src/shop-api\n" +
	strings.Repeat("ok  \tgithub.com/shop/api/storage\t0.412s\n--- PASS: TestOrdersCache (0.02s)\n", 20)

// BenchmarkScrubObservation is the cost per observation once the rules are read.
func BenchmarkScrubObservation(b *testing.B) {
	Scrub(observation)
	b.SetBytes(int64(len(observation)))
	for b.Loop() {
		Scrub(observation)
	}
}

// BenchmarkScrubObservationWithSecret is the same with a token and a .env line in it.
func BenchmarkScrubObservationWithSecret(b *testing.B) {
	text := observation + "export GITHUB_TOKEN=" + githubPAT + "\nDB_PASSWORD=hunter2hunter\n"
	Scrub(text)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Scrub(text)
	}
}

// BenchmarkFirstScrub is what a fresh hook process pays the first time:
// building the rules and compiling those the text wakes.
func BenchmarkFirstScrub(b *testing.B) {
	for b.Loop() {
		r := &redactor{stopWords: gitleaksStopWords, allowSrc: gitleaksAllowRegexes, rules: gitleaksRules()}
		r.rules = append(r.rules, freshOwnRules()...)
		r.Redact(observation)
	}
}

func freshOwnRules() []*rule {
	out := make([]*rule, len(ownRules))
	for i, r := range ownRules {
		out[i] = &rule{id: r.id, pattern: r.pattern, secretGroup: r.secretGroup, keywords: r.keywords, allowRegex: r.allowRegex}
	}
	return out
}
