package collectors

import (
	"testing"
	"time"
)

// TestForecastCountsOnlyExpiriesSeenHalfARetentionAhead: a sample counts
// the live items that expire at least half the table's retention (its
// longest remaining lifetime) ahead, scaled to the table; the count becomes
// due as their time passes; a later sample overwrites only the bins at
// least its own lead ahead, and nothing beyond ForecastHorizon is kept.
func TestForecastCountsOnlyExpiriesSeenHalfARetentionAhead(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC) // on a bin boundary
	h := time.Hour.Seconds()
	var f forecast
	// Retention 6h: lead 3h. The 1h and 2h items are too near to count;
	// 4h, 5h and 6h count, each for 2 items of the table.
	f.update(t0, []float64{1 * h, 2 * h, 4 * h, 5 * h, 6 * h}, 2)
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{3 * time.Hour, 0}, {4 * time.Hour, 0}, {4*time.Hour + ForecastBin, 2}, {5*time.Hour + ForecastBin, 4}, {7 * time.Hour, 6}} {
		g := f
		g.bins = append([]float32(nil), f.bins...)
		g.advance(t0.Add(c.at))
		if g.due != c.want {
			t.Errorf("due at +%s = %v, want %v", c.at, g.due, c.want)
		}
	}

	// An hour later a sample sees 3 items expiring at +5h (two more were
	// written), the +4h one, and one expiring at +7h; the +6h item is gone
	// (deleted by the application). Its lead is 3h too: every bin from +4h
	// takes its figures, the +6h bin included.
	f.update(t0.Add(time.Hour), []float64{3 * h, 4 * h, 4 * h, 4 * h, 6 * h}, 2)
	f.advance(t0.Add(8 * time.Hour))
	if f.due != 10 {
		t.Errorf("due at +8h after two samples = %v, want 10 (2 at +4h, 6 at +5h, 0 at +6h, 2 at +7h)", f.due)
	}
}

// TestForecastNeverCountsARetentionBug: on a table keeping items 30 days,
// items written with 30 minutes to live are never seen half a retention
// ahead, and a 30-day retention is beyond the horizon: nothing is ever due.
func TestForecastNeverCountsARetentionBug(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var f forecast
	for i := range 48 {
		now := t0.Add(time.Duration(i) * time.Hour)
		f.update(now, []float64{1800, 900, 30 * 86400, 29 * 86400}, 10)
	}
	f.advance(t0.Add(72 * time.Hour))
	if f.due != 0 {
		t.Errorf("due = %v, want 0", f.due)
	}
	if len(f.bins) != 0 {
		t.Errorf("%d bins kept, want none", len(f.bins))
	}
}

// TestForecastKeepsAtMostTheHorizon: a short-retention table keeps bins
// only up to ForecastHorizon ahead, whatever it samples.
func TestForecastKeepsAtMostTheHorizon(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var f forecast
	for i := range 100 {
		f.update(t0.Add(time.Duration(i)*time.Hour), []float64{3600, 2 * 86400, 86400}, 1)
	}
	if max := int(ForecastHorizon/ForecastBin) + 1; len(f.bins) > max {
		t.Errorf("%d bins kept, want at most %d", len(f.bins), max)
	}
}
