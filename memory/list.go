package memory

import (
	"context"
	"fmt"
)

// DefaultListLimit is the page size of List when none is given.
const DefaultListLimit = 100

// List returns one page of memories, filtered by namespace and type, ordered
// by OrderBy (default created_at, descending by default), with the total count
// of matching memories so callers can page.
func (s *Service) List(ctx context.Context, req ListRequest) (*ListResult, error) {
	q, err := parseList(ctx, req)
	if err != nil {
		return nil, err
	}
	total, err := s.store.CountMemories(ctx, q.Filter)
	if err != nil {
		return nil, fmt.Errorf("counting memories: %w", err)
	}
	ms, err := s.store.ListMemories(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("listing memories: %w", err)
	}
	if ms == nil {
		ms = []*Memory{}
	}
	return &ListResult{
		Memories: ms,
		Count:    len(ms),
		Total:    total,
		Limit:    q.Limit,
		Offset:   q.Offset,
		HasMore:  q.Offset+len(ms) < total,
	}, nil
}

func parseList(ctx context.Context, req ListRequest) (ListQuery, error) {
	var q ListQuery
	var err error
	if q.Namespaces, err = optionalNamespace(ctx, req.Namespace); err != nil {
		return q, err
	}
	if q.Types, err = optionalType(req.Type); err != nil {
		return q, err
	}
	q.IncludeSuperseded = req.IncludeSuperseded
	q.Bounds = req.Bounds
	if q.Limit, err = intInRange("limit", req.Limit, DefaultListLimit, 1, MaxListLimit); err != nil {
		return q, err
	}
	if req.Offset < 0 {
		return q, Invalidf("offset", req.Offset, "an integer of 0 or more")
	}
	q.Offset = req.Offset
	q.OrderBy = OrderCreatedAt
	if req.OrderBy != "" {
		if q.OrderBy, err = ParseOrderBy(req.OrderBy); err != nil {
			return q, err
		}
	}
	q.Descending = req.Descending == nil || *req.Descending
	return q, nil
}

// Count counts memories by namespace and type (either may be empty: any).
// Superseded memories are counted too: they are still stored.
func (s *Service) Count(ctx context.Context, req CountRequest) (int, error) {
	var f Filter
	var err error
	if f.Namespaces, err = optionalNamespace(ctx, req.Namespace); err != nil {
		return 0, err
	}
	if f.Types, err = optionalType(req.Type); err != nil {
		return 0, err
	}
	f.IncludeSuperseded = true
	n, err := s.store.CountMemories(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("counting memories: %w", err)
	}
	return n, nil
}
