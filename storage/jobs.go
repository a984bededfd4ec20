package storage

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/recall-mcp/recall/memory"
)

// CheckJob refuses a job without a kind or without a subject.
func CheckJob(subject, kind string) error {
	if strings.TrimSpace(kind) == "" {
		return memory.Invalidf("job kind", `""`, "a job kind")
	}
	if strings.TrimSpace(subject) == "" {
		return memory.Invalidf("job subject", `""`, "the memory or session the job is about")
	}
	return nil
}

// CheckClaim checks a claim of jobs: ok is false when it can claim nothing
// (no kinds, no room); a lease must be positive.
func CheckClaim(kinds []string, limit int, lease time.Duration) (ok bool, err error) {
	if limit <= 0 || len(kinds) == 0 {
		return false, nil
	}
	if lease <= 0 {
		return false, memory.Invalidf("lease", lease, "a positive duration")
	}
	return true, nil
}

// Claimed is a job as a claim picked it, with the due time it was picked by.
type Claimed struct {
	memory.Job
	RunAfter time.Time
}

// InClaimOrder hands claimed jobs out in the order the claim picked them
// (an UPDATE's RETURNING gives no order): by due time, then age, then id.
func InClaimOrder(claimed []Claimed) []memory.Job {
	slices.SortFunc(claimed, func(a, b Claimed) int {
		return cmp.Or(a.RunAfter.Compare(b.RunAfter), a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	out := make([]memory.Job, len(claimed))
	for i, j := range claimed {
		out[i] = j.Job
	}
	return out
}
