package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// How much the vector side of a hybrid search counts. A meaningless embedder
// (random weights, a model that knows nothing of the domain) ranks memories in
// an arbitrary order; fused at full weight, that order pushes exact keyword
// hits out of the top results. A model that tells memories apart must get its
// full say, even where it is far from perfect: fused by reciprocal rank, a
// model whose own top 10 holds only a third of the relevant memories still
// lifts the ones keywords also found (see docs/fusion.md for the curve).
//
// Whether a model means anything shows over many searches, rarely in one: a
// strong model's best match need not stand out from its next ones. So the
// weight is the larger of two readings:
//
//   - agreement, over the searches of this store: how often the vector side
//     lists the keyword side's best hit among its own first 10. A meaningless
//     model does so by chance, 10 times in N (1% of 1,000 memories, 0.01% of
//     100,000); any model that knows something, far more often (a third of
//     the searches with a model whose vector-only R@10 is 0.4). It counts
//     searches, so it does not depend on how many candidates were fetched, and
//     ranks, so not on the scale of the similarities (anisotropy).
//   - standout, of this search: how far its best match stands above what the
//     nearest neighbours of a meaningless query look like (vectorStandout),
//     which lets a store without history trust a model that plainly found
//     what it was asked for.
//
// At full weight the two lists count the same, and a memory first in one list
// ties with the memory first in the other. Which of them goes first is the
// record's too: over the searches whose two first hits differ, the side whose
// first hit the other side also lists, when the reverse is not so, more often
// (Agreement.VectorLed against KeywordLed). A side whose first hit is right
// finds support in the other's list (a memory about the question); one whose
// first hit is wrong rarely does. Ties went to keywords before: with a strong
// embedder and a keyword side that often ranks a wrong memory first (a large
// store on one subject) that halved hybrid's MRR (docs/fusion.md).
const (
	// agreeNone and agreeFull bound the agreement rate between which its
	// weight grows from 0 to 1.
	agreeNone = 0.05
	agreeFull = 0.15
	// agreeTop is how far down the vector list the keyword side's best hit is
	// looked for.
	agreeTop = 10
	// agreePrior makes a store start without trust: as if so many searches
	// had disagreed, outweighed by a few agreements.
	agreePrior = 20
	// agreeMemory is about how many recent searches the rate reads: older
	// ones fade (by 1/agreeMemory per search), so a new model is judged on
	// its own searches.
	agreeMemory = 200

	// standoutNone and standoutFull bound the standout between which its
	// weight grows from 0 to 1. Pure noise stands out about 2.2 (9 times in 10
	// below 5, whether 1,000 or 100,000 memories are searched).
	standoutNone = 10.0
	standoutFull = 14.0
	// standoutRanks is the least list that can show a standout (the 20th hit
	// ends the scale); a shorter one counts in full (nothing to compare with).
	standoutRanks = 20
	// standoutHead is the rank the best hit is compared with.
	standoutHead = 10
)

// Agreement is the record of how often the vector side agreed with the
// keyword side: Searches and Matched, and which side led where their first
// hits differed (VectorLed, KeywordLed), fade by 1/agreeMemory per search.
type Agreement struct {
	Searches   float64 `json:"searches"`
	Matched    float64 `json:"matched"`
	VectorLed  float64 `json:"vector_led,omitempty"`
	KeywordLed float64 `json:"keyword_led,omitempty"`
}

// Lead says which side of a search had its first hit confirmed by the other
// side's list, when the two first hits differ and the reverse is not so.
type Lead int8

// The leads of one search.
const (
	NoLead Lead = iota
	VectorLead
	KeywordLead
)

// AgreementSearch is what one search adds to the Agreement.
type AgreementSearch struct {
	// Matched: the vector side listed the keyword side's first hit among its
	// first agreeTop.
	Matched bool
	Lead    Lead
}

// AgreementKeeper is implemented by stores that keep the Agreement between
// processes (a prompt hook is one search per process: kept in the process
// alone, its record would always be empty). Without it the record lives in
// the Service.
type AgreementKeeper interface {
	VectorAgreement(ctx context.Context) (Agreement, error)
	// RecordVectorAgreement adds searches to the record in one write, in
	// order, each as Agreement.Add does. Best effort, as TouchMemories.
	RecordVectorAgreement(ctx context.Context, searches ...AgreementSearch) error
}

