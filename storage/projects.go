package storage

import (
	"context"
	"fmt"
	"sort"

	"github.com/recall-mcp/recall/memory"
)

// ProjectSummaries assembles the project list: every project namespace that
// holds memories (counts, by namespace) or is bound to a root, by namespace.
func ProjectSummaries(counts map[string]int, bindings []memory.ProjectBinding) []memory.ProjectSummary {
	byNS := map[string]*memory.ProjectSummary{}
	get := func(ns string) *memory.ProjectSummary {
		if byNS[ns] == nil {
			byNS[ns] = &memory.ProjectSummary{Namespace: ns, Roots: []string{}}
		}
		return byNS[ns]
	}
	for ns, n := range counts {
		get(ns).Memories = n
	}
	for _, b := range bindings {
		p := get(b.Namespace)
		p.Roots = append(p.Roots, b.Root)
	}
	out := make([]memory.ProjectSummary, 0, len(byNS))
	for _, p := range byNS {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}

// A ProjectTx is an engine's write transaction as renaming and merging
// projects use it.
type ProjectTx interface {
	// ProjectInUse reports whether a namespace holds memories or is bound
	// to a root.
	ProjectInUse(ctx context.Context, ns string) (bool, error)
	// MoveNamespace moves a namespace's memories, root bindings and
	// sessions to another and returns how many memories moved.
	MoveNamespace(ctx context.Context, from, to string) (int, error)
	// FoldDuplicates deletes the memories of from whose content into holds
	// too, after moving their edges, validation events and change log to
	// the copy in into.
	FoldDuplicates(ctx context.Context, from, into string) ([]memory.MergedDuplicate, error)
	// CountRoots counts the roots bound to a namespace.
	CountRoots(ctx context.Context, ns string) (int, error)
}

// RenameProject gives project namespace from the name to: its memories, its
// root bindings and its sessions move. to must be unused (merge otherwise).
// It returns how many memories moved.
func (s Shared) RenameProject(ctx context.Context, from, to string) (int, error) {
	if err := memory.CheckProjectPair("from", from, "to", to); err != nil {
		return 0, err
	}
	var moved int
	err := s.Tx.Write(ctx, func(tx Tx) error {
		if used, err := tx.ProjectInUse(ctx, from); err != nil {
			return fmt.Errorf("rename project: %w", err)
		} else if !used {
			return memory.NotFound("project", from)
		}
		if used, err := tx.ProjectInUse(ctx, to); err != nil {
			return fmt.Errorf("rename project: %w", err)
		} else if used {
			return memory.Invalidf("to", fmt.Sprintf("%q", to), "an unused namespace; "+to+" already holds memories or a root, so merge the two instead")
		}
		var err error
		moved, err = tx.MoveNamespace(ctx, from, to)
		return err
	})
	return moved, err
}

// MergeProjects moves everything of project namespace from into into: its
// memories with their edges, validation events and vectors, its root
// bindings (so both roots now share into) and its sessions. A memory of from
// whose content into already holds (the same content hash) is not stored
// twice: the copy in into is kept, the duplicate's edges, validation events
// and change log move to it, and the duplicate is deleted. All in one
// transaction.
func (s Shared) MergeProjects(ctx context.Context, from, into string) (*memory.MergeReport, error) {
	if err := memory.CheckProjectPair("from", from, "into", into); err != nil {
		return nil, err
	}
	rep := &memory.MergeReport{From: from, Into: into, Duplicates: []memory.MergedDuplicate{}}
	err := s.Tx.Write(ctx, func(tx Tx) error {
		for _, ns := range []string{from, into} {
			if used, err := tx.ProjectInUse(ctx, ns); err != nil {
				return fmt.Errorf("merge projects: %w", err)
			} else if !used {
				return memory.NotFound("project", ns)
			}
		}
		var err error
		if rep.Duplicates, err = tx.FoldDuplicates(ctx, from, into); err != nil {
			return err
		}
		if rep.Roots, err = tx.CountRoots(ctx, from); err != nil {
			return fmt.Errorf("merge projects: %w", err)
		}
		rep.Moved, err = tx.MoveNamespace(ctx, from, into)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}
