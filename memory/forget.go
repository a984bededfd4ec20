package memory

import (
	"context"
	"errors"
	"fmt"
)

// Forget modes reported in ForgetResult.Mode.
const (
	ForgetByID    = "id"
	ForgetByQuery = "query"
)

// Forget deletes memories selected by exactly one of MemoryID, Query or Input
// (an id when LooksLikeID, otherwise a query). A query deletes only memories
// that match it (Matching with every content word required and, with vectors,
// the similarity floor): at most NResults of them, best first, in Namespace,
// superseded memories left out as in recall. No match deletes nothing and says
// so in Message. Golden rules are kept unless Force: a query reports them in
// Protected; a golden rule named by id is an error wrapping ErrProtected. An id
// that does not exist is an error wrapping ErrNotFound. Confirm false is a dry
// run: the same selection is reported and nothing is deleted.
func (s *Service) Forget(ctx context.Context, req ForgetRequest) (*ForgetResult, error) {
	mode, target, err := forgetTarget(req)
	if err != nil {
		return nil, err
	}
	var candidates []*Memory
	if mode == ForgetByID {
		m, err := s.store.GetMemory(ctx, target)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, NotFound("memory", target)
			}
			return nil, err
		}
		if m.IsGolden() && !req.Force {
			return nil, fmt.Errorf("memory %s is a golden rule: %w; use force=true to delete it", m.ID, ErrProtected)
		}
		candidates = []*Memory{m}
	} else {
		if candidates, err = s.forgetMatches(ctx, target, req); err != nil {
			return nil, err
		}
	}

	res := &ForgetResult{DeletedIDs: []string{}, Deleted: []ForgottenMemory{}, Mode: mode, DryRun: !req.Confirm}
	for _, m := range candidates {
		if m.IsGolden() && !req.Force {
			res.Protected = append(res.Protected, m.ID)
			continue
		}
		if req.Confirm {
			del := s.store.DeleteMemory
			switch {
			case req.Archive:
				del = s.store.ArchiveMemory
			case req.Trash:
				del = s.store.TrashMemory
			}
			if err := del(ctx, m.ID, !req.Force); err != nil {
				if errors.Is(err, ErrNotFound) {
					continue // deleted meanwhile
				}
				if errors.Is(err, ErrProtected) {
					res.Protected = append(res.Protected, m.ID) // promoted meanwhile
					continue
				}
				return res, fmt.Errorf("deleting %s: %w", m.ID, err)
			}
		}
		res.DeletedIDs = append(res.DeletedIDs, m.ID)
		res.Deleted = append(res.Deleted, ForgottenMemory{ID: m.ID, Preview: Preview(m.Content, forgetPreviewChars)})
	}
	res.DeletedCount = len(res.DeletedIDs)
	res.Message = forgetMessage(res, target)
	return res, nil
}

// forgetPreviewChars is the length of the content preview of each deleted memory.
const forgetPreviewChars = 80

func forgetMessage(res *ForgetResult, target string) string {
	verb := "deleted"
	if res.DryRun {
		verb = "would delete"
	}
	switch {
	case res.DeletedCount == 0 && len(res.Protected) == 0 && res.Mode == ForgetByQuery:
		return fmt.Sprintf("no memory matches %q: nothing deleted", target)
	case res.DeletedCount == 0 && len(res.Protected) > 0:
		if len(res.Protected) == 1 {
			return "nothing deleted: 1 golden rule needs force=true"
		}
		return fmt.Sprintf("nothing deleted: %d golden rules need force=true", len(res.Protected))
	}
	if res.DeletedCount == 1 {
		return verb + " 1 memory"
	}
	return fmt.Sprintf("%s %d memories", verb, res.DeletedCount)
}

// forgetTarget tells which mode a forget request asks for and validates it.
func forgetTarget(req ForgetRequest) (mode, target string, err error) {
	given := 0
	for _, v := range []string{req.MemoryID, req.Query, req.Input} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return "", "", Invalidf("forget selector", fmt.Sprintf("(%d given)", given), "exactly one of memory_id, query, or input (an id or a query)")
	}
	switch {
	case req.MemoryID != "":
		return ForgetByID, req.MemoryID, ValidateID("memory_id", req.MemoryID)
	case req.Query != "":
		q, err := checkText("query", req.Query, MaxQueryBytes)
		return ForgetByQuery, q, err
	}
	in, err := checkText("input", req.Input, MaxQueryBytes)
	if err != nil {
		return "", "", err
	}
	if LooksLikeID(in) {
		return ForgetByID, in, nil
	}
	return ForgetByQuery, in, nil
}

// forgetMatches selects what a forget by query deletes: the memories that
// contain every content word of the query and clear the similarity floor.
func (s *Service) forgetMatches(ctx context.Context, query string, req ForgetRequest) ([]*Memory, error) {
	n, err := nResults(req.NResults)
	if err != nil {
		return nil, err
	}
	var f Filter
	if f.Namespaces, err = optionalNamespace(ctx, req.Namespace); err != nil {
		return nil, err
	}
	found, err := s.Matching(ctx, query, f, n, Floor{MinCoverage: 1, MinSimilarity: s.opts.MatchMinSimilarity})
	if err != nil {
		return nil, err
	}
	out := make([]*Memory, len(found.Matches))
	for i, m := range found.Matches {
		out[i] = m.Memory
	}
	return out, nil
}
