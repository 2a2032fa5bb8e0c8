package sim

import "math"

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
// are contiguous: hours [hour.start, hour.end), then 5-minute steps
// [five.start, five.end), then minutes [fine.start, fine.end). All indexes
// are Unix minutes, 5-minute steps (minute ÷ 5) or hours (minute ÷ 60).
//
// The store is compact (issue 13: 1,000 tables with 90 days of history in
// under 4 GiB): values are held in chunks that are not allocated while all
// their values are zero (throttle events, errors and back-pressure are zero
// in most minutes of most tables), and in float32 while every value of the
// chunk is exactly a float32 (every minute value, and the sums and maxima
// of the 5-minute and hourly steps of most channels), so that the values
// read back are exactly those stored.
type tiered struct {
	agg  []aggKind
	hour tier
	five tier
	fine tier
	// gen computes the channels that are a pure function of the minute
	// (nil, or a nil entry: the channel is stored). Such a channel is
	// pushed as zeros, which hold no memory, and read through computed.
	gen []func(minute int64) float32
}

// tier is one resolution: one column per channel over indexes [start,
// end). Values are held in chunks of n values, chunk k of every column
// holding indexes [first+k·n, first+(k+1)·n); first is a multiple of n.
type tier struct {
	start, end int64
	first, n   int64
	cols       [][]*chunk // per channel; a nil chunk: all its values are zero
}

// chunk holds the values of one chunk: f32 while each of them is exactly a
// float32, f64 from the first one that is not.
type chunk struct {
	f32 []float32
	f64 []float64
}

// Chunk lengths of the tiers: a day of minutes or of 5-minute steps, a
// week of hours. A 5-minute step's minutes and an hour's 5-minute steps
// are always in one chunk.
const (
	fineChunk = 1440
	fiveChunk = 288
	hourChunk = 168
)

// newTiered returns an empty store starting at minute start (aligned to an
// hour) with one channel per entry of agg.
func newTiered(start int64, agg []aggKind) *tiered {
	return &tiered{
		agg:  agg,
		hour: newTier(start/60, len(agg), hourChunk),
		five: newTier(start/5, len(agg), fiveChunk),
		fine: newTier(start, len(agg), fineChunk),
	}
}

