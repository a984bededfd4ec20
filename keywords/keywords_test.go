package keywords

import (
	"slices"
	"testing"
)

func TestSplitPartsCutsCodeWords(t *testing.T) {
	cases := map[string][]string{
		"UserService":      {"user", "service"},
		"user_service":     {"user", "service"},
		"user-service":     {"user", "service"},
		"parseHTTPRequest": {"parse", "http", "request"},
		"E11000":           {"e11000"},
		"plain":            {"plain"},
	}
	for in, want := range cases {
		if got := splitParts(tokenWords(in)); !slices.Equal(got, want) {
			t.Errorf("splitParts(%q) = %q, want %q", in, got, want)
		}
	}
}

// firstForms are the terms by their first form.
func firstForms(terms []Term) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t[0]
	}
	return out
}

func TestTermsJoinCodeWordsAndDropStopWords(t *testing.T) {
	got := Terms(`How did we fix the UserService's "bug" in user-service AND (auth*)? Please check it`)
	want := []string{"fix", "userservice", "bug", "auth"}
	if !slices.Equal(firstForms(got), want) {
		t.Errorf("Terms = %q, want first forms %q", got, want)
	}
	if !slices.Equal(got[1], Term{"userservice", "user service"}) {
		t.Errorf("UserService term = %q", got[1])
	}
	if got := Terms("what is the"); len(got) != 0 {
		t.Errorf("stop words alone gave terms %q", got)
	}
	if got := Terms("internal/auth/session.go"); len(got) != 1 || !slices.Equal(got[0], Term{"internalauthsessiongo", "internal auth session go"}) {
		t.Errorf("a path is one term, its words a phrase: %q", got)
	}
	long := ""
	for i := range 40 {
		long += " w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := len(Terms(long)); n != maxQueryTerms {
		t.Errorf("%d terms kept, want %d", n, maxQueryTerms)
	}
}

func TestSearchWordsAddOtherSpellings(t *testing.T) {
	got := SearchWords("UserService calls token_store and parseHTTPRequest")
	want := "user service . tokenstore . parse http request"
	if got != want {
		t.Errorf("SearchWords = %q, want %q", got, want)
	}
	if got := SearchWords("nothing special here"); got != "" {
		t.Errorf("SearchWords of plain text = %q", got)
	}
}

func TestExpandAppendsSearchWords(t *testing.T) {
	got := Expand("UserService calls token_store")
	want := "UserService calls token_store\nuser service . tokenstore"
	if got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if got := Expand("nothing special"); got != "nothing special" {
		t.Errorf("Expand changed plain text: %q", got)
	}
}

func TestMatchQuotesEveryForm(t *testing.T) {
	if got := Match([]Term{{"a\"b"}, {"or"}}, "AND"); got != `"a""b" AND "or"` {
		t.Errorf("Match = %s", got)
	}
	if got := Query("claude-mem NEAR(", "OR"); got != `("claudemem" OR "claude mem") OR "near"` {
		t.Errorf("Query = %s", got)
	}
	if got := Query("the ?!", "AND"); got != "" {
		t.Errorf("Query of stop words = %q, want empty", got)
	}
}
