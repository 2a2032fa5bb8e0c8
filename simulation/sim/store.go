package sim

// Storage resolution and retention, as CloudWatch keeps DynamoDB metrics:
// 1-minute points for 15 days, 5-minute points for 63 days, hourly points
// for 455 days. Older minutes are rolled up an hour at a time.
const (
	fineKeep = 15 * 1440     // minutes
	fiveKeep = 63 * 1440 / 5 // 5-minute steps
	hourKeep = 455 * 24      // hours
	rollStep = 60            // minutes rolled up at once
)

// aggKind says how a channel is rolled up.
type aggKind uint8

const (
	aggSum aggKind = iota
	aggMean
	aggMax
)

// tiered stores the channels of one entity at three resolutions. The tiers
// are contiguous: hours [hourStart, hourStart+len(hour)), then 5-minute
// steps, then minutes up to end. All indexes are Unix minutes, 5-minute
// steps (minute ÷ 5) or hours (minute ÷ 60).
type tiered struct {
	agg       []aggKind
	hourStart int64
	hour      [][]float64
	fiveStart int64
	five      [][]float64
	fineStart int64
	fine      [][]float32
}

// newTiered returns an empty store starting at minute start (aligned to an
// hour) with one channel per entry of agg.
func newTiered(start int64, agg []aggKind) *tiered {
	n := len(agg)
	return &tiered{
		agg: agg, hourStart: start / 60, fiveStart: start / 5, fineStart: start,
		hour: make([][]float64, n), five: make([][]float64, n), fine: make([][]float32, n),
	}
}

// end is the minute after the last stored one.
func (s *tiered) end() int64 { return s.fineStart + int64(len(s.fine[0])) }

// push appends the values of the next minute and rolls old minutes up.
func (s *tiered) push(vals []float32) {
	for c, v := range vals {
		if len(s.fine[c]) == cap(s.fine[c]) {
			s.fine[c] = append(make([]float32, 0, grown(len(s.fine[c]), fineKeep+rollStep)), s.fine[c]...)
		}
		s.fine[c] = append(s.fine[c], v)
	}
	if len(s.fine[0]) >= fineKeep+rollStep {
		s.rollFine()
	}
}

func (s *tiered) rollFine() {
	for c := range s.fine {
		src := s.fine[c][:rollStep]
		if len(s.five[c])+rollStep/5 > cap(s.five[c]) {
			s.five[c] = append(make([]float64, 0, grown(len(s.five[c]), fiveKeep+rollStep/5)), s.five[c]...)
		}
		for i := 0; i < rollStep; i += 5 {
			s.five[c] = append(s.five[c], reduce(src[i:i+5], s.agg[c]))
		}
		s.fine[c] = s.fine[c][rollStep:]
	}
	s.fineStart += rollStep
	if len(s.five[0]) >= fiveKeep+rollStep/5 {
		for c := range s.five {
			s.hour[c] = append(s.hour[c], reduce(s.five[c][:rollStep/5], s.agg[c]))
			s.five[c] = s.five[c][rollStep/5:]
		}
		s.fiveStart += rollStep / 5
		if len(s.hour[0]) > hourKeep {
			for c := range s.hour {
				s.hour[c] = compact64(s.hour[c][1:])
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
func grown(n, full int) int {
	const slack = 1440
	return max(min(2*n, full+slack), 64+n)
}

// compact64 copies a slice whose backing array has a large unused
// prefix, so that dropped hours are freed.
func compact64(s []float64) []float64 {
	if cap(s) > 2*len(s)+1024 {
		return append(make([]float64, 0, len(s)+len(s)/4), s...)
	}
	return s
}

// reduce rolls values up by k.
func reduce[T float32 | float64](vs []T, k aggKind) float64 {
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
type step struct {
	minute int64 // first minute
	length int64 // minutes
	tier   int   // 0 fine, 1 five, 2 hour
	idx    int
}

// steps calls f for every stored step whose first minute is in [a, b).
func (s *tiered) steps(a, b int64, f func(st step)) {
	hEnd := (s.hourStart + int64(len(s.hour[0]))) * 60
	for m := max(a, s.hourStart*60); m < min(b, hEnd); {
		h := ceilDiv(m, 60)
		if h*60 >= min(b, hEnd) {
			break
		}
		f(step{minute: h * 60, length: 60, tier: 2, idx: int(h - s.hourStart)})
		m = (h + 1) * 60
	}
	fEnd := (s.fiveStart + int64(len(s.five[0]))) * 5
	for m := max(a, s.fiveStart*5); m < min(b, fEnd); {
		k := ceilDiv(m, 5)
		if k*5 >= min(b, fEnd) {
			break
		}
		f(step{minute: k * 5, length: 5, tier: 1, idx: int(k - s.fiveStart)})
		m = (k + 1) * 5
	}
	for m := max(a, s.fineStart); m < min(b, s.end()); m++ {
		f(step{minute: m, length: 1, tier: 0, idx: int(m - s.fineStart)})
	}
}

// value returns channel c of a step.
func (s *tiered) value(c int, st step) float64 {
	switch st.tier {
	case 0:
		return float64(s.fine[c][st.idx])
	case 1:
		return s.five[c][st.idx]
	}
	return s.hour[c][st.idx]
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}
