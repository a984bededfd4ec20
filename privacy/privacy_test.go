package privacy

import (
	"strings"
	"testing"
)

// Sample secrets are assembled from parts so that this file itself does not
// look like it leaks one.
var (
	githubPAT  = "ghp_" + "R4nd0mT0k3nVa1u3Xq9Zp2Lm8Kd7Wv5Bn3Jh6Yt1"
	awsKeyID   = "AKIA" + "QZ3XW7PLM4RT6YHN"
	slackBot   = "xoxb-" + "123456789012-1234567890123-" + "q8Wd2Lx9Vz4Rk7Tn1Bm5Hc3J"
	stripeLive = "sk_live_" + "51HqLyjWDarjtT1zdp7dcQ9x"
	jwt        = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	privateKey = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MmRSy3Bg0qdyyWnw\nQ8d2Lx9Vz4Rk7Tn1Bm5Hc3JqW8e2Lx9Vz4Rk7Tn1Bm5Hc3JqW8e2Lx9Vz4Rk7Tn1\n-----END RSA " + "PRIVATE KEY-----"
)

func TestScrubRedactsCommonSecrets(t *testing.T) {
	cases := []struct {
		name, text, secret, rule string
	}{
		{"github token", "git push with token " + githubPAT + " done", githubPAT, "github-pat"},
		{"aws key id", "aws_access_key_id = " + awsKeyID, awsKeyID, "aws-access-token"},
		{"slack bot token", "SLACK=" + slackBot, slackBot, ""},
		{"stripe key", "charge with " + stripeLive, stripeLive, "stripe-access-token"},
		{"jwt", "Authorization: Bearer " + jwt, jwt, ""},
		{"private key", "key file:\n" + privateKey + "\n", "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn", "private-key"},
		{"password in url", "psql postgres://admin:Sup3rS3cret!@db.internal:5432/app", "Sup3rS3cret!", "url-password"},
		{"env line", "cat .env\nDB_PASSWORD=hunter2hunter\nDEBUG=true", "hunter2hunter", "secret-assignment"},
		{"exported env", "export OPENAI_API_KEY='sk-abc123def456ghi789'", "sk-abc123def456ghi789", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Scrub(c.text)
			if strings.Contains(got.Text, c.secret) {
				t.Fatalf("secret kept:\n%s", got.Text)
			}
			if !strings.Contains(got.Text, "[REDACTED:") {
				t.Fatalf("no redaction marker:\n%s", got.Text)
			}
			if c.rule != "" && got.Redactions[c.rule] == 0 {
				t.Errorf("redacted by %v, want rule %s", got.Redactions, c.rule)
			}
		})
	}
}

func TestScrubKeepsOrdinaryText(t *testing.T) {
	for _, text := range []string{
		"Edit orders.go: cache the order list in Redis for five minutes",
		"go test -tags sqlite_fts5 ./... passed (12 packages)",
		"the key point is that tokens are counted per prompt",
		"DEBUG=true\nPORT=8080\nAPI_KEY=${OPENAI_API_KEY}",
		"https://example.com/docs/page?x=1",
	} {
		if got := Scrub(text); got.Text != text {
			t.Errorf("ordinary text changed:\n%s\n->\n%s (%v)", text, got.Text, got.Redactions)
		}
	}
}

func TestStripPrivate(t *testing.T) {
	cases := []struct{ in, want string }{
		{"deploy with <private>my home address</private> please", "deploy with [private] please"},
		{"a <PRIVATE>one\ntwo</Private> b <private>three</private> c", "a [private] b [private] c"},
		{"cut <private>to the end, never closed", "cut [private]"},
		{"nothing to hide", "nothing to hide"},
	}
	for _, c := range cases {
		got, _ := StripPrivate(c.in)
		if got != c.want {
			t.Errorf("StripPrivate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	s := Scrub("x <private>" + githubPAT + "</private> y")
	if s.PrivateParts != 1 || strings.Contains(s.Text, "ghp_") || len(s.Redactions) != 0 {
		t.Errorf("Scrub = %+v", s)
	}
}

func TestEveryGitleaksRuleCompiles(t *testing.T) {
	r := defaultRedactor()
	if len(r.rules) < 200 {
		t.Fatalf("only %d rules loaded", len(r.rules))
	}
	for _, ru := range r.rules {
		if ru.compiled() == nil {
			t.Errorf("rule %s does not compile: %s", ru.id, ru.pattern)
		}
	}
}

func TestScrubRedactsATruncatedPrivateKey(t *testing.T) {
	cut := privateKey[:len(privateKey)/2]
	if got := Clean("head\n" + cut); strings.Contains(got, "MIIEpAIBAAKCAQEA") {
		t.Fatalf("truncated key kept:\n%s", got)
	}
}

// Prepare compiles the rules a text wakes, and only those: a hook calls it on
// its input while its database opens, and must not pay for every rule. A
// keyword in a path wakes no semi-generic rule (generic-api-key's "api");
// followed by an assignment it does.
func TestPrepareCompilesTheRulesATextWakes(t *testing.T) {
	for text, genericWoken := range map[string]bool{
		`{"tool_input":{"file_path":"/src/shop-api/internal/api/orders.go"}}`: false,
		`{"tool_input":{"command":"export API_KEY=Zx8Kq2Lm9Vb4Nc7Rt1Yw5"}}`:   true,
	} {
		r := &redactor{stopWords: gitleaksStopWords, allowSrc: gitleaksAllowRegexes, rules: gitleaksRules()}
		r.prepare(text)
		for _, ru := range r.rules {
			woken := ru.mayMatch(strings.ToLower(text))
			if compiled := ru.re != nil; compiled != woken {
				t.Errorf("rule %s (keywords %v): compiled %v, want %v", ru.id, ru.keywords, compiled, woken)
			}
			if ru.id == "generic-api-key" && (ru.re != nil) != genericWoken {
				t.Errorf("generic-api-key compiled %v for %s, want %v", ru.re != nil, text, genericWoken)
			}
		}
	}
}
