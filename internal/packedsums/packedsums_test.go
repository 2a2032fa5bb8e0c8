package packedsums

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// value draws a value of the kinds the package must keep exactly: half
// units near the last one (the common case), far jumps, fractions finer
// than a half, negative zero, NaN, infinities and huge magnitudes.
func value(r *rand.Rand, last float32, odd int) float32 {
	if r.IntN(odd) != 0 {
		switch r.IntN(200) {
		case 0, 1, 2, 3, 4, 5, 6, 7:
			return last // part of a constant run
		case 8:
			// Exact half units far apart, up to 2^52: the widest packed
			// differences.
			return float32(r.IntN(1<<24)) * float32(math.Ldexp(1, r.IntN(28)))
		}
		return last + float32(r.IntN(41)-20)/2
	}
	switch r.IntN(6) {
	case 0:
		return float32(r.Float64() * 1000) // a fraction
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return float32(math.NaN())
	case 3:
		return float32(math.Inf(1 - 2*r.IntN(2)))
	case 4:
		return float32(r.NormFloat64() * 1e20)
	default:
		return float32(r.IntN(1 << 25)) // beyond float32's exact integers
	}
}

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

func check(t *testing.T, step int, s *Sums, want []float32) {
	t.Helper()
	if s.Len() != len(want) {
		t.Fatalf("step %d: Len %d, want %d", step, s.Len(), len(want))
	}
	for i, w := range want {
		if got := s.At(i); !sameBits(got, w) {
			t.Fatalf("step %d: At(%d) = %v (%#x), want %v (%#x)", step, i, got, math.Float32bits(got), w, math.Float32bits(w))
		}
	}
	if len(want) == 0 {
		return
	}
	from := len(want) / 3
	// Seek from a zero cursor, then a little ahead, then back, then far
	// ahead: each returns the value asked for.
	var sc Cursor
	for _, i := range []int{from, from + 3, from / 2, from + 2*BlockLen + 1} {
		if i >= len(want) {
			continue
		}
		s.Seek(&sc, i)
		if g := sc.Next(); sc.Index() != i+1 || !sameBits(g, want[i]) {
			t.Fatalf("step %d: Seek(%d) reads %v and stops at %d, want %v", step, i, g, sc.Index(), want[i])
		}
	}
	c := s.CursorAt(from)
	for i := from; i < len(want); i++ {
		if c.Index() != i {
			t.Fatalf("step %d: cursor from %d at index %d, want %d", step, from, c.Index(), i)
		}
		if g := c.Next(); !sameBits(g, want[i]) {
			t.Fatalf("step %d: cursor from %d reads value %d as %v, want %v", step, from, i, g, want[i])
		}
	}
}

// TestAgainstSlice runs random appends, updates, drops, trims and clones
// on a Sums and on a []float32 and compares every value bit for bit, with
// values of other kinds than half units often (most blocks raw) and
// rarely (most blocks deltas, some turning raw).
func TestAgainstSlice(t *testing.T) {
	for _, odd := range []int{2, 300} {
		t.Run(fmt.Sprintf("1_in_%d_odd", odd), func(t *testing.T) { againstSlice(t, odd) })
	}
}

func againstSlice(t *testing.T, odd int) {
	r := rand.New(rand.NewPCG(1, uint64(odd)))
	var s Sums
	var want []float32
	last := float32(1000)
	seen := map[byte]bool{}
	for step := range 3000 {
		switch op := r.IntN(21); {
		case op < 14:
			v := value(r, last, odd)
			if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
				last = v
			}
			s.Append(v)
			want = append(want, v)
			if odd > 2 && r.IntN(50) == 0 {
				// A ramp of a block's length: differences of differences
				// all 0 but at its ends.
				step := float32(r.IntN(2001)-1000) / 2
				for range BlockLen {
					last += step
					s.Append(last)
					want = append(want, last)
				}
			}
		case op < 17 && len(want) > 0:
			i, v := r.IntN(len(want)), value(r, last, odd)
			s.Update(i, i+1, func(int, float32) float32 { return v })
			want[i] = v
		case op == 17:
			n := r.IntN(len(want)/4 + 2)
			s.DropFront(n)
			want = want[min(n, len(want)):]
		case op == 18:
			s.Trim(r.IntN(16))
			if odd == 2 && r.IntN(10) == 0 {
				// Two blocks' worth of NaN (hours without a sample):
				// one block at least all NaN.
				for range 2 * BlockLen {
					s.Append(float32(math.NaN()))
					want = append(want, float32(math.NaN()))
				}
			}
		case op == 19 && len(want) > 0:
			from := r.IntN(len(want))
			to := from + r.IntN(len(want)-from+1)
			add := float32(r.IntN(9)) / 2
			s.Update(from, to, func(i int, v float32) float32 {
				if !sameBits(v, want[i]) {
					t.Fatalf("step %d: Update gives value %d as %v, want %v", step, i, v, want[i])
				}
				return v + add
			})
			for i := from; i < to; i++ {
				want[i] += add
			}
		default:
			c := s.Clone()
			c.Append(1.5) // the original must not see it
			s = c
			want = append(want, 1.5)
		}
		check(t, step, &s, want)
		for _, off := range s.offs {
			seen[s.buf[off]] = true
		}
	}
	// Every encoding was exercised (the sealed ones where most values are
	// half units).
	modes := []byte{modeDeltas, modeRaw}
	if odd == 2 {
		modes = append(modes, modeConst)
	}
	if odd > 2 {
		modes = append(modes, modeBits1, modeBits2)
	}
	for _, m := range modes {
		if !seen[m] {
			t.Errorf("no block in mode %d", m)
		}
	}
}