func newTier(start int64, channels int, n int64) tier {
	return tier{start: start, end: start, first: floorDiv(start, n) * n, n: n, cols: make([][]*chunk, channels)}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// isZero reports whether v is +0, the value of an unallocated chunk.
func isZero(v float64) bool { return v == 0 && !math.Signbit(v) }

// row returns the chunk index and offset of index end, making room for a
// new chunk in every column when end starts one.
func (t *tier) row() (k, off int64) {
	k, off = (t.end-t.first)/t.n, (t.end-t.first)%t.n
	for c, col := range t.cols {
		for int64(len(col)) <= k {
			col = append(col, nil)
		}
		t.cols[c] = col
	}
	return k, off
}

// alloc allocates chunk k of channel c (float32 zeros).
func (t *tier) alloc(c int, k int64) *chunk {
	ch := &chunk{f32: make([]float32, t.n)}
	t.cols[c][k] = ch
	return ch
}

// put stores x at offset off of chunk k of channel c, allocating the chunk
// for a value other than +0 and widening it to float64 for a value that is
// not exactly a float32.
func (t *tier) put(c int, k, off int64, x float64) {
	ch := t.cols[c][k]
	if ch == nil {
		if isZero(x) {
			return
		}
		ch = t.alloc(c, k)
	}
	switch {
	case ch.f64 != nil:
		ch.f64[off] = x
	case float64(float32(x)) == x:
		ch.f32[off] = float32(x)
	default:
		ch.f64 = make([]float64, t.n)
		for j, y := range ch.f32 {
			ch.f64[j] = float64(y)
		}
		ch.f32 = nil
		ch.f64[off] = x
	}
}

// appendRolled appends len(buf) values to every channel, rolled up from
// src: fill(c, buf) writes channel c's values into buf, or reports false
// when they are all zero. The values land in one chunk of t.
func (t *tier) appendRolled(buf []float64, fill func(c int, buf []float64) bool) {
	k, off := t.row()
	for c := range t.cols {
		if !fill(c, buf) {
			continue // the new offsets of an allocated chunk are zero already
		}
		for j, x := range buf {
			t.put(c, k, off+int64(j), x)
		}
	}
	t.end += int64(len(buf))
}

// appendFloat32 appends the values of the next minute, float32 all.
func (t *tier) appendFloat32(vals []float32) {
	k, off := (t.end-t.first)/t.n, (t.end-t.first)%t.n
	if len(t.cols) > 0 && k >= int64(len(t.cols[0])) {
		t.row()
	}
	for c, x := range vals {
		ch := t.cols[c][k]
		if ch == nil {
			if x == 0 && !math.Signbit(float64(x)) {
				continue
			}
			ch = t.alloc(c, k)
		}
		ch.f32[off] = x // minute chunks hold float32 only
	}
	t.end++
}

// get returns channel c at index i.
func (t *tier) get(c int, i int64) float64 {
	k := (i - t.first) / t.n
	col := t.cols[c]
	if i < t.first || k >= int64(len(col)) || col[k] == nil {
		return 0
	}
	ch := col[k]
	if ch.f64 != nil {
		return ch.f64[(i-t.first)%t.n]
	}
	return float64(ch.f32[(i-t.first)%t.n])
}

// rollInto rolls the values of channel c from index i (all in one chunk)
// up by k, len(out) groups of n, into out; false when they are all zero.
func (t *tier) rollInto(c int, i, n int64, k aggKind, out []float64) bool {
	kc := (i - t.first) / t.n
	col := t.cols[c]
	if kc >= int64(len(col)) || col[kc] == nil {
		return false // the sums, means and maxima of zeros
	}
	ch, off := col[kc], (i-t.first)%t.n
	for j := range out {
		a := off + int64(j)*n
		if ch.f64 != nil {
			out[j] = rollUp(ch.f64[a:a+n], k)
		} else {
			out[j] = rollUp(ch.f32[a:a+n], k)
		}
	}
	return true
}

// rollUp rolls values up by k.
func rollUp[T float32 | float64](vs []T, k aggKind) float64 {
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

// dropTo forgets the indexes before i, freeing the chunks that hold only
// such indexes.
func (t *tier) dropTo(i int64) {
	t.start = i
	for t.first+t.n <= i {
		for c, col := range t.cols {
			if len(col) > 0 {
				col[0] = nil // let the dropped chunk go
				t.cols[c] = col[1:]
			}
		}
		t.first += t.n
	}
}

// end is the minute after the last stored one.
func (s *tiered) end() int64 { return s.fine.end }

// push appends the values of the next minute and rolls old minutes up.
func (s *tiered) push(vals []float32) {
	s.fine.appendFloat32(vals)
	if s.fine.end-s.fine.start >= fineKeep+rollStep {
		s.rollFine()
	}
}

func (s *tiered) rollFine() {
	var buf [rollStep / 5]float64
	s.five.appendRolled(buf[:], func(c int, out []float64) bool {
		return s.fine.rollInto(c, s.fine.start, 5, s.agg[c], out)
	})
	s.fine.dropTo(s.fine.start + rollStep)
	if s.five.end-s.five.start >= fiveKeep+rollStep/5 {
		s.hour.appendRolled(buf[:1], func(c int, out []float64) bool {
			return s.five.rollInto(c, s.five.start, rollStep/5, s.agg[c], out)
		})
		s.five.dropTo(s.five.start + rollStep/5)
		if s.hour.end-s.hour.start > hourKeep {
			s.hour.dropTo(s.hour.start + 1)
		}
	}
}

// step is one stored value range: a minute, a 5-minute step or an hour.
type step struct {
	minute int64 // first minute
	length int64 // minutes
	tier   int   // 0 fine, 1 five, 2 hour
	idx    int64 // index in the tier: minute, minute ÷ 5 or minute ÷ 60
}

// steps calls f for every stored step whose first minute is in [a, b).
func (s *tiered) steps(a, b int64, f func(st step)) {
	hEnd := s.hour.end * 60
	for m := max(a, s.hour.start*60); m < min(b, hEnd); {
		h := ceilDiv(m, 60)
		if h*60 >= min(b, hEnd) {
			break
		}
		f(step{minute: h * 60, length: 60, tier: 2, idx: h})
		m = (h + 1) * 60
	}
	fEnd := s.five.end * 5
	for m := max(a, s.five.start*5); m < min(b, fEnd); {
		k := ceilDiv(m, 5)
		if k*5 >= min(b, fEnd) {
			break
		}
		f(step{minute: k * 5, length: 5, tier: 1, idx: k})
		m = (k + 1) * 5
	}
	for m := max(a, s.fine.start); m < min(b, s.fine.end); m++ {
		f(step{minute: m, length: 1, tier: 0, idx: m})
	}
}

// value returns channel c of a step.
func (s *tiered) value(c int, st step) float64 {
	if s.gen != nil && s.gen[c] != nil {
		return s.computed(c, st)
	}
	switch st.tier {
	case 0:
		return s.fine.get(c, st.idx)
	case 1:
		return s.five.get(c, st.idx)
	}
	return s.hour.get(c, st.idx)
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a > 0) == (b > 0) {
		q++
	}
	return q
}

// computed returns channel c of a step from its generator, rolled up
// exactly as push and rollFine roll stored minutes up (float32 minutes,
// then 5-minute steps, then hours of twelve steps).
func (s *tiered) computed(c int, st step) float64 {
	g, k := s.gen[c], s.agg[c]
	five := func(m int64) float64 {
		var vs [5]float32
		for j := range vs {
			vs[j] = g(m + int64(j))
		}
		return rollUp(vs[:], k)
	}
	switch st.tier {
	case 0:
		return float64(g(st.minute))
	case 1:
		return five(st.minute)
	}
	var hs [rollStep / 5]float64
	for j := range hs {
		hs[j] = five(st.minute + int64(j)*5)
	}
	return rollUp(hs[:], k)
}
