package journal

// InOrder gives the entries of found in the order of ids, leaving out the ids
// found has no entry for: how a store answers a lookup of entries by id.
func InOrder(ids []int64, found []*Entry) []*Entry {
	byID := make(map[int64]*Entry, len(found))
	for _, e := range found {
		byID[e.ID] = e
	}
	out := make([]*Entry, 0, len(found))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		}
	}
	return out
}
