package ttl

import (
	"math"
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
