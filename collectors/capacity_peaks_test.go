package collectors

import (
	"math"
	"sort"
	"testing"
	"time"
)

// minimalPeaks returns, of the minutes vs[i] (minute first+i), those from
// minute from that fewer than k later ones are at least as large as
// (non-zero): the least the peak candidates can hold (peakSet). It counts
// the later minutes at least as large as each with a Fenwick tree over
// the ranks of the values, newest first.
func minimalPeaks(vs []float32, first, from int32, k int) []int32 {
	sorted := append([]float32(nil), vs...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	tree := make([]int, len(vs)+1) // counts by rank (1-based), largest value first
	rank := func(v float32) int {  // 1 + how many values are larger
		return len(vs) - sort.Search(len(sorted), func(i int) bool { return sorted[i] > v }) + 1
	}
	keep := make([]bool, len(vs))
	for i := len(vs) - 1; i >= int(from-first); i-- {
		r := rank(vs[i])
		later := 0 // later minutes at least as large: ranks 1..r+ties
		for j := len(vs) - sort.Search(len(sorted), func(x int) bool { return sorted[x] >= vs[i] }); j > 0; j -= j & -j {
			later += tree[j]
		}
		keep[i] = vs[i] > 0 && later < k
		for j := r; j < len(tree); j += j & -j {
			tree[j]++
		}
	}
	var out []int32
	for i := int(from - first); i < len(vs); i++ {
		if keep[i] {
			out = append(out, first+int32(i))
		}
	}
	return out
}

// TestPeakCandidatesMinimalAndExact runs a history through its first
// fetch and 9 days of hourly refreshes on traffic built against the peak
// candidates: falling minute after minute for a week (every minute stays
// a candidate), then rising, and a daily cycle on a falling trend. After
// every refresh, the percentile of the week's window (before and after the
// refresh settles its minutes) is the one of all its minutes, and the
// candidates are exactly the minutes fewer than k later ones are at least
// as large as (computed over the raw minutes): the set is the least one,
// and is bounded by it.
func TestPeakCandidatesMinimalAndExact(t *testing.T) {
	if testing.Short() {
		t.Skip("9 days of hourly refreshes, checked against every minute of the week")
	}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	fetched := start.Add(10*day + 17*time.Minute)
	shapes := map[string]func(i int) float32{
		// Falling a unit a minute from the fetch to a week after it, then
		// rising.
		"falling then rising": func(i int) float32 {
			fall := int(fetched.Sub(start)/time.Minute) + 10080
			if i < fall {
				return float32(1e6 - i)
			}
			return float32(1e6 - 2*fall + i)
		},
		// A daily cycle with noise, 2% lower each day.
		"daily, falling trend": func(i int) float32 {
			d := float64(i) / 1440
			noise := float64(uint64(i)*2654435761%1000) / 1000
			return float32(math.Round((1000 + 600*math.Sin(2*math.Pi*d)) * math.Pow(0.98, d) * (1 + 0.05*noise)))
		},
		// Idle but for equal spikes: ties and zeros.
		"equal spikes": func(i int) float32 {
			if i%1440 < 90 || i%97 == 0 {
				return 6000
			}
			return 0
		},
	}
	for name, shape := range shapes {
		for _, p := range []float64{99, 99.9} {
			k := peakCandidates(p)
			first := minuteIndex(start)
			raw := func(m time.Time) float64 { return float64(shape(int(minuteIndex(m) - first))) }
			b := boundsAt(fetched, 10*day)
			h := newHistory(b)
			fillWindows(h, windowsFor(nil, b, time.Time{}), raw)
			h.finish(b)
			h.compact(fetched, k, time.Time{})
			h.settle(fetched)
			most := 0
			for cycle := 0; cycle <= 9*24; cycle++ {
				end := fetched.Add(time.Duration(cycle) * time.Hour)
				if cycle > 0 {
					nb := boundsAt(end, 10*day)
					if !h.roll(nb) {
						t.Fatal("roll refused")
					}
					fillWindows(h, windowsFor(h, nb, time.Time{}), raw)
					h.finish(nb)
				}
				from := end.Add(-week)
				vs := make([]float32, 0, 10080)
				all := make([]float64, 0, 10080)
				for m := from; m.Before(end); m = m.Add(time.Minute) {
					v := float32(raw(m))
					vs, all = append(vs, v), append(all, float64(v))
				}
				want := percentile(all, p)
				if got := h.peak(from, end, p); got != want {
					t.Fatalf("%s p%v, refresh %d: peak %v, of all the minutes %v", name, p, cycle, got, want)
				}
				h.settle(end)
				if got := h.peak(from, end, p); got != want {
					t.Fatalf("%s p%v, refresh %d, settled: peak %v, of all the minutes %v", name, p, cycle, got, want)
				}
				// The candidates: the settled minutes of the window.
				settled := int(minuteIndex(h.fed) - minuteIndex(from))
				least := minimalPeaks(vs[:settled], minuteIndex(from), minuteIndex(from), k)
				ms, cvs := h.peaks.candidates()
				if len(ms) != len(least) {
					t.Fatalf("%s p%v, refresh %d: %d candidates, the least set %d", name, p, cycle, len(ms), len(least))
				}
				for i, m := range least {
					if ms[i] != m || cvs[i] != vs[m-minuteIndex(from)] {
						t.Fatalf("%s p%v, refresh %d: candidate %d is minute %d (%v), want %d (%v)", name, p, cycle, i,
							ms[i], cvs[i], m, vs[m-minuteIndex(from)])
					}
				}
				most = max(most, len(least))
			}
			t.Logf("%s p%v: up to %d candidates", name, p, most)
			if name == "falling then rising" && most < 10080-60 {
				t.Errorf("%s p%v: up to %d candidates: the traffic did not keep the week", name, p, most)
			}
		}
	}
}

// TestPeakSetSweepKeepsWhatCountingKeeps: sweeping after many pushes keeps
// the candidates that counting, minute by minute, the later minutes at
// least as large keeps (the least set), whatever the sweeps' rhythm.
func TestPeakSetSweepKeepsWhatCountingKeeps(t *testing.T) {
	const n = 5000
	vs := make([]float32, n)
	for i := range vs {
		// Values from a small set: many ties; some zeros.
		vs[i] = float32(uint64(i) * 2654435761 % 23)
	}
	for _, k := range []int{1, 7, 101} {
		for _, every := range []int{1, 13, 600, n} {
			ps := peakSet{k: k}
			for i, v := range vs {
				ps.push(int32(i), v)
				if (i+1)%every == 0 {
					ps.pruneAll(0)
				}
			}
			ps.pruneAll(0)
			least := minimalPeaks(vs, 0, 0, k)
			got, _ := ps.candidates()
			if !sort.SliceIsSorted(got, func(a, b int) bool { return got[a] < got[b] }) || len(got) != len(least) {
				t.Fatalf("k %d, sweep every %d: %d candidates, the least set %d", k, every, len(got), len(least))
			}
			for i := range got {
				if got[i] != least[i] {
					t.Fatalf("k %d, sweep every %d: candidate %d is minute %d, want %d", k, every, i, got[i], least[i])
				}
			}
		}
	}
}
