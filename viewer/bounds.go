package viewer

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// boundParams are the list's confidence and date filters, shared by the
// list, the search and the export of a view.
var boundParams = []string{"min_confidence", "max_confidence", "since", "until"}

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

// readBounds reads min_confidence and max_confidence (0 to 1, inclusive) and
// since and until (days, YYYY-MM-DD, both included, in UTC).
func readBounds(qs url.Values) (memory.Bounds, error) {
	var b memory.Bounds
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
		day, err := time.Parse(dateLayout, raw)
		if err != nil {
			return b, fmt.Errorf("invalid %s %q: accepted a day as YYYY-MM-DD", name, raw)
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
