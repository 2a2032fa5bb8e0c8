package collectors

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestHistoryRollKeepsTotals checks that compacting a fetched history and
// folding the settled minutes into hours loses no unit, and that a refresh
// only asks for the minutes since the last one held.
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
		h.apply(w, pts(ts, vs))
	}
	h.finish(b)
	total := func() float64 { return h.sum(b.h0, b.end) }
	want := b.end.Sub(b.h0).Minutes()
	if got := total(); got != want {
		t.Fatalf("total %v, want %v", got, want)
	}
	h.compact(b.end, peakCandidates(99), time.Time{})
	if got := total(); got != want {
		t.Fatalf("compacted: total %v, want %v", got, want)
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
		h.apply(ws[0], pts(ts, vs))
		h.finish(nb)
		h.settle(nb.end)
		b = nb
		if got, want := h.sum(b.h0, b.end), b.end.Sub(b.h0).Minutes(); math.Abs(got-want) > 1e-6 {
			t.Fatalf("step %d: total %v, want %v", step, got, want)
		}
		if !h.h0.Equal(b.h0) || !h.end().Equal(b.end) || !h.tail0.Equal(settledAt(b.end).Truncate(time.Hour)) || !h.fed.Equal(settledAt(b.end)) {
			t.Fatalf("step %d: history misaligned: h0 %s tail0 %s fed %s end %s", step, h.h0, h.tail0, h.fed, h.end())
		}
	}
	if n := h.hours.Len() + len(h.tail); n > 90*24+60+5 {
		t.Errorf("history holds %d points, more than 90 days of hours and the current hour", n)
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
	// 188 requests: hourly Sums up to the what-if's start (hourlyUntil),
	// 5-minute ones for the 16 days after; 240 when the 5-minute Sums
	// reached back 63 days.
	if c := costOf(qs); c.Requests != 188 || c.Metrics != 1800 {
		t.Errorf("cost %+v, want 188 requests, 1800 metrics", c)
	}
}

