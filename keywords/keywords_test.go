package keywords

import (
	"slices"
	"testing"
)

func TestPartsSplitsCodeWords(t *testing.T) {
	cases := map[string][]string{
		"UserService":      {"User", "Service"},
		"user_service":     {"user", "service"},
		"user-service":     {"user", "service"},
		"parseHTTPRequest": {"parse", "HTTP", "Request"},
		"plain":            {"plain"},
	}
	for in, want := range cases {
		if got := parts(in); !slices.Equal(got, want) {
			t.Errorf("parts(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTermsJoinCodeWordsAndDropStopWords(t *testing.T) {
	got := Terms(`How did we fix the UserService "bug" in user-service AND (auth*)?`)
	want := []string{"fix", "userservice", "bug", "auth"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
	if got := Terms("what is the"); len(got) != 0 {
		t.Errorf("stop words alone gave terms %q", got)
	}
}

func TestExpandAddsJoinedFormsAndCamelParts(t *testing.T) {
	got := Expand("UserService calls token_store")
	want := "UserService calls token_store\nuserservice User Service tokenstore"
	if got != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if got := Expand("nothing special"); got != "nothing special" {
		t.Errorf("Expand changed plain text: %q", got)
	}
}

func TestMatchQuotesEveryTerm(t *testing.T) {
	if got := Match([]string{"a\"b", "or"}, "AND"); got != `"a""b" AND "or"` {
		t.Errorf("Match = %s", got)
	}
}
