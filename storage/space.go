package storage

import "github.com/recall-mcp/recall/memory"

// ClaimSpace decides what claiming the embedding space want does when cur is
// the space recorded: a named space stays, and so do vectors of an unnamed
// model of another dimension (they are not ours). Otherwise want is the
// space in force: its dimension is recorded first when none is
// (setDimension), then its model (setModel).
func ClaimSpace(cur, want memory.EmbeddingSpace) (out memory.EmbeddingSpace, setDimension, setModel bool) {
	switch {
	case cur.Model != "":
		return cur, false, false
	case cur.Dimension == 0:
		return want, true, true
	case cur.Dimension != want.Dimension:
		return cur, false, false
	}
	return want, false, true
}
