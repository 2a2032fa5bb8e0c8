// Package packedsums holds long sequences of float32 Sums (consumed or
// simulated capacity, one per hour or per peak minute) in about half the
// bytes of a []float32, exactly: every value reads back bit for bit as it
// was stored.
//
// DynamoDB's consumed-capacity Sums are multiples of 0.5 unit (a read
// consumes 0.5 or more units, a write 1 or more: Amazon DynamoDB Developer
// Guide, "Read/write capacity mode") and a simulated provisioned capacity
// is a whole number of units, so that an hour's Sum is a multiple of 0.5
// and the next hour's is usually close to it. Values are grouped in blocks
// of BlockLen, each decodable on its own, so that reading a value decodes
// at most a block. A block starts with its mode: deltas, each value the
// difference in half units from the one before it as a zig-zag varint (1
// to 3 bytes for most hours), or raw, each value its 4 bytes. A block
// turns raw when a value is not a multiple of 0.5 (or is negative zero,
// NaN, infinite, or from 2^52 in magnitude), so that values of any kind
// cost at most 4 bytes and a byte a block.
//
// A deltas block is written as values come. Once full, it is sealed: it
// keeps the smallest of three encodings of its values, the varint deltas,
// or the same differences, or their differences (the change of the slope),
// as zig-zag integers of the fewest bits that hold the block's largest,
// all of that width (a width of 0 when they are all 0: a constant
// capacity, an idle index). Sums that move by about the same from hour to
// hour take a few bits a value instead of whole bytes. A full raw block
// whose values are all the same bits (NaN, say) is sealed as that one value.
package packedsums

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// BlockLen is how many values a block holds.
const BlockLen = 64

// The mode byte that starts each block.
const (
	modeDeltas byte = iota
	modeRaw
	// modeBits1 and modeBits2, sealed blocks only: the first value as a
	// zig-zag varint (and, for modeBits2, the first difference too), a
	// width byte, then the block's later differences (modeBits1) or
	// differences of differences (modeBits2) as zig-zag integers of that
	// many bits each, least significant bit first.
	modeBits1
	modeBits2
	// modeConst, sealed raw blocks only: the 4 bytes of a value all the
	// block's values are, bit for bit (NaN: hours without a sample).
	modeConst
)

// Sums is a sequence of float32 values. The zero value is empty and ready
// to use. A Sums is not safe for concurrent modification.
type Sums struct {
	// n values are encoded, of which the first skip (fewer than BlockLen,
	// in the first block) were dropped: value i is encoded value skip+i.
	n, skip int
	buf     []byte   // the blocks, one after the other
	offs    []uint32 // offs[b]: where block b starts in buf
	prev    int64    // the last value appended, in half units (deltas mode)
}

// Len returns how many values s holds.
func (s *Sums) Len() int { return s.n - s.skip }

// Bytes returns the heap bytes s holds (its buffers' capacities).
func (s *Sums) Bytes() int { return cap(s.buf) + 4*cap(s.offs) }

// halfUnits returns v in half units, and whether v is exactly that.
func halfUnits(v float32) (int64, bool) {
	d := float64(v) * 2
	// NaN fails the first test, ±Inf the second.
	if d != math.Trunc(d) || math.Abs(d) >= 1<<52 || (v == 0 && math.Signbit(float64(v))) {
		return 0, false
	}
	return int64(d), true
}

func appendRaw(buf []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
}

// Append adds v at the end.
func (s *Sums) Append(v float32) {
	if s.n%BlockLen == 0 {
		s.offs = append(s.offs, uint32(len(s.buf)))
		s.buf = append(s.buf, modeDeltas)
		s.prev = 0
	}
	start := int(s.offs[len(s.offs)-1])
	if s.buf[start] == modeRaw {
		s.buf = appendRaw(s.buf, v)
		s.n++
		if s.n%BlockLen == 0 {
			s.sealRaw(start)
		}
		return
	}
	if q, ok := halfUnits(v); ok {
		s.buf = binary.AppendUvarint(s.buf, zigzag(q-s.prev))
		s.prev = q
		s.n++
		if s.n%BlockLen == 0 {
			s.seal(start)
		}
		return
	}
	// The block turns raw: its values so far are written again as such.
	held := make([]float32, 0, BlockLen)
	for c := (Cursor{s: s, i: s.n - s.n%BlockLen}); c.i < s.n; {
		held = append(held, c.Next())
	}
	s.buf = append(s.buf[:start], modeRaw)
	for _, x := range held {
		s.buf = appendRaw(s.buf, x)
	}
	s.buf = appendRaw(s.buf, v)
	s.n++
	if s.n%BlockLen == 0 {
		s.sealRaw(start)
	}
}

