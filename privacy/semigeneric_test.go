package privacy

import (
	"strings"
	"testing"
)

// mayMatch may skip a rule whose keyword occurs only where its expression
// finds nothing: checked for every rule over texts where a keyword sits in a
// path, in prose, before an assignment and before a secret.
func TestMayMatchSkipsOnlyWhatCannotMatch(t *testing.T) {
	r := &redactor{stopWords: gitleaksStopWords, allowSrc: gitleaksAllowRegexes, rules: gitleaksRules()}
	r.rules = append(r.rules, ownRules...)
	const secret = "Zx8Kq2Lm9Vb4Nc7Rt1Yw5Pq3"
	var texts []string
	named := 0
	for _, ru := range r.rules {
		for _, k := range ru.keywords {
			texts = append(texts, "/src/"+k+"/orders.go", "read the "+k+" docs", k+" = "+secret, k+"_id: '"+secret+"'", `"`+k+`": "`+secret+`"`, k+secret+"\n")
		}
		if ru.namedByKeyword() {
			named++
		}
	}
	if named < 60 {
		t.Fatalf("only %d rules skip texts without an assignment; gitleaks' semi-generic rules are about a hundred", named)
	}
	skipped := 0
	for _, text := range texts {
		low := strings.ToLower(text)
		for _, ru := range r.rules {
			if ru.mayMatch(low) || !containsAny(low, ru.keywords) {
				continue // without a keyword a rule never ran (gitleaks' own prefilter)
			}
			skipped++
			if re := ru.compiled(); re != nil && re.MatchString(text) {
				t.Errorf("%s was skipped for %q, which its expression matches", ru.id, text)
			}
		}
	}
	if skipped == 0 {
		t.Fatal("no rule was skipped: the test cannot fail")
	}
}

// A keyword in a path or a plain word leaves generic-api-key uncompiled (it
// takes half a millisecond); an assignment after it does not, and its secret
// is redacted as before.
func TestSemiGenericRulesWaitForAnAssignment(t *testing.T) {
	r := &redactor{stopWords: gitleaksStopWords, allowSrc: gitleaksAllowRegexes, rules: gitleaksRules()}
	var generic *rule
	for _, ru := range r.rules {
		if ru.id == "generic-api-key" {
			generic = ru
		}
	}
	if generic == nil || !generic.namedByKeyword() {
		t.Fatal("generic-api-key is not a semi-generic rule named by its keywords any more")
	}
	plain := "tool: Edit\ninput: {\"file_path\":\"/src/shop/internal/api/orders.go\"}\noutput: read the API docs for the token bucket"
	if out, _ := r.Redact(plain); out != plain {
		t.Fatalf("plain text changed: %q", out)
	}
	if generic.re != nil {
		t.Fatal("generic-api-key was compiled for a text with no assignment after its keywords")
	}
	for _, text := range []string{
		`api_key = "Zx8Kq2Lm9Vb4Nc7Rt1Yw5"`,
		`{"apiKey": "Zx8Kq2Lm9Vb4Nc7Rt1Yw5"}`,
		`export SERVICE_TOKEN='Zx8Kq2Lm9Vb4Nc7Rt1Yw5'`,
		"credentials ||Zx8Kq2Lm9Vb4Nc7Rt1Yw5",
	} {
		if out, _ := r.Redact(text); strings.Contains(out, "Zx8Kq2Lm9Vb4Nc7Rt1Yw5") {
			t.Errorf("the secret in %q was kept: %q", text, out)
		}
	}
}
