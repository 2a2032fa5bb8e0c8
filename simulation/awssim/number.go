package awssim

import (
	"cmp"
	"strconv"
	"strings"
)

// DynamoDB's limits for the Number type: at most 38 significant digits and
// a magnitude in [1e-130, 1e126), or zero.
const (
	numberMaxDigits = 38
	numberMaxExp    = 126  // 0.d × 10^exp < 10^126  <=> exp <= 126
	numberMinExp    = -129 // 0.d × 10^exp >= 10^-130 <=> exp >= -129
)

// Messages DynamoDB answers for Number values it cannot store. None of them
// repeats the value.
const (
	msgNotANumber    = "A value provided cannot be converted into a number"
	msgTooManyDigits = "Attempting to store more than 38 significant digits in a Number"
	msgNumOverflow   = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgNumUnderflow  = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)

// decNumber is a DynamoDB Number in normal form: the value is
// sign × 0.digits × 10^exp, where digits has neither leading nor trailing
// zeros. Zero has empty digits, exp 0 and neg false.
type decNumber struct {
	neg    bool
	digits string
	exp    int
}

// parseDecNumber reads the text of a Number (optional sign, decimal digits
// with at most one point, optional exponent) and checks DynamoDB's limits.
// The error is a ValidationException that never contains the text.
func parseDecNumber(s string) (decNumber, error) {
	var n decNumber
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		n.neg = s[i] == '-'
		i++
	}
	var all strings.Builder
	intDigits, digits, point := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			all.WriteByte(c)
			digits++
			if !point {
				intDigits++
			}
			continue
		case c == '.' && !point:
			point = true
			continue
		}
		break
	}
	if digits == 0 {
		return decNumber{}, apiErr(ErrValidation, msgNotANumber)
	}
	exp10 := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return decNumber{}, apiErr(ErrValidation, msgNotANumber)
		}
		text := s[i+1:]
		body := strings.TrimLeft(text, "+-")
		if body == "" || len(text)-len(body) > 1 || strings.Trim(body, "0123456789") != "" {
			return decNumber{}, apiErr(ErrValidation, msgNotANumber)
		}
		v, err := strconv.Atoi(text)
		if err != nil || v > 1<<20 || v < -(1<<20) {
			// Far beyond any supported magnitude; only zero survives.
			v = 1 << 20
			if strings.HasPrefix(text, "-") {
				v = -(1 << 20)
			}
		}
		exp10 = v
	}
	mant := all.String()
	lead := len(mant) - len(strings.TrimLeft(mant, "0"))
	sig := strings.TrimRight(mant[lead:], "0")
	if sig == "" {
		return decNumber{}, nil
	}
	n.digits = sig
	n.exp = intDigits - lead + exp10
	switch {
	case len(sig) > numberMaxDigits:
		return decNumber{}, apiErr(ErrValidation, msgTooManyDigits)
	case n.exp > numberMaxExp:
		return decNumber{}, apiErr(ErrValidation, msgNumOverflow)
	case n.exp < numberMinExp:
		return decNumber{}, apiErr(ErrValidation, msgNumUnderflow)
	}
	return n, nil
}

// isZero reports whether n is zero.
func (n decNumber) isZero() bool { return n.digits == "" }

// String renders n in plain decimal notation without exponent, leading or
// trailing zeros: the form DynamoDB returns a stored Number in.
func (n decNumber) String() string {
	if n.isZero() {
		return "0"
	}
	var b strings.Builder
	if n.neg {
		b.WriteByte('-')
	}
	switch {
	case n.exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n.exp))
		b.WriteString(n.digits)
	case n.exp < len(n.digits):
		b.WriteString(n.digits[:n.exp])
		b.WriteByte('.')
		b.WriteString(n.digits[n.exp:])
	default:
		b.WriteString(n.digits)
		b.WriteString(strings.Repeat("0", n.exp-len(n.digits)))
	}
	return b.String()
}

// size is the storage size of n in bytes as DynamoDB documents it
// approximately: one byte per two significant digits, plus one.
func (n decNumber) size() int64 {
	return int64((len(n.digits)+1)/2) + 1
}

// compareDec orders two numbers by value.
func compareDec(a, b decNumber) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		return cmp.Compare(sa, sb)
	}
	if sa == 0 {
		return 0
	}
	c := compareMagnitude(a, b)
	if sa < 0 {
		return -c
	}
	return c
}

// sign is -1, 0 or 1.
func (n decNumber) sign() int {
	switch {
	case n.isZero():
		return 0
	case n.neg:
		return -1
	}
	return 1
}

// compareMagnitude orders |a| and |b| for nonzero a and b. With normalised
// digits, a larger exponent means a larger magnitude, and equal exponents
// compare digit by digit.
func compareMagnitude(a, b decNumber) int {
	if a.exp != b.exp {
		return cmp.Compare(a.exp, b.exp)
	}
	return strings.Compare(a.digits, b.digits)
}
