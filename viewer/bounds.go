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

// boundParams are the list's confidence, date and author filters, shared by
// the list, the search, the export and the delete of a view.
var boundParams = []string{"min_confidence", "max_confidence", "since", "until", "author"}

// noAuthor is the author filter's name for memories stored without one: by
// this machine's own processes (agents over stdio, hooks, the CLI), or
// before the server had people. It cannot be a person's name.
const noAuthor = "(none)"

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
// RFC 3339, since included and until not) and author (a
// person's name, "admin", or noAuthor).
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

// authorCount is one entry of GET /api/authors.
type authorCount struct {
	Author   string `json:"author"` // noAuthor for memories stored without one
	Memories int    `json:"memories"`
}

// authors is GET /api/authors: who stored the memories the asker sees, with
// how many each: people most first, then the memories of no one named, for the list's author filter (a store of one
// person has a single entry, and the page offers no filter).
func (h *handler) authors(w http.ResponseWriter, r *http.Request) {
	st, err := h.mem.Stats(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]authorCount, 0, len(st.ByAuthor))
	for a, n := range st.ByAuthor {
		if a == "" {
			a = noAuthor
		}
		out = append(out, authorCount{Author: a, Memories: n})
	}
	slices.SortFunc(out, func(a, b authorCount) int {
		if aNone, bNone := a.Author == noAuthor, b.Author == noAuthor; aNone != bNone {
			if aNone {
				return 1 // people first
			}
			return -1
		}
		if a.Memories != b.Memories {
			return b.Memories - a.Memories
		}
		return strings.Compare(a.Author, b.Author)
	})
	writeJSON(w, http.StatusOK, out)
}
