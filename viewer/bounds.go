package viewer

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// boundParams are the list's confidence, date, author and source filters,
// shared by the list, the search, the export and the delete of a view.
var boundParams = []string{"min_confidence", "max_confidence", "since", "until", "author", "source"}

// noAuthor is the author filter's name for memories stored without one: by
// this machine's own processes (agents over stdio, hooks, the CLI), or
// before the server had people. It cannot be a person's name.
const noAuthor = "(none)"

// unknownSource is the source filter's name for memories stored before Recall
// recorded the door they came in through. It cannot be a source's name.
const unknownSource = "(unknown)"

// readSuperseded reads include_superseded: superseded memories (the older
// side of a supersedes edge) are left out of a view unless it is true, as in
// memory_recall_tool.
func readSuperseded(qs url.Values) (bool, error) {
	raw := qs.Get("include_superseded")
	if raw == "" {
		return false, nil
	}
	v, err := strconv.ParseBool(raw)
	if err != nil {
		return false, fmt.Errorf("invalid include_superseded %q: accepted true or false", raw)
	}
	return v, nil
}

// dateLayout is how the page sends a day (an <input type=date>'s value).
const dateLayout = "2006-01-02"

// readBounds reads min_confidence and max_confidence (0 to 1, inclusive),
// since and until (days, YYYY-MM-DD, both included, in UTC; or instants,
// RFC 3339, since included and until not), author (a person's name,
// "admin", or noAuthor) and source (a door's name, or unknownSource).
func readBounds(qs url.Values) (memory.Bounds, error) {
	var b memory.Bounds
	if author := qs.Get("author"); author == noAuthor {
		b.Authors = []string{""}
	} else if author != "" {
		if memory.ValidatePersonName(author) != nil {
			return b, fmt.Errorf("invalid author %q: accepted a person's name, admin, or %s for memories stored without one (this machine's own agents, hooks and CLI)", author, noAuthor)
		}
		b.Authors = []string{author}
	}
	if source := qs.Get("source"); source == unknownSource {
		b.Sources = []string{""}
	} else if source != "" {
		if memory.ValidateSource(source) != nil {
			return b, fmt.Errorf("invalid source %q: accepted %s, or %s for memories stored before Recall recorded it", source, strings.Join(memory.Sources, ", "), unknownSource)
		}
		b.Sources = []string{source}
	}
	for name, dst := range map[string]**float64{"min_confidence": &b.MinConfidence, "max_confidence": &b.MaxConfidence} {
		raw := qs.Get(name)
		if raw == "" {
			continue
		}
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || v < 0 || v > 1 {
			return b, fmt.Errorf("invalid %s %q: accepted a confidence from 0 to 1", name, raw)
		}
		*dst = &v
	}
	if b.MinConfidence != nil && b.MaxConfidence != nil && *b.MinConfidence > *b.MaxConfidence {
		return b, fmt.Errorf("min_confidence %v is above max_confidence %v: accepted a range with min at most max", *b.MinConfidence, *b.MaxConfidence)
	}
	for name, dst := range map[string]*time.Time{"since": &b.CreatedAfter, "until": &b.CreatedBefore} {
		raw := qs.Get(name)
		if raw == "" {
			continue
		}
		// An instant (RFC 3339) is taken as it is: since includes it, until
		// does not (the CLI of a client machine sends its own midnights).
		if at, err := time.Parse(time.RFC3339, raw); err == nil {
			*dst = at
			continue
		}
		day, err := time.Parse(dateLayout, raw)
		if err != nil {
			return b, fmt.Errorf("invalid %s %q: accepted a day as YYYY-MM-DD or an instant as RFC 3339 (2026-03-01T15:04:05Z)", name, raw)
		}
		if name == "until" {
			day = day.AddDate(0, 0, 1) // the whole day is included
		}
		*dst = day
	}
	if !b.CreatedAfter.IsZero() && !b.CreatedBefore.IsZero() && !b.CreatedAfter.Before(b.CreatedBefore) {
		return b, fmt.Errorf("since %s is after until %s: accepted since on or before until", qs.Get("since"), qs.Get("until"))
	}
	return b, nil
}

// facetCount is one entry of GET /api/authors or GET /api/sources.
type facetCount struct {
	Author   string `json:"author,omitempty"` // noAuthor for memories stored without one
	Source   string `json:"source,omitempty"` // unknownSource for memories stored before it was recorded
	Memories int    `json:"memories"`
}

// authors is GET /api/authors: who stored the memories the asker sees, with
// how many each, for the list's author filter (a store of one person has a
// single entry, and the page offers no filter).
func (h *handler) authors(w http.ResponseWriter, r *http.Request) {
	h.facet(w, r, memory.FacetAuthor, noAuthor, func(name string, n int) facetCount { return facetCount{Author: name, Memories: n} })
}

// sources is GET /api/sources: the doors the memories the asker sees came in
// through (mcp, cli, viewer, capture, import), with how many each, for the
// list's source filter.
func (h *handler) sources(w http.ResponseWriter, r *http.Request) {
	h.facet(w, r, memory.FacetSource, unknownSource, func(name string, n int) facetCount { return facetCount{Source: name, Memories: n} })
}

// facet answers the counts of one facet, most first, the memories without a
// value (named none) last.
func (h *handler) facet(w http.ResponseWriter, r *http.Request, by memory.Facet, none string, entry func(string, int) facetCount) {
	counts, err := h.mem.CountMemoriesBy(r.Context(), by)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	type named struct {
		name string
		n    int
	}
	all := make([]named, 0, len(counts))
	for k, n := range counts {
		if k == "" {
			k = none
		}
		all = append(all, named{k, n})
	}
	slices.SortFunc(all, func(a, b named) int {
		if aNone, bNone := a.name == none, b.name == none; aNone != bNone {
			if aNone {
				return 1
			}
			return -1
		}
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]facetCount, len(all))
	for i, c := range all {
		out[i] = entry(c.name, c.n)
	}
	writeJSON(w, http.StatusOK, out)
}
