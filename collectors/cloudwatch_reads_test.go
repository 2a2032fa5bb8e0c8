package collectors

import (
	"testing"
	"time"
)

// TestMinuteReadsActAsAMap: a counter's minutes of its revision window, a
// slice, answer as the map they replace did: a minute is found by ==, set
// replaces, from keeps the minutes not before a time in a slice of their
// own size that is not nil even when empty (nil means never read).
func TestMinuteReadsActAsAMap(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var r minuteReads
	if _, had := r.get(t0); had || r != nil {
		t.Fatal("an empty history holds a minute")
	}
	r = minuteReads{}
	for i := range 12 {
		r.set(t0.Add(time.Duration(i)*time.Minute), minuteRead{counted: float64(i), answered: float64(i)})
	}
	r.set(t0.Add(3*time.Minute), minuteRead{counted: 3, answered: 2.5})
	if m, had := r.get(t0.Add(3 * time.Minute)); !had || m.counted != 3 || m.answered != 2.5 {
		t.Errorf("minute 3: %+v, %v; want counted 3, answered 2.5", m, had)
	}
	if len(r) != 12 {
		t.Errorf("%d minutes held, want 12", len(r))
	}
	kept := r.from(t0.Add(7 * time.Minute))
	if len(kept) != 5 || cap(kept) != 5 || !kept[0].t.time().Equal(t0.Add(7*time.Minute)) {
		t.Errorf("from minute 7: %d minutes (room for %d), first %v; want 5 from minute 7", len(kept), cap(kept), kept[0].t.time())
	}
	if _, had := kept.get(t0.Add(6 * time.Minute)); had {
		t.Error("minute 6 kept")
	}
	if none := r.from(t0.Add(time.Hour)); none == nil || len(none) != 0 {
		t.Errorf("from after every minute: %v, want empty and not nil", none)
	}
}
