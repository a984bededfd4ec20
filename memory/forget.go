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

// Forget deletes memories selected by exactly one of MemoryID, Query (the best
// NResults matches of a recall in Namespace, superseded memories left out as in
// recall) or Input (an id when LooksLikeID, otherwise a query). Golden rules are
// kept unless Force: a query reports them in Protected; a golden rule named by
// id is an error wrapping ErrProtected. Confirm false is a dry run that reports
// what would be deleted and deletes nothing.
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

	res := &ForgetResult{DeletedIDs: []string{}, Mode: mode, DryRun: !req.Confirm}
	for _, m := range candidates {
		if m.IsGolden() && !req.Force {
			res.Protected = append(res.Protected, m.ID)
			continue
		}
		if req.Confirm {
			if err := s.store.DeleteMemory(ctx, m.ID, !req.Force); err != nil {
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
	}
	res.DeletedCount = len(res.DeletedIDs)
	return res, nil
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

// forgetMatches runs the recall search a forget by query deletes from.
func (s *Service) forgetMatches(ctx context.Context, query string, req ForgetRequest) ([]*Memory, error) {
	n, err := nResults(req.NResults)
	if err != nil {
		return nil, err
	}
	var f Filter
	if f.Namespaces, err = optionalNamespace(req.Namespace); err != nil {
		return nil, err
	}
	found, err := s.search(ctx, query, f, n)
	if err != nil {
		return nil, err
	}
	out := make([]*Memory, len(found.memories))
	for i, m := range found.memories {
		out[i] = m.Memory
	}
	return out, nil
}
