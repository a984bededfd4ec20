package memory

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// hitsOf makes a best-first hit list from scores.
func hitsOf(scores []float64) []Hit {
	scores = slices.Clone(scores)
	slices.SortFunc(scores, func(a, b float64) int { return -cmpFloat(a, b) })
	out := make([]Hit, len(scores))
	for i, s := range scores {
		out[i] = Hit{ID: string(rune('a' + i)), Score: s}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nearest returns the 40 best of n similarities of a query to memories, k of
// them relevant at signal above a bell curve of spread 1/32 (1024 dimensions)
// shifted and scaled as an anisotropic model does.
func nearest(r *rand.Rand, n, k int, signal, shift, scale float64) []Hit {
	top := make([]float64, 0, 41) // the best 40 so far, best first
	for i := range n {
		x := r.NormFloat64() / 32
		if i < k {
			x += signal
		}
		if len(top) == 40 && x <= top[39] {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, x, func(a, b float64) int { return -cmpFloat(a, b) })
		top = slices.Insert(top, at, x)[:min(len(top)+1, 40)]
	}
	for i := range top {
		top[i] = shift + scale*top[i]
	}
	return hitsOf(top)
}

// The standout of pure noise is read at fixed ranks, so it is the same
// whether 1,000 or 100,000 memories were searched, however the similarities
// are shifted and scaled (anisotropy); a query that found its memories gets
// full weight.
func TestStandoutWeightIgnoresCorpusSizeAndAnisotropy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials = 30
	for _, n := range []int{1_000, 100_000} {
		for _, aniso := range [][2]float64{{0, 1}, {0.5, 0.5}, {0.95, 0.01}} {
			var noise, strong float64
			for range trials {
				noise += standoutWeight(nearest(r, n, 0, 0, aniso[0], aniso[1]))
				strong += standoutWeight(nearest(r, n, 2, 0.5, aniso[0], aniso[1]))
			}
			if m := noise / trials; m > 0.05 {
				t.Errorf("%d memories, shift %.2f scale %.2f: noise gets a mean weight of %.3f, want at most 0.05", n, aniso[0], aniso[1], m)
			}
			if m := strong / trials; m != 1 {
				t.Errorf("%d memories, shift %.2f scale %.2f: two clear matches get %.3f, want 1", n, aniso[0], aniso[1], m)
			}
		}
	}
	if w := standoutWeight(hitsOf([]float64{0.9, 0.5})); w != 1 {
		t.Errorf("a short list gets weight %.2f, want 1 (nothing to compare with)", w)
	}
}

// The record of agreement earns full weight to a model that finds the keyword
// side's best hit a third of the time, none to one that does by chance, and
// forgets an old model's searches.
func TestAgreementWeight(t *testing.T) {
	var good, chance Agreement
	for i := range 300 {
		good = good.Add(AgreementSearch{Matched: i%3 == 0})
		chance = chance.Add(AgreementSearch{Matched: i%100 == 0})
	}
	if w := good.weight(); w != 1 {
		t.Errorf("agreeing a third of the time: weight %.2f, want 1", w)
	}
	if w := chance.weight(); w != 0 {
		t.Errorf("agreeing 1%% of the time: weight %.2f, want 0", w)
	}
	if w := (Agreement{}).Add(AgreementSearch{Matched: true}).weight(); w != 0 {
		t.Errorf("one agreement without history: weight %.2f, want 0 (no trust yet)", w)
	}
	for range 600 {
		good = good.Add(AgreementSearch{})
	}
	if w := good.weight(); w != 0 {
		t.Errorf("after 600 searches without agreement: weight %.2f, want 0", w)
	}
}

// Through the service: a store without a record of its own keeps it in the
// Service, and the weight follows the searches.
func TestVectorShareLearnsFromSearches(t *testing.T) {
	s := &Service{store: nil, opts: Options{}}
	ctx := context.Background()
	keyword := []Hit{{ID: "k"}}
	agreeing := []Hit{{ID: "x"}, {ID: "k"}}
	var w float64
	for range 30 {
		w, _ = s.vectorShare(ctx, keyword, agreeing)
	}
	if w != 1 {
		t.Errorf("after 30 agreeing searches the weight is %.2f, want 1", w)
	}
	if math.Abs(s.agreement.Searches-s.agreement.Matched) > 1e-9 || s.agreement.Searches < 25 {
		t.Errorf("record %+v, want 30 faded searches, all matched", s.agreement)
	}
}

// keepingStore is a store that keeps the agreement record, counting its writes.
type keepingStore struct {
	Store
	record Agreement
	writes [][]AgreementSearch
}

func (k *keepingStore) VectorAgreement(context.Context) (Agreement, error) { return k.record, nil }

func (k *keepingStore) RecordVectorAgreement(_ context.Context, searches ...AgreementSearch) error {
	k.writes = append(k.writes, searches)
	for _, m := range searches {
		k.record = k.record.Add(m)
	}
	return nil
}

// A store that keeps the record gets a process's first search at once (a hook
// searches once) and later ones together, at most every agreementEvery; the
// weight counts the searches not written yet.
func TestAgreementIsWrittenInBatches(t *testing.T) {
	store := &keepingStore{}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &Service{store: store, opts: Options{Now: func() time.Time { return now }}}
	ctx := context.Background()
	keyword := []Hit{{ID: "k"}}
	// Twenty hits of one score: no standout, the weight is the record's.
	agreeing := []Hit{{ID: "x", Score: 0.5}, {ID: "k", Score: 0.5}}
	for i := range 18 {
		agreeing = append(agreeing, Hit{ID: fmt.Sprint(i), Score: 0.5})
	}
	if w := standoutWeight(agreeing); w != 0 {
		t.Fatalf("standout weight %.2f, want 0", w)
	}
	s.vectorShare(ctx, keyword, agreeing)
	if len(store.writes) != 1 || len(store.writes[0]) != 1 {
		t.Fatalf("after the first search: writes %v, want one of one search", store.writes)
	}
	var w float64
	for range 29 {
		now = now.Add(10 * time.Millisecond)
		w, _ = s.vectorShare(ctx, keyword, agreeing)
	}
	if len(store.writes) != 1 {
		t.Errorf("29 searches within %v wrote %d times, want none", agreementEvery, len(store.writes)-1)
	}
	if w != 1 {
		t.Errorf("after 30 agreeing searches the weight is %.2f, want 1 (the unwritten ones count)", w)
	}
	now = now.Add(agreementEvery)
	s.vectorShare(ctx, keyword, agreeing)
	if len(store.writes) != 2 || len(store.writes[1]) != 30 {
		t.Fatalf("after %v: writes of %d searches, want a second write of 30", agreementEvery, len(store.writes[len(store.writes)-1]))
	}
	if math.Abs(store.record.Searches-store.record.Matched) > 1e-9 || store.record.Searches < 25 {
		t.Errorf("record %+v, want 31 faded searches, all matched", store.record)
	}
}

// With a small vector weight, a keyword hit keeps its place above memories
// only the vectors found; with weight 1 fusion is plain reciprocal rank.
func TestFuseWeightedKeepsKeywordHitsAboveWeakVectors(t *testing.T) {
	keyword := []Hit{{ID: "a", Score: 3}, {ID: "b", Score: 2}, {ID: "c", Score: 1}}
	vector := []Hit{{ID: "c"}, {ID: "x"}, {ID: "y"}}
	got := fuseWeighted(keyword, vector, 0, true)
	if got[0].ID != "a" || got[1].ID != "b" || got[2].ID != "c" || got[3].ID != "x" {
		t.Errorf("weak vectors reordered keyword hits: %v", got)
	}
	got = fuseWeighted(keyword, vector, 1, false)
	if got[0].ID != "c" { // third by keywords, first by vectors: in both lists
		t.Errorf("full weight: %v, want c (in both lists) first", got)
	}
}

func TestAddToStoredAgreementReadsWhatItWrote(t *testing.T) {
	searches := []AgreementSearch{{Matched: true, Lead: KeywordLead}, {Lead: VectorLead}, {}}
	first, err := AddToStoredAgreement("", searches)
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeAgreement(first)
	if want := (Agreement{}).Add(searches[0]).Add(searches[1]).Add(searches[2]); err != nil || a != want || a.VectorLed == 0 || a.KeywordLed == 0 {
		t.Fatalf("DecodeAgreement(%q) = %+v, %v; want %+v", first, a, err, want)
	}
	// A record that does not read is started over, not kept broken.
	if _, err := DecodeAgreement("{broken"); err == nil {
		t.Fatal("a broken record decoded")
	}
	next, err := AddToStoredAgreement("{broken", searches[:1])
	if a, _ := DecodeAgreement(next); err != nil || a != (Agreement{}).Add(searches[0]) {
		t.Fatalf("after a broken record: %q, %v", next, err)
	}
}

// At full weight a memory first in one list ties with the memory first in the
// other: the side the record says leads goes first. Below full weight the
// keyword side's first hit keeps its place whatever the record says.
func TestFuseWeightedBreaksTiesForTheLeadingSide(t *testing.T) {
	keyword := []Hit{{ID: "k1"}, {ID: "k2"}}
	vector := []Hit{{ID: "v1"}, {ID: "v2"}}
	if got := fuseWeighted(keyword, vector, 1, true); got[0].ID != "v1" || got[1].ID != "k1" || got[2].ID != "v2" {
		t.Errorf("vectors leading: %v, want v1 k1 v2 k2", got)
	}
	if got := fuseWeighted(keyword, vector, 1, false); got[0].ID != "k1" || got[1].ID != "v1" {
		t.Errorf("keywords leading: %v, want k1 v1 k2 v2", got)
	}
	if got := fuseWeighted(keyword, vector, 0.99, true); got[0].ID != "k1" {
		t.Errorf("vectors leading below full weight: %v, want k1 first", got)
	}
}

// A search whose two first hits differ is led by the side whose first hit the
// other side also lists (and not the reverse); the record says which side
// leads more often, and the service lets it break ties.
func TestJudgeAndTheRecordSayWhichSideLeads(t *testing.T) {
	hits := func(ids ...string) []Hit {
		out := make([]Hit, len(ids))
		for i, id := range ids {
			out[i] = Hit{ID: id}
		}
		return out
	}
	for _, c := range []struct {
		keyword, vector []Hit
		want            AgreementSearch
	}{
		{hits("wrong", "right"), hits("right", "other"), AgreementSearch{Lead: VectorLead}},
		{hits("right", "other"), hits("noise", "right"), AgreementSearch{Matched: true, Lead: KeywordLead}},
		{hits("same", "a"), hits("same", "b"), AgreementSearch{Matched: true}},
		{hits("a", "b"), hits("c", "d"), AgreementSearch{}},
		{hits("a", "c"), hits("c", "a"), AgreementSearch{Matched: true}},
	} {
		if got := judge(c.keyword, c.vector); got != c.want {
			t.Errorf("judge(%v, %v) = %+v, want %+v", c.keyword, c.vector, got, c.want)
		}
	}
	s := &Service{store: nil, opts: Options{}}
	ctx := context.Background()
	keyword, vector := hits("wrong", "right"), hits("right", "other")
	var first bool
	for range 30 {
		_, first = s.vectorShare(ctx, keyword, vector)
	}
	if !first {
		t.Errorf("after 30 searches led by the vector side: ties still go to keywords (record %+v)", s.agreement)
	}
	for range 60 {
		_, first = s.vectorShare(ctx, vector, keyword)
	}
	if first {
		t.Errorf("after 60 searches led by the keyword side: ties still go to vectors (record %+v)", s.agreement)
	}
}