// agreementEvery is how often a Service writes its searches' agreement to an
// AgreementKeeper: a process's first search writes at once (a hook searches
// once), later ones are kept and written together at most this often, so a
// busy server does not add a write (and its sync to disk) to every search.
// A process that exits loses at most this long of its searches, out of a
// record that reads the last agreeMemory.
const agreementEvery = 2 * time.Second

// agreementBacklog bounds the searches kept for the next write while writes
// fail (another process holding the write lock); older ones are dropped.
const agreementBacklog = agreeMemory

// DecodeAgreement reads a record as a store keeps it (JSON); "" is no
// record yet, the zero Agreement.
func DecodeAgreement(stored string) (Agreement, error) {
	var a Agreement
	if stored == "" {
		return a, nil
	}
	if err := json.Unmarshal([]byte(stored), &a); err != nil {
		return Agreement{}, fmt.Errorf("vector agreement %q: %w", stored, err)
	}
	return a, nil
}

// AddToStoredAgreement is the read-modify-write of RecordVectorAgreement:
// the stored record with searches added in order, encoded for storing. A
// record that does not read is started over.
func AddToStoredAgreement(stored string, searches []AgreementSearch) (string, error) {
	a, err := DecodeAgreement(stored)
	if err != nil {
		a = Agreement{}
	}
	for _, m := range searches {
		a = a.Add(m)
	}
	b, err := json.Marshal(a)
	return string(b), err
}

// Add fades the record and counts one search.
func (a Agreement) Add(s AgreementSearch) Agreement {
	const keep = 1 - 1.0/agreeMemory
	a.Searches = a.Searches*keep + 1
	a.Matched *= keep
	a.VectorLed *= keep
	a.KeywordLed *= keep
	if s.Matched {
		a.Matched++
	}
	switch s.Lead {
	case VectorLead:
		a.VectorLed++
	case KeywordLead:
		a.KeywordLed++
	}
	return a
}

// vectorFirst tells whether ties at full weight go to the vector side: its
// first hits have been confirmed by the keyword side more often than the
// reverse.
func (a Agreement) vectorFirst() bool { return a.VectorLed > a.KeywordLed }

// weight is the share the record earns the vector side.
func (a Agreement) weight() float64 {
	return clamp01((a.Matched/(a.Searches+agreePrior) - agreeNone) / (agreeFull - agreeNone))
}

// judge is what a search with hits on both sides adds to the record.
func judge(keyword, vector []Hit) AgreementSearch {
	s := AgreementSearch{Matched: listed(keyword[0].ID, vector[:min(len(vector), agreeTop)])}
	if keyword[0].ID != vector[0].ID {
		byKeywords, byVectors := listed(vector[0].ID, keyword), listed(keyword[0].ID, vector)
		switch {
		case byKeywords && !byVectors:
			s.Lead = VectorLead
		case byVectors && !byKeywords:
			s.Lead = KeywordLead
		}
	}
	return s
}

// listed tells whether id is among hits.
func listed(id string, hits []Hit) bool {
	for _, h := range hits {
		if h.ID == id {
			return true
		}
	}
	return false
}

// vectorShare is the weight of the vector list in this search's fusion
// (see the constants above), and whether ties at full weight go to the vector
// side, recording the search's agreement.
func (s *Service) vectorShare(ctx context.Context, keyword, vector []Hit) (float64, bool) {
	standout := standoutWeight(vector)
	if len(keyword) == 0 {
		// Nothing to agree with: the record stands as it is.
		rec, _ := s.agreementRecord(ctx)
		return max(standout, rec.weight()), rec.vectorFirst()
	}
	search := judge(keyword, vector)
	rec, keeper := s.agreementRecord(ctx)
	rec = rec.Add(search)
	if keeper != nil {
		s.recordAgreement(ctx, keeper, search)
	} else {
		s.agreeMu.Lock()
		s.agreement = s.agreement.Add(search)
		s.agreeMu.Unlock()
	}
	return max(standout, rec.weight()), rec.vectorFirst()
}

