package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refTiered is the simulator's storage before it was made compact (every
// channel dense, float64 5-minute and hourly tiers), kept as the reference
// the compact store is compared with.

// refTiered stores the channels of one entity at three resolutions. The tiers
// are contiguous: hours [hourStart, hourStart+len(hour)), then 5-minute
// steps, then minutes up to end. All indexes are Unix minutes, 5-minute
// steps (minute ÷ 5) or hours (minute ÷ 60).
type refTiered struct {
	agg       []aggKind
	hourStart int64
	hour      [][]float64
	fiveStart int64
	five      [][]float64
	fineStart int64
	fine      [][]float32
}

// newRefTiered returns an empty store starting at minute start (aligned to an
// hour) with one channel per entry of agg.
func newRefTiered(start int64, agg []aggKind) *refTiered {
	n := len(agg)
	return &refTiered{
		agg: agg, hourStart: start / 60, fiveStart: start / 5, fineStart: start,
		hour: make([][]float64, n), five: make([][]float64, n), fine: make([][]float32, n),
	}
}

// end is the minute after the last stored one.
func (s *refTiered) end() int64 { return s.fineStart + int64(len(s.fine[0])) }

// push appends the values of the next minute and rolls old minutes up.
func (s *refTiered) push(vals []float32) {
	for c, v := range vals {
		if len(s.fine[c]) == cap(s.fine[c]) {
			s.fine[c] = append(make([]float32, 0, refGrown(len(s.fine[c]), fineKeep+rollStep)), s.fine[c]...)
		}
		s.fine[c] = append(s.fine[c], v)
	}
	if len(s.fine[0]) >= fineKeep+rollStep {
		s.rollFine()
	}
}

func (s *refTiered) rollFine() {
	for c := range s.fine {
		src := s.fine[c][:rollStep]
		if len(s.five[c])+rollStep/5 > cap(s.five[c]) {
			s.five[c] = append(make([]float64, 0, refGrown(len(s.five[c]), fiveKeep+rollStep/5)), s.five[c]...)
		}
		for i := 0; i < rollStep; i += 5 {
			s.five[c] = append(s.five[c], refReduce(src[i:i+5], s.agg[c]))
		}
		s.fine[c] = s.fine[c][rollStep:]
	}
	s.fineStart += rollStep
	if len(s.five[0]) >= fiveKeep+rollStep/5 {
		for c := range s.five {
			s.hour[c] = append(s.hour[c], refReduce(s.five[c][:rollStep/5], s.agg[c]))
			s.five[c] = s.five[c][rollStep/5:]
		}
		s.fiveStart += rollStep / 5
		if len(s.hour[0]) > hourKeep {
			for c := range s.hour {
				s.hour[c] = refCompact64(s.hour[c][1:])
			}
			s.hourStart++
		}
	}
}

// grown is the capacity of a tier's new backing array when n values no
// longer fit: twice n while the tier fills up, so that a short history
// holds little, and at most full (the most the tier holds before a roll)
// plus a simulated day of slack, so that the tier, which slides forward
// as old values roll up, is copied about once a simulated day.
func refGrown(n, full int) int {
	const slack = 1440
	return max(min(2*n, full+slack), 64+n)
}

// compact64 copies a slice whose backing array has a large unused
// prefix, so that dropped hours are freed.
func refCompact64(s []float64) []float64 {
	if cap(s) > 2*len(s)+1024 {
		return append(make([]float64, 0, len(s)+len(s)/4), s...)
	}
	return s
}

// reduce rolls values up by k.
func refReduce[T float32 | float64](vs []T, k aggKind) float64 {
	acc := float64(vs[0])
	for _, v := range vs[1:] {
		if k == aggMax {
			acc = max(acc, float64(v))
		} else {
			acc += float64(v)
		}
	}
	if k == aggMean {
		acc /= float64(len(vs))
	}
	return acc
}

// step is one stored value range: a minute, a 5-minute step or an hour.
type refStep struct {
	minute int64 // first minute
	length int64 // minutes
	tier   int   // 0 fine, 1 five, 2 hour
	idx    int
}