// TestFetchOrderHoldsFewTablesHalfFetched: applied in the order the fetch
// sends them (one worker), the requests of 100 tables with 2 GSIs each
// over 90 days keep at most 2 tables with minutes held and not yet
// complete (derived and compacted; 86 KB a series), and at most 4 with
// 5-minute Sums (a 5-minute request reads 21 series, 3.5 tables; 18 KB a
// series), whatever the hourly requests' 12 tables; the order changes no
// request.
func TestFetchOrderHoldsFewTablesHalfFetched(t *testing.T) {
	end := time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)
	b := boundsAt(end, 90*day)
	var qs []historyQuery
	for i := range 100 {
		table := fmt.Sprintf("t%03d", i)
		for _, k := range []historyKey{{table: table, prov: true}, {table: table, prov: true, write: true}} {
			qs = append(qs, historyQuery{k, fetchWindow{time.Hour, b.h0, b.end}})
		}
		for _, idx := range []string{"", "g1", "g2"} {
			for _, write := range []bool{false, true} {
				for _, w := range windowsFor(nil, b, time.Time{}) {
					qs = append(qs, historyQuery{historyKey{table: table, index: idx, write: write}, w})
				}
			}
		}
	}
	batches := batchQueries(qs)
	requests := func() []string {
		var out []string
		for _, b := range batches {
			out = append(out, fmt.Sprint(b))
		}
		sort.Strings(out)
		return out
	}
	before := requests()
	orderBatches(qs, batches)
	if !slices.Equal(requests(), before) {
		t.Fatal("ordering changed the requests")
	}
	left := map[string]int{}
	for _, q := range qs {
		left[q.key.table]++
	}
	held := map[string]bool{}    // tables with a finer tier held, not complete
	minutes := map[string]bool{} // of which with minutes
	most, mostMinutes := 0, 0
	for _, batch := range batches {
		for _, q := range batch {
			if q.w.period < time.Hour {
				held[q.key.table] = true
			}
			if q.w.period == time.Minute {
				minutes[q.key.table] = true
			}
			if left[q.key.table]--; left[q.key.table] == 0 {
				delete(held, q.key.table)
				delete(minutes, q.key.table)
			}
		}
		most, mostMinutes = max(most, len(held)), max(mostMinutes, len(minutes))
	}
	if mostMinutes > 2 || most > 4 {
		t.Errorf("up to %d tables held half fetched, %d of them with minutes; want at most 4 and 2", most, mostMinutes)
	}
	for table, n := range left {
		if n != 0 {
			t.Fatalf("table %s: %d queries never sent", table, n)
		}
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

// A young table's history is laid out from its creation: it holds its own
// minutes, not 90 days of tiers, keeps every unit through the rolls as it
// ages past each tier boundary, and reads the same as a full layout.
func TestHistorySizedByAge(t *testing.T) {
	end := time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)
	created := end.Add(-2*day - 30*time.Minute)
	b := boundsAt(end, 90*day)
	own := b.since(created)
	if !own.h0.Equal(created.Truncate(time.Hour)) || !own.b5.Equal(own.h0) || !own.b1.Equal(own.h0) {
		t.Fatalf("bounds since %s: %+v", created, own)
	}
	young, full := newHistory(own), newHistory(b)
	fill := func(h *history, b bounds, ws []fetchWindow) {
		for _, w := range ws {
			var ts []time.Time
			var vs []float64
			for at := w.start; at.Before(w.end); at = at.Add(w.period) {
				if !at.Before(created) {
					ts, vs = append(ts, at), append(vs, float64(w.period/time.Minute))
				}
			}
			h.apply(w, pts(ts, vs))
		}
		h.finish(b)
	}
	fill(young, own, windowsFor(nil, b, created))
	fill(full, b, windowsFor(nil, b, created))
	if s := young.staged; len(s.hour.v)+len(s.five.v)+len(s.minute.v) > int(end.Sub(created.Truncate(time.Hour)).Minutes()) {
		t.Errorf("a 2-day-old table fetches %d points, want at most its minutes", len(s.hour.v)+len(s.five.v)+len(s.minute.v))
	}
	if s := full.staged; len(s.hour.v)+len(s.five.v)+len(s.minute.v) < 25000 {
		t.Fatalf("full layout holds %d points only", len(s.hour.v)+len(s.five.v)+len(s.minute.v))
	}
	young.compact(end, peakCandidates(99), created)
	full.compact(end, peakCandidates(99), created)
	if n, limit := young.hours.Len()+len(young.tail), int(end.Sub(created.Truncate(time.Hour)).Hours())+65; n > limit {
		t.Errorf("a 2-day-old table holds %d points, want at most %d (its hours)", n, limit)
	}
	// 70 days later (past both tier boundaries), refreshed every 6 hours.
	for step := 1; step <= 280; step++ {
		nb := boundsAt(end.Add(time.Duration(step)*6*time.Hour), 90*day)
		for _, h := range []*history{young, full} {
			if !h.roll(nb) {
				t.Fatalf("step %d: roll refused", step)
			}
			fill(h, nb, windowsFor(h, nb, created))
			h.settle(nb.end)
		}
		if step%40 == 0 || step == 1 {
			want := nb.end.Sub(created).Minutes()
			for name, h := range map[string]*history{"young": young, "full": full} {
				if got := h.sum(nb.h0, nb.end); math.Abs(got-want) > 1e-6 {
					t.Fatalf("step %d: %s total %v, want %v", step, name, got, want)
				}
			}
			a, c := young.perMinute(nb.h0, nb.end), full.perMinute(nb.h0, nb.end)
			for i := range a {
				if a[i] != c[i] {
					t.Fatalf("step %d: minute %d reads %v, full layout %v", step, i, a[i], c[i])
				}
			}
			ha, hc := young.hourly(nb.h0, nb.end.Truncate(time.Hour)), full.hourly(nb.h0, nb.end.Truncate(time.Hour))
			for i := range ha {
				if ha[i] != hc[i] {
					t.Fatalf("step %d: hour %d reads %v, full layout %v", step, i, ha[i], hc[i])
				}
			}
		}
	}
	// A creation before the history, or unknown, changes nothing.
	if got := b.since(time.Time{}); got != b {
		t.Errorf("since(zero) = %+v", got)
	}
	if got := b.since(b.h0.Add(-day)); got != b {
		t.Errorf("since(older) = %+v", got)
	}
}

