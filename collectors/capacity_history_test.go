package collectors

import (
	"math"
	"testing"
	"time"
)

// TestHistoryRollKeepsTotals checks that moving the tier boundaries folds
// minutes into 5-minute Sums and those into hours without losing a unit,
// and that a refresh only asks for the minutes since the last one held.
func TestHistoryRollKeepsTotals(t *testing.T) {
	end := time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)
	b := boundsAt(end, 90*day)
	h := newHistory(b)
	for _, w := range windowsFor(nil, b, time.Time{}) {
		var ts []time.Time
		var vs []float64
		for at := w.start; at.Before(w.end); at = at.Add(w.period) {
			ts = append(ts, at)
			vs = append(vs, float64(w.period/time.Minute)) // one unit a minute
		}
		h.apply(w, ts, vs)
	}
	h.finish(b)
	total := func() float64 { return h.sum(b.h0, b.end) }
	want := b.end.Sub(b.h0).Minutes()
	if got := total(); got != want {
		t.Fatalf("total %v, want %v", got, want)
	}
	for step := 1; step <= 30; step++ {
		end = end.Add(2 * time.Hour)
		nb := boundsAt(end, 90*day)
		if !h.roll(nb) {
			t.Fatalf("step %d: roll refused", step)
		}
		ws := windowsFor(h, nb, time.Time{})
		if len(ws) != 1 || ws[0].period != time.Minute || !ws[0].start.Equal(b.end.Add(-lateDataOverlap)) || !ws[0].end.Equal(nb.end) {
			t.Fatalf("step %d: refresh windows %+v, want one 1-minute window from %s", step, ws, b.end.Add(-lateDataOverlap))
		}
		var ts []time.Time
		var vs []float64
		for at := ws[0].start; at.Before(ws[0].end); at = at.Add(time.Minute) {
			ts, vs = append(ts, at), append(vs, 1)
		}
		h.apply(ws[0], ts, vs)
		h.finish(nb)
		b = nb
		if got, want := h.sum(b.h0, b.end), b.end.Sub(b.h0).Minutes(); math.Abs(got-want) > 1e-6 {
			t.Fatalf("step %d: total %v, want %v", step, got, want)
		}
		if !h.minute.start.Equal(b.b1) || !h.five.start.Equal(b.b5) || !h.hour.start.Equal(b.h0) || !h.minute.end().Equal(b.end) {
			t.Fatalf("step %d: tiers misaligned", step)
		}
	}
	if n := len(h.minute.v) + len(h.five.v) + len(h.hour.v); n > 15*1440+48*288+27*24+60 {
		t.Errorf("history holds %d points, more than the tiers allow", n)
	}
	// Away longer than CloudWatch keeps minutes: the history is refetched.
	if h.roll(boundsAt(end.Add(16*day), 90*day)) {
		t.Error("roll accepted a gap longer than the 1-minute retention")
	}
}

func TestBatchQueriesPacksByPoints(t *testing.T) {
	end := time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)
	b := boundsAt(end, 90*day)
	var qs []historyQuery
	for i := range 600 {
		for _, w := range windowsFor(nil, b, time.Time{}) {
			qs = append(qs, historyQuery{historyKey{table: string(rune('a' + i%26)), index: string(rune('a' + i/26))}, w})
		}
	}
	for _, batch := range batchQueries(qs) {
		if len(batch) > MaxQueriesPerRequest || len(batch)*batch[0].w.points() > MaxDatapointsPerRequest {
			t.Fatalf("batch of %d queries x %d points exceeds a page", len(batch), batch[0].w.points())
		}
	}
	if c := costOf(qs); c.Requests != 240 || c.Metrics != 1800 {
		t.Errorf("cost %+v, want 240 requests, 1800 metrics", c)
	}
}

func TestPeakToAverageAndMedian(t *testing.T) {
	vs := make([]float64, 100)
	for i := range vs {
		vs[i] = 1
	}
	vs[99], vs[98] = 100, 100
	if got := peakToAverage(vs, 99); math.Abs(got-100/2.98) > 1e-12 {
		t.Errorf("peak-to-average %v, want %v", got, 100/2.98)
	}
	if !math.IsNaN(peakToAverage(make([]float64, 10), 99)) {
		t.Error("peak-to-average of zeros is not NaN")
	}
	if m := median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median %v, want 2.5", m)
	}
}