// steps calls f for every stored step whose first minute is in [a, b).
func (s *refTiered) steps(a, b int64, f func(st refStep)) {
	hEnd := (s.hourStart + int64(len(s.hour[0]))) * 60
	for m := max(a, s.hourStart*60); m < min(b, hEnd); {
		h := ceilDiv(m, 60)
		if h*60 >= min(b, hEnd) {
			break
		}
		f(refStep{minute: h * 60, length: 60, tier: 2, idx: int(h - s.hourStart)})
		m = (h + 1) * 60
	}
	fEnd := (s.fiveStart + int64(len(s.five[0]))) * 5
	for m := max(a, s.fiveStart*5); m < min(b, fEnd); {
		k := ceilDiv(m, 5)
		if k*5 >= min(b, fEnd) {
			break
		}
		f(refStep{minute: k * 5, length: 5, tier: 1, idx: int(k - s.fiveStart)})
		m = (k + 1) * 5
	}
	for m := max(a, s.fineStart); m < min(b, s.end()); m++ {
		f(refStep{minute: m, length: 1, tier: 0, idx: int(m - s.fineStart)})
	}
}

// value returns channel c of a step.
func (s *refTiered) value(c int, st refStep) float64 {
	switch st.tier {
	case 0:
		return float64(s.fine[c][st.idx])
	case 1:
		return s.five[c][st.idx]
	}
	return s.hour[c][st.idx]
}

// TestCompactStoreMatchesReference pushes the same minutes (dense sums,
// large sums that are not float32 once rolled up, means, maxima, rare
// events and all-zero channels) into the compact store and the reference
// store for longer than CloudWatch keeps hourly points (455 days), and
// checks that both hold the same steps with the same bits at several
// points on the way.
func TestCompactStoreMatchesReference(t *testing.T) {
	agg := []aggKind{aggSum, aggSum, aggMean, aggMax, aggSum, aggSum}
	const start = 29_000_000 / 60 * 60
	got, want := newTiered(start, agg), newRefTiered(start, agg)
	vals := make([]float32, len(agg))
	rng := rand.New(rand.NewPCG(1, 2))
	const days = 470
	for m := int64(start); m < start+days*1440; m++ {
		vals[0] = float32(math.Floor(rng.Float64()*2400) / 2)        // consumed units
		vals[1] = float32(math.Floor((1<<23)+rng.Float64()*1e6) / 2) // sums past float32's exact range
		vals[2] = float32(0.9 + 0.2*rng.Float64())                   // latency factor (mean)
		vals[3] = float32(2 + rng.Float64())                         // p99 factor (max)
		vals[4] = 0
		if rng.IntN(5000) == 0 {
			vals[4] = float32(1 + rng.IntN(40)) // rare events
		}
		vals[5] = 0 // never any
		got.push(vals)
		want.push(vals)
		if d := (m - start + 1) / 1440; (m-start+1)%1440 == 0 && (d == 1 || d == 16 || d == 80 || d%60 == 0 || d == days) {
			compareStores(t, got, want, d)
		}
	}
	// The all-zero channel holds no memory.
	for _, tr := range []*tier{&got.fine, &got.five, &got.hour} {
		for _, ch := range tr.cols[5] {
			if ch != nil {
				t.Fatal("a chunk of an all-zero channel is allocated")
			}
		}
	}
}

func compareStores(t *testing.T, got *tiered, want *refTiered, day int64) {
	t.Helper()
	if got.end() != want.end() {
		t.Fatalf("day %d: end %d, want %d", day, got.end(), want.end())
	}
	a, b := want.hourStart*60-7, want.end()+7
	var gs []step
	var ws []refStep
	got.steps(a, b, func(st step) { gs = append(gs, st) })
	want.steps(a, b, func(st refStep) { ws = append(ws, st) })
	if len(gs) != len(ws) {
		t.Fatalf("day %d: %d steps, want %d", day, len(gs), len(ws))
	}
	for i := range ws {
		g, w := gs[i], ws[i]
		if g.minute != w.minute || g.length != w.length || g.tier != w.tier {
			t.Fatalf("day %d: step %d is %+v, want %+v", day, i, g, w)
		}
		for c := range got.agg {
			if gv, wv := got.value(c, g), want.value(c, w); math.Float64bits(gv) != math.Float64bits(wv) {
				t.Fatalf("day %d: channel %d of the step at minute %d (tier %d) is %v, want %v", day, c, g.minute, g.tier, gv, wv)
			}
		}
	}
}
