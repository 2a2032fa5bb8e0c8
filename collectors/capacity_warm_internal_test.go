package collectors

import (
	"math"
	"testing"
	"time"
)

// TestPeak30d: the highest minute of the last 7 days (a Sum of 600 units
// in a minute: 10 units/s) against the highest hour before them (an hour
// of 90,000 units: 25 units/s), and an empty history.
func TestPeak30d(t *testing.T) {
	end := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	b := boundsAt(end, 30*day)
	h := newHistory(b)
	minutes := make([]time.Time, 0, 3)
	vs := []float64{60, 600, 120}
	for i := range vs {
		minutes = append(minutes, end.Add(-2*day+time.Duration(i)*time.Minute))
	}
	h.apply(fetchWindow{start: end.Add(-2 * day), end: end.Add(-2*day + 3*time.Minute), period: time.Minute}, minutes, vs)
	if got := peak30d(h, end); got != 10 {
		t.Fatalf("7-day peak: got %v units/s, want 10", got)
	}
	old := end.Add(-20 * day)
	h.apply(fetchWindow{start: old, end: old.Add(time.Hour), period: time.Hour}, []time.Time{old}, []float64{90000})
	if got := peak30d(h, end); got != 25 {
		t.Fatalf("with an older busy hour: got %v units/s, want 25", got)
	}
	if got := peak30d(nil, end); !math.IsNaN(got) {
		t.Fatalf("no history: got %v, want NaN", got)
	}
}
