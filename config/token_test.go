package config

import (
	"strings"
	"testing"
)

func TestCheckHTTPTokenRefusesShortTokens(t *testing.T) {
	for _, tok := range []string{"secret", "hunter2hunter2", strings.Repeat("a", MinTokenLength-1)} {
		err := CheckHTTPToken(tok)
		if err == nil || !strings.Contains(err.Error(), TokenCommand) || !strings.Contains(err.Error(), "32 or more") {
			t.Errorf("token of %d characters: %v, want a refusal naming the length and %q", len(tok), err, TokenCommand)
		}
	}
	for _, tok := range []string{"", strings.Repeat("0123456789abcdef", 4)} {
		if err := CheckHTTPToken(tok); err != nil {
			t.Errorf("token of %d characters: %v, want accepted", len(tok), err)
		}
	}
}
