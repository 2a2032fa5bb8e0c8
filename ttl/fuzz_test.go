package ttl

import (
	"math"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FuzzClassify feeds random text as an N value and as an S value: no panic,
// always a valid class, and the class agrees with the parsed value.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"1790812800", "1.7908128E9", "-1", "0", "1e12", "1000000000000.5",
		"1790812800000", "1e18", "1e21", "", "abc", "1e999", "0.0000001e-129", "12345678901234567890123456789012345678"} {
		f.Add(s, int64(1790812800))
	}
	f.Fuzz(func(t *testing.T, value string, nowSec int64) {
		// Keep now within what float64 seconds and AddDate handle exactly.
		now := time.Unix(nowSec%(1<<40), 0)
		if c := Classify(map[string]types.AttributeValue{"ttl": &types.AttributeValueMemberS{Value: value}}, "ttl", now); c != WrongType {
			t.Fatalf("S value classified %v", c)
		}
		c := Classify(map[string]types.AttributeValue{"ttl": &types.AttributeValueMemberN{Value: value}}, "ttl", now)
		if !c.Valid() {
			t.Fatalf("invalid class %d", c)
		}
		d := Decode(value, now)
		if d.Class != c {
			t.Fatalf("Decode class %v != Classify class %v", d.Class, c)
		}
		n, ok := parseNumber(value)
		if !ok {
			if c != InvalidNumber {
				t.Fatalf("unparsable value classified %v", c)
			}
			return
		}
		if c == InvalidNumber || c == Missing || c == WrongType {
			t.Fatalf("parsable value classified %v", c)
		}
		// Consistency with the float value, away from exact boundaries.
		v := n.float()
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("float of a valid number is %v", v)
		}
		nowF := float64(now.Unix())
		oldF := float64(now.AddDate(-TooOldAfter, 0, 0).Unix())
		switch {
		case v < oldF-1:
			want(t, c, TooOld)
		case v > oldF+1 && v < nowF-1:
			want(t, c, Expired)
		case v > nowF+1 && v < 0.999e11:
			want(t, c, Live)
		case v > 1.001e12 && v < 0.999e15 && v > nowF+1:
			want(t, c, Milliseconds)
		case v > 1.001e15 && v < 0.999e18 && v > nowF+1:
			want(t, c, Microseconds)
		case v > 1.001e18 && v < 0.999e21 && v > nowF+1:
			want(t, c, Nanoseconds)
		case v > 1.001e21 && v > nowF+1:
			want(t, c, FarFuture)
		}
		// Round trip: the canonical text of a valid number classifies alike.
		canon := strconv.FormatFloat(v, 'g', -1, 64)
		if c2 := ClassifyNumber(canon, now); c2 != c && math.Abs(v-nowF) > 1 && math.Abs(v-oldF) > 1 &&
			!nearPow10(v) {
			t.Fatalf("canonical form classified %v, original %v", c2, c)
		}
	})
}

func want(t *testing.T, got, want Class) {
	t.Helper()
	if got != want {
		t.Fatalf("classified %v, want %v", got, want)
	}
}

// nearPow10 reports whether v is within a relative 1e-9 of a class threshold.
func nearPow10(v float64) bool {
	for _, p := range []float64{1e11, 1e12, 1e15, 1e18, 1e21} {
		if math.Abs(v-p) <= 1e-9*p {
			return true
		}
	}
	return false
}

// FuzzDecode checks what "ttl decode" reports for any text: an invalid
// number decodes to nothing but its class; a valid one agrees with the
// classifier, resolves to an instant at most a nanosecond below the exact
// value (in seconds, and in the likely unit), and that instant, written as a
// decimal number of seconds, decodes to itself (round trip).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"1790812800", "1790812800123", "1790812800123456", "1790812800123456789",
		"-1.5", "1e-130", "9.9999999999999999999999999999999999999E+125", "0.0000000015", "1e11", "1e12",
		"17908128e2", "+5", ".5", "5.", "0x10", " 1", "1_000"} {
		f.Add(s, int64(1790812800))
	}
	f.Fuzz(func(t *testing.T, value string, nowSec int64) {
		now := time.Unix(nowSec%(1<<40), 0)
		d := Decode(value, now)
		n, ok := parseNumber(value)
		if !ok {
			if d != (Decoded{Class: InvalidNumber}) {
				t.Fatalf("invalid number decoded to %+v", d)
			}
			return
		}
		if !d.Valid || d.Class != ClassifyNumber(value, now) {
			t.Fatalf("valid number decoded to %+v, classified %v", d, ClassifyNumber(value, now))
		}
		exact := n.rat()
		if d.SecondsOK {
			checkFloor(t, "seconds", exact, d.Seconds)
		} else if d.Class != FarFuture && d.Class != TooOld && d.Class != Nanoseconds {
			t.Fatalf("instant out of range but class %v", d.Class)
		}
		wantUnit := map[Class]Unit{Milliseconds: UnitMilliseconds, Microseconds: UnitMicroseconds, Nanoseconds: UnitNanoseconds}[d.Class]
		if d.LikelyUnit != wantUnit {
			t.Fatalf("class %v, likely unit %v", d.Class, d.LikelyUnit)
		}
		if d.LikelyUnit == UnitSeconds {
			if !d.SecondsOK {
				return
			}
			if !d.InLikelyUnit.Equal(d.Seconds) {
				t.Fatalf("in seconds, InLikelyUnit %v != Seconds %v", d.InLikelyUnit, d.Seconds)
			}
		} else {
			scaled := new(big.Rat).Quo(exact, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.LikelyUnit.pow10())), nil)))
			checkFloor(t, d.LikelyUnit.String(), scaled, d.InLikelyUnit)
		}
		if !d.SecondsOK {
			return
		}
		text := timeRat(d.Seconds).FloatString(9)
		if back := Decode(text, now); !back.SecondsOK || !back.Seconds.Equal(d.Seconds) {
			t.Fatalf("%q resolves to %v; written back as %q it resolves to %v", value, d.Seconds, text, back.Seconds)
		}
	})
}

// timeRat is the instant t in seconds since the epoch, exactly.
func timeRat(t time.Time) *big.Rat {
	ns := new(big.Int).Add(new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(1e9)), big.NewInt(int64(t.Nanosecond())))
	return new(big.Rat).SetFrac(ns, big.NewInt(1e9))
}

// checkFloor asserts that got is exact rounded down to the nanosecond:
// 0 <= exact - got < 1ns.
func checkFloor(t *testing.T, what string, exact *big.Rat, got time.Time) {
	t.Helper()
	diff := new(big.Rat).Sub(exact, timeRat(got))
	if diff.Sign() < 0 || diff.Cmp(big.NewRat(1, 1e9)) >= 0 {
		t.Fatalf("%s: %v is not %s rounded down to the nanosecond (off by %s s)", what, got, exact.FloatString(12), diff.FloatString(12))
	}
}