// agreementRecord reads the record from the store when it keeps one (with
// this process's searches not written yet), else from the Service.
func (s *Service) agreementRecord(ctx context.Context) (Agreement, AgreementKeeper) {
	if keeper, ok := s.store.(AgreementKeeper); ok {
		rec, err := keeper.VectorAgreement(ctx)
		if err != nil {
			s.log().Warn("reading the vector agreement failed", "err", err)
		}
		s.agreeMu.Lock()
		defer s.agreeMu.Unlock()
		for _, m := range s.unrecorded {
			rec = rec.Add(m)
		}
		return rec, keeper
	}
	s.agreeMu.Lock()
	defer s.agreeMu.Unlock()
	return s.agreement, nil
}

// recordAgreement writes this search's agreement, with those kept since the
// last write, unless the last write was less than agreementEvery ago.
func (s *Service) recordAgreement(ctx context.Context, keeper AgreementKeeper, search AgreementSearch) {
	s.agreeMu.Lock()
	s.unrecorded = append(s.unrecorded, search)
	if n := len(s.unrecorded); n > agreementBacklog {
		s.unrecorded = slices.Delete(s.unrecorded, 0, n-agreementBacklog)
	}
	now := s.now()
	if !s.recordedAt.IsZero() && now.Sub(s.recordedAt) < agreementEvery {
		s.agreeMu.Unlock()
		return
	}
	batch := s.unrecorded
	s.unrecorded, s.recordedAt = nil, now
	s.agreeMu.Unlock()
	if err := keeper.RecordVectorAgreement(ctx, batch...); err != nil {
		s.log().Debug("vector agreement not recorded", "err", err)
		s.agreeMu.Lock()
		s.unrecorded = append(batch, s.unrecorded...) // tried again next time
		s.agreeMu.Unlock()
	}
}

// standoutWeight is the share vectorStandout earns one search's hits (best
// first).
func standoutWeight(hits []Hit) float64 {
	if len(hits) < standoutRanks {
		return 1
	}
	return clamp01((vectorStandout(hits) - standoutNone) / (standoutFull - standoutNone))
}

// vectorStandout is the drop from the best score to the 10th in units of the
// extreme-value scale of the list. The nearest neighbours of a meaningless
// query are the extremes of a bell curve, whose j-th spacing s[j]-s[j+1] is
// about a/j, a set by the spread of all similarities and the number of
// memories; so the mean of j·(s[j]-s[j+1]) over the ranks 10 to 19 estimates
// a. Read at fixed ranks, the figure does not move with how many candidates
// were fetched or how many memories exist; a ratio of score differences, it
// reads a model whose similarities all lie in 0.94-0.96 the same way as one
// spread over 0-1. Noise scores about H(9) = 2.8 in theory, 2.2 measured (a
// bell curve's extremes converge slowly).
func vectorStandout(hits []Hit) float64 {
	var scale float64
	for j := standoutHead; j < standoutRanks; j++ {
		scale += float64(j) * (hits[j-1].Score - hits[j].Score)
	}
	scale /= float64(standoutRanks - standoutHead)
	head := hits[0].Score - hits[standoutHead-1].Score
	if scale <= 0 {
		if head > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return head / scale
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// fuseWeighted merges a keyword and a vector ranking by reciprocal rank fusion:
// a memory ranked r in a list scores 1/(RRFK+r) from it, the vector list's
// share multiplied by vectorShare. Best first; ties keep the order in which
// memories were first seen: keywords before vectors, unless vectorFirst and
// the vector side has full weight.
func fuseWeighted(keyword, vector []Hit, vectorShare float64, vectorFirst bool) []Hit {
	score := map[string]float64{}
	var order []string
	add := func(list []Hit, weight float64) {
		for i, h := range list {
			if _, ok := score[h.ID]; !ok {
				order = append(order, h.ID)
			}
			score[h.ID] += weight / float64(RRFK+i+1)
		}
	}
	if vectorFirst && vectorShare >= 1 {
		add(vector, vectorShare)
		add(keyword, 1)
	} else {
		add(keyword, 1)
		add(vector, vectorShare)
	}
	out := make([]Hit, len(order))
	for i, id := range order {
		out[i] = Hit{ID: id, Score: score[id]}
	}
	slices.SortStableFunc(out, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out
}
