package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/recall-mcp/recall/memory"
)

// Scaled returns d with distractors added until it holds n memories: notes
// made of the words of d's own memories, in random order and number, spread
// over d's namespaces. They are judged relevant to nothing, so they only make
// search harder, as a store that grew on the same subjects does. d is
// returned as it is when it already holds n memories or more.
func Scaled(d *Dataset, n int, seed uint64) *Dataset {
	if n <= len(d.Memories) {
		return d
	}
	var words, namespaces []string
	seenNS := map[string]bool{}
	for _, m := range d.Memories {
		words = append(words, strings.Fields(m.Content)...)
		if !seenNS[m.Namespace] {
			seenNS[m.Namespace] = true
			namespaces = append(namespaces, m.Namespace)
		}
	}
	r := rand.New(rand.NewPCG(seed, 0xd157))
	out := &Dataset{Memories: append([]Memory(nil), d.Memories...), Queries: d.Queries}
	for i := 0; len(out.Memories) < n; i++ {
		note := make([]string, 8+r.IntN(18))
		for j := range note {
			note[j] = words[r.IntN(len(words))]
		}
		out.Memories = append(out.Memories, Memory{
			ID:        fmt.Sprintf("distractor-%d", i),
			Namespace: namespaces[r.IntN(len(namespaces))],
			Type:      memory.Types[r.IntN(len(memory.Types)-1)], // no golden rules
			Content:   strings.Join(note, " ") + fmt.Sprintf(" (note %d)", i),
		})
	}
	return out
}

// Generated makes a corpus of another shape than the hand-written dataset,
// on which no constant of search was tuned: n memories of made-up words in
// topics of about 40 memories, and 200 queries, 150 of them judged. A judged
// query names one to three memories of one topic; it shares from none to three
// of their rarer words and mixes in words of the topic that many other
// memories share, so keywords find some of its relevant memories and miss
// others (category exact when it shares a word, paraphrase when it shares
// none). The 50 unrelated queries use words no memory has. Every memory is
// global. The same n and seed give the same corpus.
func Generated(n int, seed uint64) *Dataset {
	r := rand.New(rand.NewPCG(seed, 0x6e7))
	vocab := madeUpWords(r, 8000+n/4)
	// The last 300 words are kept for unrelated queries.
	unused, vocab := vocab[len(vocab)-300:], vocab[:len(vocab)-300]
	common := vocab[:200]
	topics := max(5, n/40)
	topicWords := make([][]string, topics)
	for t := range topicWords {
		topicWords[t] = pick(r, vocab[200:], 25)
	}
	d := &Dataset{}
	byTopic := make([][]int, topics)
	rare := make([][]string, n) // each memory's own words, the ones a query may share
	for i := range n {
		t := r.IntN(topics)
		own := pick(r, vocab[200:], 4+r.IntN(5))
		words := append([]string(nil), own...)
		words = append(words, pick(r, topicWords[t], 5+r.IntN(6))...)
		words = append(words, pick(r, common, 3+r.IntN(5))...)
		r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
		d.Memories = append(d.Memories, Memory{
			ID:        fmt.Sprintf("m%d", i),
			Namespace: memory.GlobalNamespace,
			Type:      memory.Types[i%(len(memory.Types)-1)],
			Content:   strings.Join(words, " ") + ".",
		})
		byTopic[t] = append(byTopic[t], i)
		rare[i] = own
	}
	for qi := range 150 {
		t := r.IntN(topics)
		for len(byTopic[t]) == 0 {
			t = r.IntN(topics)
		}
		k := min(1+r.IntN(3), len(byTopic[t]))
		members := pick(r, byTopic[t], k)
		shared := r.IntN(4) // own words shared with the relevant memories
		var words, relevant []string
		for _, m := range members {
			relevant = append(relevant, d.Memories[m].ID)
			words = append(words, pick(r, rare[m], min(shared, len(rare[m])))...)
		}
		words = append(words, pick(r, topicWords[t], 2+r.IntN(3))...)
		words = append(words, pick(r, common, 1+r.IntN(2))...)
		r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
		category := Exact
		if shared == 0 {
			category = Paraphrase
		}
		d.Queries = append(d.Queries, Query{
			ID: fmt.Sprintf("q%d", qi), Category: category,
			Query: strings.Join(words, " "), Relevant: relevant,
		})
	}
	for qi := range 50 {
		d.Queries = append(d.Queries, Query{
			ID: fmt.Sprintf("u%d", qi), Category: Unrelated,
			Query: strings.Join(pick(r, unused, 3+r.IntN(4)), " "), Relevant: []string{},
		})
	}
	return d
}

// madeUpWords returns n distinct pronounceable words of two to four syllables.
func madeUpWords(r *rand.Rand, n int) []string {
	const consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteByte(consonants[r.IntN(len(consonants))])
			b.WriteByte(vowels[r.IntN(len(vowels))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// pick returns k distinct elements of from (all of them when k is larger).
func pick[T any](r *rand.Rand, from []T, k int) []T {
	k = min(k, len(from))
	chosen := make(map[int]bool, k)
	out := make([]T, 0, k)
	for len(out) < k {
		if i := r.IntN(len(from)); !chosen[i] {
			chosen[i] = true
			out = append(out, from[i])
		}
	}
	return out
}
