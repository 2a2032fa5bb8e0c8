package awssim

import (
	"fmt"
	"time"
)

// tableStatsInterval is how often DynamoDB refreshes a table's ItemCount
// and TableSizeBytes: "approximately every six hours" (DescribeTable API
// reference). The simulator refreshes them at the 6-hour boundaries of the
// simulated clock (00:00, 06:00, 12:00 and 18:00 UTC).
const tableStatsInterval = 6 * time.Hour

// tableStats is the ItemCount and TableSizeBytes DescribeTable reports.
type tableStats struct {
	at           time.Time // the refresh boundary they belong to
	count, bytes int64
}

// reportedCounts is the ItemCount and TableSizeBytes that DescribeTable
// answers for t at now. A table that never stored an item answers its
// configured Table.ItemCount and Table.SizeBytes. Otherwise the figures are
// those of the stored items, recomputed at most once per 6-hour window: the
// first request after a boundary takes them from the items as they are then
// (the simulator keeps no history to compute them as of the boundary
// itself). s.mu must be held.
func (s *Server) reportedCounts(region string, t *Table, now time.Time) (count, bytes int64) {
	_, ti := s.tableData(region, t.Name, false)
	if ti == nil {
		return t.ItemCount, t.SizeBytes
	}
	boundary := now.Truncate(tableStatsInterval)
	if ti.stats == nil || ti.stats.at.Before(boundary) {
		s.settleTable(region, t, now)
		ti.stats = &tableStats{at: boundary, count: int64(len(ti.byID)), bytes: ti.bytes}
	}
	return ti.stats.count, ti.stats.bytes
}

// RefreshTableStats makes DescribeTable's ItemCount and TableSizeBytes of
// table in region reflect its stored items now, as if DynamoDB's periodic
// refresh had just run. Without it they change only at the next 6-hour
// boundary of the server clock. From then on the table's figures come from
// its items even if it holds none. It fails if the table does not exist.
func (s *Server) RefreshTableStats(region, table string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti := s.tableData(region, table, true)
	if t == nil {
		return fmt.Errorf("awssim: refresh table stats: table %s not found in %s", table, region)
	}
	now := s.now()
	s.settleTable(region, t, now)
	ti.stats = &tableStats{at: now.Truncate(tableStatsInterval), count: int64(len(ti.byID)), bytes: ti.bytes}
	return nil
}
