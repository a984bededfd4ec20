package memory

import (
	"fmt"
	"strings"
	"time"
)

// ProjectBinding ties a project's root directory to its namespace.
type ProjectBinding struct {
	Root      string    `json:"root"`
	Namespace string    `json:"namespace"`
	CreatedAt time.Time `json:"created_at"`
}

// ProjectSummary is a project namespace as `recall projects` lists it: the
// roots bound to it and how many memories it holds.
type ProjectSummary struct {
	Namespace string   `json:"namespace"`
	Roots     []string `json:"roots"`
	Memories  int      `json:"memories"`
}

// MergeReport says what merging one project namespace into another did.
type MergeReport struct {
	From  string `json:"from"`
	Into  string `json:"into"`
	Moved int    `json:"moved"` // memories that changed namespace
	// Duplicates are memories of From whose content Into already held: the
	// copy in Into is kept, the edges and validation events of the one in From
	// move to it, and the copy in From is deleted.
	Duplicates []MergedDuplicate `json:"duplicates"`
	Roots      int               `json:"roots"` // root bindings moved to Into
}

// MergedDuplicate is one dedup collision of a merge.
type MergedDuplicate struct {
	Deleted string `json:"deleted_id"`
	KeptID  string `json:"kept_id"`
}

// CheckProjectPair validates the two namespaces of a rename or merge of
// projects: both "project:<name>", and not the same. The field names say
// which argument was wrong ("from" and "to", or "from" and "into").
func CheckProjectPair(fromField, from, toField, to string) error {
	for _, p := range [][2]string{{fromField, from}, {toField, to}} {
		if !strings.HasPrefix(p[1], ProjectNamespacePref) || ValidateNamespace(p[1]) != nil {
			return Invalidf(p[0], fmt.Sprintf("%q", p[1]), `a project namespace "project:<name>"`)
		}
	}
	if from == to {
		return Invalidf(toField, fmt.Sprintf("%q", to), "a namespace other than "+from)
	}
	return nil
}
