package memory

import "unicode/utf8"

// Cut keeps at most n bytes of s, never inside a character: for limits in
// bytes (a query's, a tool output's), where Preview is for what people read.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
