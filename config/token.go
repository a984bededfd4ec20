package config

import "fmt"

// MinTokenLength is the shortest RECALL_HTTP_TOKEN a server accepts: 32
// characters, what `openssl rand -hex 16` prints; a short or typed word is
// found by anyone who can try a few thousand requests.
const MinTokenLength = 32

// TokenCommand makes a good token; every error about a token names it.
const TokenCommand = "openssl rand -hex 32"

// CheckHTTPToken refuses a token too short to guard a server other machines
// (or other users of this one) can reach. It says how to make a good one.
// An empty token is the caller's to judge (loopback needs none).
func CheckHTTPToken(token string) error {
	if token == "" || len(token) >= MinTokenLength {
		return nil
	}
	return fmt.Errorf("RECALL_HTTP_TOKEN is %d characters: accepted %d or more, random; make one with `%s` and set RECALL_HTTP_TOKEN to it",
		len(token), MinTokenLength, TokenCommand)
}
