package ttl

import (
	"math"
	"math/big"
	"strconv"
	"time"
)

// DynamoDB's limits for the Number type: at most 38 significant digits and a
// magnitude of at least 1e-130 and below 1e126 (zero is allowed).
const (
	maxSignificantDigits = 38
	maxExponent          = 126  // |value| < 10^126, i.e. exp <= 126 in 0.d×10^exp
	minExponent          = -129 // |value| >= 10^-130, i.e. exp >= -129
)

// number is a parsed DynamoDB number in normalised scientific form:
// value = sign × 0.digits × 10^exp, where digits has neither leading nor
// trailing zeros. Zero has empty digits.
type number struct {
	neg    bool
	digits string
	exp    int
}

// parseNumber reads the text of a DynamoDB Number: an optional sign, decimal
// digits with at most one point (at least one digit), and an optional
// exponent. It rejects anything else (spaces, hex, "Inf", "NaN",
// underscores) and anything DynamoDB cannot store.
func parseNumber(s string) (number, bool) {
	var n number
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	// Mantissa: collect significant digits and count the integer digits.
	var (
		sig        []byte
		seenDigit  bool
		seenPoint  bool
		intDigits  int // digits before the point, leading zeros excluded
		leadZeroes int // zeros after the point before the first nonzero digit
	)
mantissa:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
			if len(sig) == 0 && c == '0' {
				if seenPoint {
					leadZeroes++
				}
				continue
			}
			if len(sig) > 2*maxSignificantDigits && c != '0' {
				// A nonzero digit this far after the first one means more
				// than 38 significant digits: fail early on long input.
				return number{}, false
			}
			sig = append(sig, c)
			if !seenPoint {
				intDigits++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			break mantissa
		}
	}
	if !seenDigit {
		return number{}, false
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return number{}, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return number{}, false
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return number{}, false
			}
			if exp < 1_000_000 { // saturate: far outside DynamoDB's range
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// Trim trailing zeros of the significand.
	for len(sig) > 0 && sig[len(sig)-1] == '0' {
		sig = sig[:len(sig)-1]
	}
	if len(sig) == 0 {
		return number{neg: n.neg}, true // zero, whatever its exponent
	}
	if len(sig) > maxSignificantDigits {
		return number{}, false
	}
	if intDigits > 0 {
		n.exp = intDigits + exp
	} else {
		n.exp = exp - leadZeroes
	}
	if n.exp > maxExponent || n.exp < minExponent {
		return number{}, false
	}
	n.digits = string(sig)
	return n, true
}

// zero reports whether n is zero.
func (n number) zero() bool { return n.digits == "" }

// float returns n rounded to the nearest float64.
func (n number) float() float64 {
	if n.zero() {
		return 0
	}
	s := "0." + n.digits + "e" + strconv.Itoa(n.exp)
	if n.neg {
		s = "-" + s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // cannot happen within DynamoDB's range
		return math.NaN()
	}
	return f
}

// greaterThanPow10 reports whether n > 10^p for p >= 0, exactly.
func (n number) greaterThanPow10(p int) bool {
	if n.neg || n.zero() {
		return false
	}
	// 10^p = 0.1 × 10^(p+1).
	return n.exp > p+1 || (n.exp == p+1 && n.digits != "1")
}

// rat returns n exactly.
func (n number) rat() *big.Rat {
	r := new(big.Rat)
	if n.zero() {
		return r
	}
	num, _ := new(big.Int).SetString(n.digits, 10)
	if n.neg {
		num.Neg(num)
	}
	scale := n.exp - len(n.digits)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(scale))), nil)
	if scale >= 0 {
		return r.SetInt(num.Mul(num, pow))
	}
	return r.SetFrac(num, pow)
}

// cmpTime compares n, read as epoch seconds, with t exactly: -1, 0 or +1.
func (n number) cmpTime(t time.Time) int {
	f := n.float()
	tf := float64(t.Unix()) + float64(t.Nanosecond())/1e9
	// Both roundings are far below a millisecond for any time near now; only
	// a near tie needs exact arithmetic.
	const margin = 1e-3
	switch {
	case f > tf+margin:
		return 1
	case f < tf-margin:
		return -1
	}
	tr := new(big.Rat).SetFrac(
		new(big.Int).Add(new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(1e9)), big.NewInt(int64(t.Nanosecond()))),
		big.NewInt(1e9))
	return n.rat().Cmp(tr)
}

// timeIn returns the instant n denotes when read as epoch units of
// 10^-scale seconds (scale 0 for seconds, 3 for milliseconds, ...), rounded
// down to the nanosecond. ok is false when time.Time cannot hold it.
func (n number) timeIn(scale int) (t time.Time, ok bool) {
	r := n.rat()
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(9-scale)), nil)))
	nanos := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for positive denominators
	sec, ns := new(big.Int).DivMod(nanos, big.NewInt(1e9), new(big.Int))
	const limit = 1 << 62 // time.Time's internal seconds must not overflow
	if !sec.IsInt64() || sec.Int64() > limit || sec.Int64() < -limit {
		return time.Time{}, false
	}
	return time.Unix(sec.Int64(), ns.Int64()).UTC(), true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
