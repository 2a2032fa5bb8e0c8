package collectors

import (
	"math"
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
	f := forecast{seeded: true} // a sample before: the lead applies
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
// items written with 30 minutes to live are never seen a day (the lead,
// half the horizon, under half the 30-day retention) ahead: once the
// first sample's items (written before the exporter started, 10 items of
// the table each) have come due, nothing more is.
func TestForecastNeverCountsARetentionBug(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var f forecast
	for i := range 48 {
		now := t0.Add(time.Duration(i) * time.Hour)
		f.update(now, []float64{1800, 900, 30 * 86400, 29 * 86400}, 10)
		if i == 0 {
			continue
		}
		if f.due != 20 {
			t.Fatalf("due at +%dh = %v, want 20 (the first sample's two short-lived items)", i, f.due)
		}
	}
	f.advance(t0.Add(72 * time.Hour))
	if f.due != 20 {
		t.Errorf("due = %v, want 20", f.due)
	}
}

// TestForecastFirstSampleForeseesEverything: the first sample counts every
// live item it reads up to the horizon, however near its expiry (a
// 9-day-old batch of vouchers expiring 20 minutes after the exporter
// starts); a later sample overwrites only the bins at least its lead
// ahead, and a day is the longest lead (a 10-day retention).
func TestForecastFirstSampleForeseesEverything(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	h := time.Hour.Seconds()
	var f forecast
	f.update(t0, []float64{20 * 60, 40 * 60, 30 * h, 240 * h}, 100)
	f.advance(t0.Add(time.Hour))
	if f.due != 200 {
		t.Errorf("due an hour after the first sample = %v, want 200 (the two items expiring within it)", f.due)
	}
	// The next sample reads a new item expiring in 2h (written after the
	// exporter started with a lifetime cut short: not counted) and one
	// expiring in 26h (at least the day's lead ahead: counted), while the
	// 30h item is still there.
	f.update(t0.Add(time.Hour), []float64{2 * h, 26 * h, 29 * h, 239 * h}, 100)
	f.advance(t0.Add(40 * time.Hour))
	if f.due != 400 {
		t.Errorf("due at +40h = %v, want 400 (the first sample's two, then the 26h and 30h items, not the 2h one)", f.due)
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

// TestExpiryRateReadsWholeDaysOfSampledExpiries pins expiryRateOf's rule:
// the sampled live expiries within the fewest whole days holding
// ExpiryRateItems of them, scaled, over those days; the whole span to the
// latest expiry when every item expires sooner; under ExpiryRateMinItems
// within the 30-day cap, those few over 30 days (none: zero); nothing for
// a sample of fewer than ExpiryRateMinItems live items.
func TestExpiryRateReadsWholeDaysOfSampledExpiries(t *testing.T) {
	const day = 86400.0
	spread := func(n int, over float64) []float64 { // n expiries evenly over (0, over]
		out := make([]float64, n)
		for i := range out {
			out[i] = over * float64(i+1) / float64(n)
		}
		return out
	}
	cases := []struct {
		name      string
		remaining []float64
		scale     float64
		want      float64
		ok        bool
	}{
		// 90-day retention, 20 sampled items a day: 100 are reached on the
		// 5th day, 100 items standing for 50 each over 5 days.
		{"thin sample, long retention", spread(1800, 90*day), 50, 100 * 50 / (5 * day), true},
		// 300 sampled items a day: the first day holds 100 or more.
		{"dense sample", spread(900, 3*day), 10, 300 * 10 / day, true},
		// Every item expires within 6 hours: all 60 over the 6 hours.
		{"retention under a day", spread(60, 6*3600), 4, 60.0 * 4 / (6 * 3600), true},
		// 40 items over 60 days: 20 within the 30-day cap, under the
		// minimum: those 20 over the 30 days.
		{"few within the cap", spread(40, 60*day), 100, 20 * 100 / (30 * day), true},
		// 1,500 items, all expiring in 76 to 90 days: none within the
		// cap, a steady expiry rate of zero.
		{"none within the cap", func() []float64 {
			out := spread(1500, 14*day)
			for i := range out {
				out[i] += 76 * day
			}
			return out
		}(), 75, 0, true},
		// A sample of 29 live items says nothing.
		{"too few live items", spread(29, 60*day), 100, 0, false},
		// 80 items over 60 days: 40 within 30 days, above the minimum.
		{"thin, at the cap", spread(80, 60*day), 100, 40 * 100 / (30 * day), true},
		{"no scale", spread(200, day), 0, 0, false},
	}
	for _, c := range cases {
		got, ok := expiryRateOf(c.remaining, c.scale)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s: expiryRateOf = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	// The input is left as it was (the sample's order is kept).
	in := []float64{3 * day, day / 2, 2 * day}
	in = append(in, spread(40, day)...)
	first := in[0]
	expiryRateOf(in, 1)
	if in[0] != first {
		t.Errorf("expiryRateOf reordered its input")
	}
}