// TestSize checks the reason the package exists: hourly Sums in half
// units that move a little from hour to hour take far less than 4 bytes.
func TestSize(t *testing.T) {
	var s Sums
	v := float32(2e5)
	for i := range 2160 {
		v += float32(i%7-3) * 50.5
		s.Append(v)
	}
	s.Trim(0)
	if got, limit := s.Bytes(), 2160*2; got > limit {
		t.Errorf("2,160 close half-unit values take %d bytes, want at most %d", got, limit)
	}
}

// TestSealedBlocks: a full block keeps the smallest of its encodings, and
// every value of each reads back bit for bit, at every width a block's
// integers can take, from 0 (a constant) to the widest (half units of
// opposite signs near 2^52).
func TestSealedBlocks(t *testing.T) {
	big := float32(math.Ldexp(1, 50)) // 2^51 half units
	for _, tc := range []struct {
		name string
		v    func(i int) float32
		// most is the most bytes the three blocks may take.
		most int
	}{
		{"constant", func(int) float32 { return 1234.5 }, 3 * 5},
		{"linear ramp", func(i int) float32 { return 100 + 2.5*float32(i) }, 3 * 8},
		{"small steps", func(i int) float32 { return 5e4 + float32(i%5) }, 3 * (8 + 63*4/8)},
		{"alternating extremes", func(i int) float32 { return big * float32(1-2*(i%2)) }, 3 * (10 + 63*8)},
		{"NaN", func(int) float32 { return float32(math.NaN()) }, 3 * 5},
		{"negative zero", func(int) float32 { return float32(math.Copysign(0, -1)) }, 3 * 5},
		{"one jump", func(i int) float32 { return float32(map[bool]int{false: 7, true: 1 << 20}[i == 100]) }, 3 * 64 * 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Sums
			var want []float32
			for i := range 3 * BlockLen {
				s.Append(tc.v(i))
				want = append(want, tc.v(i))
			}
			s.Trim(0)
			check(t, 0, &s, want)
			if got := len(s.buf); got > tc.most {
				t.Errorf("%d bytes, want at most %d", got, tc.most)
			}
			for b, off := range s.offs {
				if m := s.buf[off]; m == modeDeltas && b < len(s.offs)-1 {
					end := len(s.buf)
					if b+1 < len(s.offs) {
						end = int(s.offs[b+1])
					}
					t.Logf("block %d kept its %d bytes of varint deltas", b, end-int(off))
				}
			}
		})
	}
}

// TestSizeOfOtherValues: values that are not half units cost their 4
// bytes and a byte a block, not more.
func TestSizeOfOtherValues(t *testing.T) {
	var s Sums
	r := rand.New(rand.NewPCG(3, 4))
	for range 2160 {
		s.Append(float32(r.Float64() * 1e4))
	}
	s.Trim(0)
	if got, limit := s.Bytes(), 2160*4+2*(2160/BlockLen+1)*5; got > limit {
		t.Errorf("2,160 fractional values take %d bytes, want at most %d", got, limit)
	}
}

// TestClear: a cleared Sums holds nothing and reads back what is appended
// next as a new one does, in its old buffers; its clone is independent.
func TestClear(t *testing.T) {
	var s, fresh Sums
	for i := range 3 * BlockLen {
		s.Append(float32(i) * 1.5)
	}
	s.Append(0.1) // the last block raw
	buf := &s.buf[:1][0]
	s.Clear()
	check(t, 0, &s, nil)
	var want []float32
	for i := range 2*BlockLen + 5 {
		v := float32(1000-i) / 2
		s.Append(v)
		fresh.Append(v)
		want = append(want, v)
	}
	check(t, 1, &s, want)
	if string(s.buf) != string(fresh.buf) || &s.buf[0] != buf {
		t.Error("a cleared Sums encodes differently from a new one, or not in its old buffer")
	}
	c := s.Clone()
	s.Clear()
	s.Append(7)
	check(t, 2, &c, want)
}

// TestOutOfRange: an index beyond the values is a programming error.
func TestOutOfRange(t *testing.T) {
	var s Sums
	s.Append(1)
	defer func() {
		if recover() == nil {
			t.Error("At(1) of one value did not panic")
		}
	}()
	s.At(1)
}