// sealRaw turns the full raw block starting at start, the last one, into
// modeConst when its values are all the same bits.
func (s *Sums) sealRaw(start int) {
	vals := s.buf[start+1:]
	first := binary.LittleEndian.Uint32(vals)
	for i := 4; i < len(vals); i += 4 {
		if binary.LittleEndian.Uint32(vals[i:]) != first {
			return
		}
	}
	s.buf = binary.LittleEndian.AppendUint32(append(s.buf[:start], modeConst), first)
}

func zigzag(d int64) uint64   { return uint64(d<<1) ^ uint64(d>>63) }
func unzigzag(z uint64) int64 { return int64(z>>1) ^ -int64(z&1) }

// seal re-encodes the full deltas block starting at start, the last one,
// in the smallest of its encodings (the package doc).
func (s *Sums) seal(start int) {
	var q [BlockLen]int64
	off, prev := start+1, int64(0)
	for i := range q {
		zz, k := binary.Uvarint(s.buf[off:])
		off += k
		prev += unzigzag(zz)
		q[i] = prev
	}
	var d1, d2 [BlockLen]uint64 // d1[i] for i ≥ 1, d2[i] for i ≥ 2
	var or1, or2 uint64
	for i := 1; i < BlockLen; i++ {
		d1[i] = zigzag(q[i] - q[i-1])
		or1 |= d1[i]
		if i >= 2 {
			// Half units are below 2^52 in magnitude: no difference of
			// differences overflows.
			d2[i] = zigzag(q[i] - 2*q[i-1] + q[i-2])
			or2 |= d2[i]
		}
	}
	w1, w2 := bits.Len64(or1), bits.Len64(or2)
	head := uvarintLen(zigzag(q[0]))
	size1 := 1 + head + 1 + ((BlockLen-1)*w1+7)/8
	size2 := 1 + head + uvarintLen(d1[1]) + 1 + ((BlockLen-2)*w2+7)/8
	if min(size1, size2) >= len(s.buf)-start {
		return
	}
	s.buf = s.buf[:start]
	if size1 <= size2 {
		s.buf = append(s.buf, modeBits1)
		s.buf = binary.AppendUvarint(s.buf, zigzag(q[0]))
		s.buf = appendBits(append(s.buf, byte(w1)), d1[1:], w1)
		return
	}
	s.buf = append(s.buf, modeBits2)
	s.buf = binary.AppendUvarint(s.buf, zigzag(q[0]))
	s.buf = binary.AppendUvarint(s.buf, d1[1])
	s.buf = appendBits(append(s.buf, byte(w2)), d2[2:], w2)
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// appendBits appends vs at w bits each (w ≤ 64), least significant bit
// first.
func appendBits(buf []byte, vs []uint64, w int) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, (len(vs)*w+7)/8)...)
	out := buf[start:]
	pos := 0
	for _, v := range vs {
		for k := 0; k < w; {
			b, sh := (pos+k)/8, (pos+k)%8
			take := min(8-sh, w-k)
			out[b] |= byte(v>>k&(1<<take-1)) << sh
			k += take
		}
		pos += w
	}
	return buf
}

// readBits returns the w bits (w ≤ 64) at bit pos of buf, least
// significant first.
func readBits(buf []byte, pos, w int) uint64 {
	var v uint64
	for k := 0; k < w; {
		b, sh := (pos+k)/8, (pos+k)%8
		take := min(8-sh, w-k)
		v |= (uint64(buf[b]) >> sh & (1<<take - 1)) << k
		k += take
	}
	return v
}

// At returns value i (0 ≤ i < Len).
func (s *Sums) At(i int) float32 {
	if i < 0 || i >= s.Len() {
		panic("packedsums: index out of range")
	}
	c := s.CursorAt(i)
	return c.Next()
}

// DropFront removes the first n values (all of them when n ≥ Len): the
// blocks they fill are cut off, nothing is re-encoded, and the values
// dropped at the front of the first block left stay until it goes.
func (s *Sums) DropFront(n int) {
	if n <= 0 {
		return
	}
	if n >= s.Len() {
		*s = Sums{}
		return
	}
	s.skip += n
	if k := s.skip / BlockLen; k > 0 {
		cut := s.offs[k]
		s.buf = s.buf[:copy(s.buf, s.buf[cut:])]
		s.offs = s.offs[:copy(s.offs, s.offs[k:])]
		for j := range s.offs {
			s.offs[j] -= cut
		}
		s.n -= k * BlockLen
		s.skip -= k * BlockLen
	}
}

// Reset empties s, with room for about n values.
func (s *Sums) Reset(n int) {
	*s = Sums{}
	if n > 0 {
		s.buf = make([]byte, 0, n*3/2+4)
		s.offs = make([]uint32, 0, (n+BlockLen-1)/BlockLen)
	}
}

// Clear empties s and keeps its buffers for the values appended next: a
// scratch Sums that is cleared, filled and cloned (Clone) allocates only the
// clone, to its size.
func (s *Sums) Clear() {
	*s = Sums{buf: s.buf[:0], offs: s.offs[:0]}
}

