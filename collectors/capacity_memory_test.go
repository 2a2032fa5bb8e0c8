package collectors

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// seriesBudget is the memory the capacity collector may keep per series
// (table or GSI, read or write) of a table 90 days old: its history, its
// share of the what-if's state: 6,000 series (1,000 tables with 2 GSIs) at
// this budget hold 98 MB. Measured: about 14.2 KB (5.5 KB of hourly Sums:
// the 12 weeks the figures read for a read series, the 31 days read apart
// for a write series, whose older hours its read series holds merged; 4.5
// KB of 7-day peak candidates at 6 bytes each, without spare capacity
// between cycles, 3 KB of the what-if's hourly capacity for 30 days, 1 KB
// of its throttled hours, its state); it was 17.2 KB with 12 weeks of
// hourly Sums in every series, 20.8 KB with 90 days and 8-byte peak
// candidates.
const seriesBudget = 16 << 10

// TestHistoryBytesPerSeries measures the heap the collector keeps for 20
// tables with 2 GSIs, 120 days old, after the first cycle (90 days
// fetched) and a day of hourly cycles: at most seriesBudget per series.
// The three tiers it kept before held about 150 KB per series.
func TestHistoryBytesPerSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 90 days of history for 120 series")
	}
	var tables []*Table
	for i := range 20 {
		tables = append(tables, benchTable(fmt.Sprintf("t%02d", i)))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, target, st := benchCollector(t, tables...)
	for k := 1; k <= 24; k++ {
		benchCycle(t, c, target, st, benchEnd.Add(time.Duration(k)*time.Hour), tables...)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	series := 6 * len(tables)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(series)
	var peaks, hours, tail, capPeaks, capHours int
	for k, h := range st.hist {
		peaks, hours, tail = peaks+len(h.peaks.v), hours+len(h.hours), tail+len(h.tail)
		capPeaks, capHours = capPeaks+cap(h.peaks.v), capHours+cap(h.hours)
		if cap(h.peaks.v) > len(h.peaks.v)+8 || cap(h.peaks.at) > len(h.peaks.at)+8 {
			t.Errorf("%v: room for %d and %d peak candidates beyond its %d after a cycle", k, cap(h.peaks.v)-len(h.peaks.v), cap(h.peaks.at)-len(h.peaks.at), len(h.peaks.v))
		}
	}
	t.Logf("capacities: %d peaks, %d hours", capPeaks/series, capHours/series)
	var units, events int
	for _, w := range st.whatIf {
		for _, d := range w.dims {
			units, events = units+len(d.units), events+len(d.events)
		}
	}
	t.Logf("what-if per series: %d hours, %d hours with throttling", units/series, events/series)
	t.Logf("%d bytes per series (%d series); per series %d hours, %d tail minutes, %d peak candidates", per, series, hours/series, tail/series, peaks/series)
	if per > seriesBudget {
		t.Errorf("the collector keeps %d bytes per series, budget %d", per, seriesBudget)
	}
	runtime.KeepAlive(st)
	runtime.KeepAlive(c)
	runtime.KeepAlive(target)
}
