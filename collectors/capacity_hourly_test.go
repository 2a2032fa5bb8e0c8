package collectors

import (
	"reflect"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// TestHourlyHistory: consumed Sums per minute become units per second per
// UTC clock hour, GSIs add to the base table, and the provisioned capacity
// of the what-if's simulation is averaged over the minutes it ran in each
// hour.
func TestHourlyHistory(t *testing.T) {
	start := time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC)
	end := start.Add(150 * time.Minute)
	b := boundsAt(end, 90*day).since(start)
	series := func(v float64) *history {
		h := newHistory(b)
		var ts []time.Time
		var vs []float64
		for at := start; at.Before(end); at = at.Add(time.Minute) {
			if v > 0 {
				ts, vs = append(ts, at), append(vs, v)
			}
		}
		h.apply(fetchWindow{time.Minute, b.b1, end}, pts(ts, vs))
		h.finish(b)
		h.compact(end, peakCandidates(99), start)
		return h
	}
	reads := []*history{series(60), series(30)}
	writes := []*history{series(120), series(0)}
	var runs []*whatIf
	for i, fixed := range [][2]float64{{5, 4}, {2, 1}} {
		w, err := newWhatIf(reads[i], writes[i], start, capacity.Settings{Read: capacity.Provisioning{Fixed: fixed[0]}, Write: capacity.Provisioning{Fixed: fixed[1]}}, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		w.advance(reads[i], writes[i], end)
		runs = append(runs, w)
	}
	h := hourlyHistory(end, start, reads, writes, runs)
	if !h.Start.Equal(start.Truncate(time.Hour)) {
		t.Errorf("start %v, want 10:00", h.Start)
	}
	// 10:30–13:00: hours 10, 11 and 12.
	if want := []float64{1.5, 1.5, 1.5}; !reflect.DeepEqual(h.ConsumedRead, want) {
		t.Errorf("consumed read %v, want %v (1 + 0.5 units/s)", h.ConsumedRead, want)
	}
	if want := []float64{2, 2, 2}; !reflect.DeepEqual(h.ConsumedWrite, want) {
		t.Errorf("consumed write %v, want %v", h.ConsumedWrite, want)
	}
	if want := []float64{7, 7, 7}; !reflect.DeepEqual(h.ProvisionedRead, want) {
		t.Errorf("provisioned read %v, want %v (5 + 2, from 10:30)", h.ProvisionedRead, want)
	}
	if want := []float64{5, 5, 5}; !reflect.DeepEqual(h.ProvisionedWrite, want) {
		t.Errorf("provisioned write %v, want %v", h.ProvisionedWrite, want)
	}
	// A chart of a 90-day-old table keeps the last 30 days.
	if long := hourlyHistory(end, end.Add(-90*day), reads, writes, runs); len(long.ConsumedRead) != chartHours || !long.Start.Equal(ceilHour(end).Add(-chartHours*time.Hour)) {
		t.Errorf("90 days: %d hours from %v, want %d", len(long.ConsumedRead), long.Start, chartHours)
	}
}

// TestFirstActive: the what-if starts at the first minute with consumption
// in either series, found in the 5-minute and minute tiers alike; without any, it
// starts where it was asked; an idle stretch after the first data does not
// move it.
func TestFirstActive(t *testing.T) {
	end := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	b := boundsAt(end, 90*day)
	from := whatIfStart(end)
	series := func(period time.Duration, at ...time.Time) *history {
		h := newHistory(b)
		var vs []float64
		for range at {
			vs = append(vs, 600)
		}
		lo := b.h0
		switch period {
		case 5 * time.Minute:
			lo = b.b5
		case time.Minute:
			lo = b.b1
		}
		hi := b.b5
		switch period {
		case 5 * time.Minute:
			hi = b.b1
		case time.Minute:
			hi = end
		}
		h.apply(fetchWindow{period, lo, hi}, pts(at, vs))
		h.finish(b)
		return h
	}
	none := series(time.Minute)
	if got := firstActive(none, none, from, end); !got.Equal(from) {
		t.Errorf("no data: %v, want %v", got, from)
	}
	// Reads start in a period of the 5-minute tier 20 days back (spread
	// over its minutes); writes only in the minute tier, idle days between.
	hour := end.Add(-20 * day).Truncate(time.Hour).Add(5*time.Hour + 35*time.Minute)
	minute := end.Add(-30 * time.Minute)
	if hour.Before(b.b5) || !hour.Before(b.b1) || minute.Before(b.b1) {
		t.Fatalf("tiers %+v: the test's instants are not in the tiers it means", b)
	}
	reads, writes := series(5*time.Minute, hour), series(time.Minute, minute)
	if got := firstActive(reads, writes, from, end); !got.Equal(hour) {
		t.Errorf("reads from %v: %v", hour, got)
	}
	if got := firstActive(none, writes, from, end); !got.Equal(minute) {
		t.Errorf("writes from %v: %v", minute, got)
	}
	if got := firstActive(reads, writes, hour.Add(time.Hour), end); !got.Equal(minute) {
		t.Errorf("asked after the read hour: %v, want %v", got, minute)
	}
}