// Trim drops the spare capacity of s's buffers beyond slack bytes (half
// of slack is kept when it reallocates).
func (s *Sums) Trim(slack int) {
	if cap(s.buf) > len(s.buf)+slack {
		s.buf = append(make([]byte, 0, len(s.buf)+slack/2), s.buf...)
	}
	if cap(s.offs) > len(s.offs)+1 {
		s.offs = append(make([]uint32, 0, len(s.offs)+1), s.offs...)
	}
}

// Clone returns an independent copy of s.
func (s *Sums) Clone() Sums {
	c := *s
	c.buf = append([]byte(nil), s.buf...)
	c.offs = append([]uint32(nil), s.offs...)
	return c
}

// Cursor reads the values of a Sums in order from an index; it is
// invalidated by any change to the Sums.
type Cursor struct {
	s    *Sums
	i    int // encoded index of the next value
	off  int
	mode byte
	prev int64
	// For a sealed block: the width of its packed integers, where they
	// start (in bits into buf), and the last difference (modeBits2).
	w, bit int
	diff   int64
}

// CursorAt returns a cursor whose first Next returns value i (0 ≤ i ≤
// Len).
func (s *Sums) CursorAt(i int) Cursor {
	i = max(i, 0) + s.skip
	c := Cursor{s: s, i: i - i%BlockLen}
	for c.i < i && c.i < s.n {
		c.Next()
	}
	return c
}

// Seek makes c, a cursor of s or the zero Cursor, return value i next
// (0 ≤ i ≤ Len): it reads on when c is at most a block before i, and starts
// again from i's block otherwise, so that a reader asking for values in
// increasing order decodes each about once.
func (s *Sums) Seek(c *Cursor, i int) {
	if c.s != s || c.Index() > i || i-c.Index() > BlockLen {
		*c = s.CursorAt(i)
	}
	for c.Index() < i {
		c.Next()
	}
}

// Index returns the index of the value Next returns.
func (c *Cursor) Index() int { return c.i - c.s.skip }

// Next returns the next value and advances; it panics beyond the last.
func (c *Cursor) Next() float32 {
	if c.i >= c.s.n {
		panic("packedsums: cursor beyond the values")
	}
	buf := c.s.buf
	j := c.i % BlockLen
	if j == 0 {
		c.off = int(c.s.offs[c.i/BlockLen])
		c.mode, c.prev, c.diff = buf[c.off], 0, 0
		c.off++
	}
	c.i++
	switch c.mode {
	case modeRaw:
		v := math.Float32frombits(binary.LittleEndian.Uint32(buf[c.off:]))
		c.off += 4
		return v
	case modeConst:
		return math.Float32frombits(binary.LittleEndian.Uint32(buf[c.off:]))
	case modeDeltas:
		zz, k := binary.Uvarint(buf[c.off:])
		c.off += k
		c.prev += unzigzag(zz)
	case modeBits1, modeBits2:
		c.prev = c.nextBits(buf, j)
	}
	return float32(float64(c.prev) / 2)
}

// nextBits returns value j of a sealed block, in half units.
func (c *Cursor) nextBits(buf []byte, j int) int64 {
	// The values before the packed integers: the first value, and for
	// modeBits2 the first difference.
	head := 1
	if c.mode == modeBits2 {
		head = 2
	}
	if j < head {
		zz, k := binary.Uvarint(buf[c.off:])
		c.off += k
		v := unzigzag(zz)
		if j == 1 {
			c.diff = v
			v += c.prev
		}
		if j == head-1 {
			c.w, c.bit = int(buf[c.off]), 8*(c.off+1)
		}
		return v
	}
	z := unzigzag(readBits(buf, c.bit, c.w))
	c.bit += c.w
	if c.mode == modeBits1 {
		return c.prev + z
	}
	c.diff += z
	return c.prev + c.diff
}

// Update replaces each value i of [from, to) with f(i, value), re-encoding
// the blocks from the first one changed.
func (s *Sums) Update(from, to int, f func(i int, v float32) float32) {
	from, to = max(from, 0), min(to, s.Len())
	if from >= to {
		return
	}
	// In encoded indexes from here: the values before from in its block
	// are decoded and encoded again.
	from, to = from+s.skip, to+s.skip
	lo := from - from%BlockLen
	rest := make([]float32, 0, s.n-lo)
	for c := (Cursor{s: s, i: lo}); c.i < s.n; {
		rest = append(rest, c.Next())
	}
	for i := from; i < to; i++ {
		rest[i-lo] = f(i-s.skip, rest[i-lo])
	}
	b := lo / BlockLen
	s.buf, s.offs, s.n = s.buf[:s.offs[b]], s.offs[:b], lo
	for _, v := range rest {
		s.Append(v)
	}
	s.Trim(16)
}