// TestPeakSetIsExact: the k-th largest minute of any window ending at the
// latest minute, read off the peak candidates, is the k-th largest of all
// the window's minutes, for noisy, falling, rising and flat traffic; and a
// daily cycle keeps a few hundred candidates of a week's 10,080 minutes.
func TestPeakSetIsExact(t *testing.T) {
	const n = 3 * 10080
	shapes := map[string]func(i int) float32{
		"noisy daily": func(i int) float32 {
			return float32(100+80*math.Sin(2*math.Pi*float64(i)/1440)) * (1 + 0.1*float32(uint64(i)*2654435761%1000)/1000)
		},
		"falling": func(i int) float32 { return float32(n - i) },
		"rising":  func(i int) float32 { return float32(i) },
		"flat":    func(int) float32 { return 600 },
		"idle with spikes": func(i int) float32 {
			if i%1440 < 30 {
				return 60000
			}
			return 0
		},
	}
	for name, f := range shapes {
		for _, p := range []float64{99, 95, 100} {
			k := peakCandidates(p)
			ps := peakSet{k: k}
			vs := make([]float32, 0, n)
			most := 0
			for i := range n {
				v := f(i)
				vs = append(vs, v)
				ps.push(int32(i), v)
				ps.prune(int32(i + 1 - 10080))
				most = max(most, len(ps.v))
				if i%3001 != 0 && i != n-1 {
					continue
				}
				for _, w := range []int{10080, 1440, 61} {
					from := max(0, i+1-w)
					window := append([]float64(nil), float64sOf(vs[from:])...)
					want := percentile(window, p)
					got := 0.0
					cands := ps.since(int32(from), nil)
					if r := rankFromTop(len(window), p); r <= len(cands) {
						sort.Slice(cands, func(a, b int) bool { return cands[a] > cands[b] })
						got = float64(cands[r-1])
					}
					if got != want {
						t.Fatalf("%s p%v: minute %d, window %d: candidates give %v, all minutes %v", name, p, i, w, got, want)
					}
				}
			}
			if name == "noisy daily" && p == 99 && most > 1500 {
				t.Errorf("%s: up to %d candidates, want a few hundred", name, most)
			}
		}
	}
}

func float64sOf(vs []float32) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = float64(v)
	}
	return out
}

// pts returns ts and vs as a queryResult, every point with a value kept
// (the consumers drop those outside their window).
func pts(ts []time.Time, vs []float64) queryResult {
	var r queryResult
	for i, at := range ts {
		if i < len(vs) {
			r.ns = append(r.ns, at.UnixNano())
			r.v = append(r.v, float32(vs[i]))
		}
	}
	return r
}

// TestQueryResultKeepsWhatIsStored: a fetched page kept in the compact
// form gives back, for every point inside its window, the same instant and
// a value whose float32 (what every consumer stores) is the one the
// SDK's float64 gives, including values float32 cannot hold exactly,
// sub-second instants and a NaN; points outside the window and a timestamp
// without a value are dropped, as the consumers drop them.
func TestQueryResultKeepsWhatIsStored(t *testing.T) {
	start := time.Date(2026, 11, 20, 11, 0, 0, 0, time.FixedZone("X", 3600))
	w := fetchWindow{time.Minute, start, start.Add(time.Hour)}
	ts := []time.Time{start.Add(-time.Minute), start, start.Add(90*time.Second + 7), start.Add(59 * time.Minute), start.Add(time.Hour), {}, start.Add(2 * time.Minute)}
	vs := []float64{1, 0.1, 1e300, 16777217, 2, 3}
	var r queryResult
	r.add(w, ts[:3], vs[:3])
	r.add(w, ts[3:], vs[3:]) // a second page
	want := []int{1, 2, 3}   // in the window, with a value
	if r.len() != len(want) {
		t.Fatalf("%d points kept, want %d", r.len(), len(want))
	}
	for i, j := range want {
		at, v := r.at(i)
		if !at.Equal(ts[j]) || at.Sub(start) != ts[j].Sub(start) {
			t.Errorf("point %d: at %v, want %v", i, at, ts[j])
		}
		if math.Float32bits(float32(v)) != math.Float32bits(float32(vs[j])) {
			t.Errorf("point %d: float32 %v, want %v", i, float32(v), float32(vs[j]))
		}
	}
	var nan queryResult
	nan.add(w, []time.Time{start}, []float64{math.NaN()})
	if _, v := nan.at(0); !math.IsNaN(v) {
		t.Errorf("NaN kept as %v", v)
	}
}
