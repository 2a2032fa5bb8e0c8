package awssim

import (
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// RewriteItemsAt rewrites, at time at, the items of table in region that
// existed then: written at or before at and not deleted by TTL by then. f
// gets a copy of each item and returns its new version, or false to leave
// it alone; the new version must keep the item's primary key. A rewritten
// item counts as written at at, as after an UpdateItem, so the TTL process
// judges it by its new value from then on. It returns how many items were
// rewritten. Validation is that of PutItems; on an invalid item nothing
// further is rewritten and the error names the item's position, never a
// value.
//
// The table is settled up to at (or the server clock, if earlier) only:
// deletions due after at are applied later, so a rewrite at a time in the
// past sees the items that existed then, provided nothing settled the table
// beyond at before (WriteItemsAt settles only up to its earliest write).
func (s *Server) RewriteItemsAt(region, table string, at time.Time, f func(map[string]types.AttributeValue) (map[string]types.AttributeValue, bool)) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, false)
	if t == nil {
		return 0, fmt.Errorf("awssim: rewrite items: table %s not found in %s", table, region)
	}
	at = at.UTC()
	s.settleTable(region, t, minTime(at, s.now()))
	if ti == nil {
		return 0, nil
	}
	entries := slices.Clone(ti.sorted())
	n := 0
	for i, e := range entries {
		if e.written.After(at) {
			continue
		}
		out, ok := f(itemToSDK(e.item))
		if !ok {
			continue
		}
		it, size, err := prepareItem(ti.schema, itemFromSDKRaw(out))
		if err != nil {
			return n, fmt.Errorf("awssim: rewrite items of %s: item %d: %w", table, i, err)
		}
		if ti.schema.keyOf(it).id != e.key.id {
			return n, fmt.Errorf("awssim: rewrite items of %s: item %d: the rewrite changed the primary key", table, i)
		}
		s.writeItem(t, ti, it, size, at)
		n++
	}
	return n, nil
}

// minTime returns the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
