// Package packedsums holds long sequences of float32 Sums (consumed or
// simulated capacity, one per hour) in about a quarter of the bytes of a
// []float32, exactly: every value reads back bit for bit as it was stored.
//
// DynamoDB's consumed-capacity Sums are multiples of 0.5 unit (a read
// consumes 0.5 or more units, a write 1 or more: Amazon DynamoDB Developer
// Guide, "Read/write capacity mode") and a simulated provisioned capacity
// is a whole number of units, so that an hour's Sum is a multiple of 0.5 and
// the next hour's is usually close to it. A value is stored as the
// difference, in half units, from the value before it, as a zig-zag varint
// (1 to 3 bytes for most hours); any other value (a fraction finer than
// 0.5, negative zero, NaN, infinities, magnitudes from 2^52) is stored as
// its 4 bytes. Values are grouped in blocks of BlockLen, each decodable on
// its own, so that reading a value decodes at most a block.
package packedsums

import (
	"encoding/binary"
	"math"
)

// BlockLen is how many values a block holds.
const BlockLen = 64

// Sums is a sequence of float32 values. The zero value is empty and ready
// to use. A Sums is not safe for concurrent modification.
type Sums struct {
	n    int      // values held
	buf  []byte   // the blocks, one after the other
	offs []uint32 // offs[b]: where block b starts in buf
	prev int64    // the last value appended, in half units, when it was one
}

// Len returns how many values s holds.
func (s *Sums) Len() int { return s.n }

// Bytes returns the heap bytes s holds (its buffers' capacities).
func (s *Sums) Bytes() int { return cap(s.buf) + 4*cap(s.offs) }

// halfUnits returns v in half units, and whether v is exactly that.
func halfUnits(v float32) (int64, bool) {
	d := float64(v) * 2
	if d != math.Trunc(d) || math.Abs(d) >= 1<<53 || (v == 0 && math.Signbit(float64(v))) {
		return 0, false // also NaN and ±Inf, whose Trunc is not equal or whose Abs is too big
	}
	return int64(d), true
}

// appendValue encodes v after a value of prev half units, and returns the
// new prev.
func appendValue(buf []byte, prev int64, v float32) ([]byte, int64) {
	if q, ok := halfUnits(v); ok {
		d := q - prev
		zz := uint64(d<<1) ^ uint64(d>>63)
		return binary.AppendUvarint(buf, zz<<1), q
	}
	buf = binary.AppendUvarint(buf, 1)
	return binary.LittleEndian.AppendUint32(buf, math.Float32bits(v)), prev
}

// decodeValue decodes the value at buf[i:] after a value of prev half
// units, and returns it, the new prev and the offset after it.
func decodeValue(buf []byte, i int, prev int64) (float32, int64, int) {
	x, k := binary.Uvarint(buf[i:])
	i += k
	if x&1 == 1 {
		return math.Float32frombits(binary.LittleEndian.Uint32(buf[i:])), prev, i + 4
	}
	zz := x >> 1
	q := prev + (int64(zz>>1) ^ -int64(zz&1))
	return float32(float64(q) / 2), q, i
}

// Append adds v at the end.
func (s *Sums) Append(v float32) {
	if s.n%BlockLen == 0 {
		s.offs = append(s.offs, uint32(len(s.buf)))
		s.prev = 0
	}
	s.buf, s.prev = appendValue(s.buf, s.prev, v)
	s.n++
}

// At returns value i (0 ≤ i < Len).
func (s *Sums) At(i int) float32 {
	if i < 0 || i >= s.n {
		panic("packedsums: index out of range")
	}
	b := i / BlockLen
	off, prev := int(s.offs[b]), int64(0)
	var v float32
	for range i%BlockLen + 1 {
		v, prev, off = decodeValue(s.buf, off, prev)
	}
	return v
}

// Range calls f with each value of [from, to) in order, and its index.
func (s *Sums) Range(from, to int, f func(i int, v float32)) {
	from, to = max(from, 0), min(to, s.n)
	for b := from / BlockLen; b*BlockLen < to; b++ {
		off, prev := int(s.offs[b]), int64(0)
		var v float32
		for i := b * BlockLen; i < min(to, (b+1)*BlockLen); i++ {
			v, prev, off = decodeValue(s.buf, off, prev)
			if i >= from {
				f(i, v)
			}
		}
	}
}

// Values appends the values of [from, to) to dst.
func (s *Sums) Values(dst []float32, from, to int) []float32 {
	s.Range(from, to, func(_ int, v float32) { dst = append(dst, v) })
	return dst
}

// DropFront removes the first n values (all of them when n ≥ Len). The
// buffers are re-encoded to the size they need.
func (s *Sums) DropFront(n int) {
	if n <= 0 {
		return
	}
	rest := s.Values(nil, n, s.n)
	s.Reset(len(rest))
	for _, v := range rest {
		s.Append(v)
	}
}

// Reset empties s, keeping room for about n values.
func (s *Sums) Reset(n int) {
	*s = Sums{}
	if n > 0 {
		s.buf = make([]byte, 0, n*3/2+4)
		s.offs = make([]uint32, 0, (n+BlockLen-1)/BlockLen)
	}
}

// Set replaces value i (0 ≤ i < Len) with v, re-encoding its block.
func (s *Sums) Set(i int, v float32) {
	if i < 0 || i >= s.n {
		panic("packedsums: index out of range")
	}
	b := i / BlockLen
	lo, hi := b*BlockLen, min((b+1)*BlockLen, s.n)
	vals := s.Values(make([]float32, 0, BlockLen), lo, hi)
	vals[i-lo] = v
	var blk []byte
	var prev int64
	for _, x := range vals {
		blk, prev = appendValue(blk, prev, x)
	}
	start, end := int(s.offs[b]), len(s.buf)
	if b+1 < len(s.offs) {
		end = int(s.offs[b+1])
	} else {
		s.prev = prev
	}
	if shift := len(blk) - (end - start); shift != 0 {
		tail := append([]byte(nil), s.buf[end:]...)
		s.buf = append(append(s.buf[:start], blk...), tail...)
		for k := b + 1; k < len(s.offs); k++ {
			s.offs[k] = uint32(int(s.offs[k]) + shift)
		}
		return
	}
	copy(s.buf[start:], blk)
}

// Trim drops the spare capacity of s's buffers beyond slack bytes.
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
