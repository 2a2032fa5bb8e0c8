package awssim

import (
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemEntry is one stored item.
type itemEntry struct {
	key     primaryKey
	item    item
	size    int64
	written time.Time // server clock when the item was last written
}

// tableItems holds the items of one table. It is guarded by Server.mu.
type tableItems struct {
	schema keySchema
	byID   map[string]*itemEntry
	order  []*itemEntry // byID sorted by compareKeys; nil when stale
	bytes  int64

	stats *tableStats // DescribeTable's periodically refreshed counts
	sweep sweepState  // when the next TTL deletion is due
}

func newTableItems(ks keySchema) *tableItems {
	return &tableItems{schema: ks, byID: make(map[string]*itemEntry)}
}

// sorted returns the entries in scan order, sorting them again after
// writes.
func (ti *tableItems) sorted() []*itemEntry {
	if ti.order == nil {
		ti.order = make([]*itemEntry, 0, len(ti.byID))
		for _, e := range ti.byID {
			ti.order = append(ti.order, e)
		}
		slices.SortFunc(ti.order, func(a, b *itemEntry) int { return compareKeys(a.key, b.key) })
	}
	return ti.order
}

// put stores e, returning the entry it replaced (or nil).
func (ti *tableItems) put(e *itemEntry) *itemEntry {
	old := ti.byID[e.key.id]
	if old != nil {
		ti.bytes -= old.size
	}
	ti.byID[e.key.id] = e
	ti.bytes += e.size
	ti.order = nil
	return old
}

// remove deletes the entry with id, returning it (or nil).
func (ti *tableItems) remove(id string) *itemEntry {
	old := ti.byID[id]
	if old == nil {
		return nil
	}
	delete(ti.byID, id)
	ti.bytes -= old.size
	ti.order = nil
	return old
}

// tableData returns table name of region and its item store, s.mu held. The
// store is created when create is set; otherwise it may be nil. A store
// whose key schema no longer matches the table is dropped.
func (s *Server) tableData(region, name string, create bool) (*Table, *tableItems) {
	r := s.regions[region]
	if r == nil || r.tables[name] == nil {
		return nil, nil
	}
	t := r.tables[name]
	ks := schemaOf(t)
	ti := r.items[name]
	if ti != nil && ti.schema != ks {
		delete(r.items, name)
		ti = nil
	}
	if ti == nil && create {
		ti = newTableItems(ks)
		r.items[name] = ti
	}
	return t, ti
}

// writeItem stores a validated item in ti at now and returns the entry it
// replaced. s.mu must be held and the table settled.
func (s *Server) writeItem(t *Table, ti *tableItems, it item, size int64, now time.Time) *itemEntry {
	e := &itemEntry{key: ti.schema.keyOf(it), item: it, size: size, written: now}
	old := ti.put(e)
	s.noteWrite(t, ti, e)
	return old
}

// prepareItem validates an item for writing into a table with schema ks and
// returns it normalised with its size.
func prepareItem(ks keySchema, it item) (item, int64, error) {
	it, err := normalizeItem(it)
	if err != nil {
		return nil, 0, err
	}
	if err := ks.checkItemKey(it); err != nil {
		return nil, 0, err
	}
	size := itemSize(it)
	if err := checkItemSize(size); err != nil {
		return nil, 0, err
	}
	return it, size, nil
}

// PutItems stores items in table of region as PutItem does (replacing any
// item with the same primary key), without HTTP, so tests and scenarios can
// load data fast. Items are validated like PutItem (key attributes and
// types, Number syntax and limits, sets, the 400 KB limit) and written
// all-or-nothing, with the server clock as their write time. The error
// names the item's position and the attribute, never a value.
func (s *Server) PutItems(region, table string, items []map[string]types.AttributeValue) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, true)
	if t == nil {
		return fmt.Errorf("awssim: put items: table %s not found in %s", table, region)
	}
	now := s.now()
	s.settleTable(region, t, now)
	type prepared struct {
		it   item
		size int64
	}
	ready := make([]prepared, len(items))
	for i, in := range items {
		it, size, err := prepareItem(ti.schema, itemFromSDKRaw(in))
		if err != nil {
			return fmt.Errorf("awssim: put items into %s: item %d: %w", table, i, err)
		}
		ready[i] = prepared{it, size}
	}
	for _, p := range ready {
		s.writeItem(t, ti, p.it, p.size, now)
	}
	return nil
}

// Item returns a copy of the item of table in region with the given primary
// key, and whether it exists. The key must hold exactly the key attributes.
func (s *Server) Item(region, table string, key map[string]types.AttributeValue) (map[string]types.AttributeValue, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, false)
	if t == nil {
		return nil, false, fmt.Errorf("awssim: get item: table %s not found in %s", table, region)
	}
	s.settleTable(region, t, s.now())
	k, err := schemaOf(t).checkKey(itemFromSDKRaw(key), false)
	if err != nil {
		return nil, false, fmt.Errorf("awssim: get item from %s: %w", table, err)
	}
	if ti == nil {
		return nil, false, nil
	}
	e := ti.byID[ti.schema.keyOf(k).id]
	if e == nil {
		return nil, false, nil
	}
	return itemToSDK(e.item), true, nil
}

// DeleteItems removes the items of table in region with the given primary
// keys and returns how many existed. Deleting directly is not a TTL
// deletion: no metric is published.
func (s *Server) DeleteItems(region, table string, keys []map[string]types.AttributeValue) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, false)
	if t == nil {
		return 0, fmt.Errorf("awssim: delete items: table %s not found in %s", table, region)
	}
	s.settleTable(region, t, s.now())
	ks := schemaOf(t)
	ids := make([]string, len(keys))
	for i, key := range keys {
		k, err := ks.checkKey(itemFromSDKRaw(key), false)
		if err != nil {
			return 0, fmt.Errorf("awssim: delete items from %s: key %d: %w", table, i, err)
		}
		ids[i] = ks.keyOf(k).id
	}
	if ti == nil {
		return 0, nil
	}
	n := 0
	for _, id := range ids {
		if ti.remove(id) != nil {
			n++
		}
	}
	return n, nil
}

// Items returns copies of every item of table in region, in the order a
// Scan without segments returns them.
func (s *Server) Items(region, table string) ([]map[string]types.AttributeValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, false)
	if t == nil {
		return nil, fmt.Errorf("awssim: items: table %s not found in %s", table, region)
	}
	s.settleTable(region, t, s.now())
	if ti == nil {
		return nil, nil
	}
	order := ti.sorted()
	out := make([]map[string]types.AttributeValue, len(order))
	for i, e := range order {
		out[i] = itemToSDK(e.item)
	}
	return out, nil
}

// ItemStats returns the live number of items of table in region and their
// total size in bytes (see ItemSize), after applying due TTL deletions.
// DescribeTable answers the same figures only as of its last periodic
// refresh (see RefreshTableStats).
func (s *Server) ItemStats(region, table string) (count, bytes int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, false)
	if t == nil {
		return 0, 0, fmt.Errorf("awssim: item stats: table %s not found in %s", table, region)
	}
	s.settleTable(region, t, s.now())
	if ti == nil {
		return 0, 0, nil
	}
	return int64(len(ti.byID)), ti.bytes, nil
}

// itemFromSDKRaw converts an SDK item without validating it.
func itemFromSDKRaw(in map[string]types.AttributeValue) item {
	it := make(item, len(in))
	for k, v := range in {
		it[k] = fromSDK(v)
	}
	return it
}
