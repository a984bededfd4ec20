package ollamatest

import (
	"math"
	"strings"
	"unicode"

	"github.com/recall-mcp/recall/internal/randvec"
)

// DefaultDimension is the length of the vectors the server returns unless told
// otherwise; it is the dimension of mxbai-embed-large.
const DefaultDimension = 1024

// DefaultContextLength is the context of the embedding models in tokens, as
// mxbai-embed-large's. The server counts a token per whitespace-separated word.
const DefaultContextLength = 512

// queryInstructions are the query prefixes of known embedding models. Vector
// leaves them out of the meaning, as a real model trained with them does: a query
// and a passage sharing words stay similar. Servers still record the raw input.
var queryInstructions = []string{
	"Represent this sentence for searching relevant passages: ",
	"search_query: ",
	"search_document: ",
}

// stopWords carry no meaning of their own; leaving them out keeps unrelated texts
// near-orthogonal. "not" and "never" are kept on purpose: they carry the
// difference between a statement and its contradiction.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "is": true, "are": true, "was": true,
	"were": true, "be": true, "to": true, "of": true, "in": true, "on": true,
	"for": true, "and": true, "or": true, "it": true, "this": true, "that": true,
	"with": true, "as": true, "at": true, "by": true, "we": true, "i": true,
}

// Vector is the embedding the server returns for text, of dimension dim. It is a
// hashed bag of words: the text is lower-cased and split into words (letters and
// digits), stop words are dropped, a trailing plural "s", "ing" or "ed" is cut from
// longer words, and each word adds ±1 to one dimension chosen by its hash (the sign
// too comes from the hash, so collisions cancel rather than pile up). The result is
// L2-normalised. So:
//
//   - the same text always gives the same vector;
//   - texts sharing words have a cosine similarity near (shared words) /
//     sqrt(words of one × words of the other);
//   - texts without a word in common are near-orthogonal (similarity about 0);
//   - a known query instruction prefix does not change the vector.
//
// A text without any word gets a unit vector chosen by the hash of the whole text.
func Vector(text string, dim int) []float32 {
	if dim <= 0 {
		dim = DefaultDimension
	}
	for _, prefix := range queryInstructions {
		text = strings.TrimPrefix(text, prefix)
	}
	vec := make([]float32, dim)
	words := Words(text)
	if len(words) == 0 {
		vec[hashOf(text)%uint64(dim)] = 1
		return vec
	}
	for _, w := range words {
		h := hashOf(w)
		sign := float32(1)
		if h>>63 == 1 {
			sign = -1
		}
		vec[h%uint64(dim)] += sign
	}
	var sum float64
	for _, v := range vec {
		sum += float64(v) * float64(v)
	}
	if sum == 0 { // every word collided away; fall back to a unit vector
		vec[hashOf(text)%uint64(dim)] = 1
		return vec
	}
	norm := float32(1 / math.Sqrt(sum))
	for i := range vec {
		vec[i] *= norm
	}
	return vec
}

// Words returns the words Vector counts in text, in order: lower-cased, stop words
// dropped, lightly stemmed.
func Words(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	words := fields[:0]
	for _, f := range fields {
		if stopWords[f] {
			continue
		}
		words = append(words, stem(f))
	}
	return words
}

// stem cuts the commonest English endings so "tests", "testing" and "tested"
// count as "test". It is deliberately crude: the point is determinism, not
// linguistics.
func stem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

func hashOf(s string) uint64 { return randvec.Hash(s) }

// Cosine is the cosine similarity of two vectors of the same length (0 when
// either is zero), for tests that check how alike two texts look.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
