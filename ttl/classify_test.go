package ttl

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// testNow is 2026-10-01T00:00:00Z.
var testNow = time.Unix(1790812800, 0).UTC()

func TestClassifyNumber(t *testing.T) {
	now := strconv.FormatInt(testNow.Unix(), 10)
	fiveYears := strconv.FormatInt(testNow.AddDate(-5, 0, 0).Unix(), 10) // 2021-10-01
	fiveYearsMinus1 := strconv.FormatInt(testNow.AddDate(-5, 0, 0).Unix()-1, 10)
	for _, tc := range []struct {
		value string
		want  Class
	}{
		{now, Expired},             // exactly now is not in the future
		{now + ".000000001", Live}, // just after now
		{now + ".0000000000000000000000001", Live},
		{"1790812799.999999999", Expired},
		{"1790812801", Live},
		{"1.790812801E9", Live}, // exponent notation
		{"17908128.01e2", Live},
		{"0.1790812801e+10", Live},
		{"+1790812801", Live},
		{"001790812801.000", Live},
		{"1.7908128E9", Expired},  // = now
		{fiveYears, Expired},      // exactly five years ago: still deleted
		{fiveYearsMinus1, TooOld}, // one second more
		{"1600000000", TooOld},
		{"0", TooOld},
		{"-0", TooOld},
		{"-1790812801", TooOld}, // negative
		{"-1e125", TooOld},
		{"1e11", Live},                    // year 5138: still seconds
		{"100000000001", FarFuture},       // > 1e11
		{"1e12", FarFuture},               // boundary: not above 1e12
		{"1000000000000.5", Milliseconds}, // just above 1e12
		{"1790812800000", Milliseconds},   // ms
		{"1e15", Milliseconds},
		{"1790812800000000", Microseconds}, // µs
		{"1e18", Microseconds},
		{"1790812800000000000", Nanoseconds}, // ns
		{"1e21", Nanoseconds},
		{"1000000000000000000001", FarFuture},
		{"12345678901234567890123456789012345678", FarFuture}, // 38 digits
		{"9.9999999999999999999999999999999999999E+125", FarFuture},
		{"1790812801.0000000000000000000000000001", Live}, // 38 significant digits
		// Not DynamoDB numbers.
		{"123456789012345678901234567890123456789", InvalidNumber}, // 39 digits
		{"1E126", InvalidNumber},
		{"1E-131", InvalidNumber},
		{"", InvalidNumber},
		{"-", InvalidNumber},
		{".", InvalidNumber},
		{"1e", InvalidNumber},
		{"1e+", InvalidNumber},
		{"e5", InvalidNumber},
		{" 1790812801", InvalidNumber},
		{"1790812801 ", InvalidNumber},
		{"1_790_812_801", InvalidNumber},
		{"0x6abd5a00", InvalidNumber},
		{"Inf", InvalidNumber},
		{"NaN", InvalidNumber},
		{"1.2.3", InvalidNumber},
		{"--1", InvalidNumber},
		{"0e999999999999", TooOld}, // zero whatever the exponent
		{"1e999999999999", InvalidNumber},
		{".5", TooOld},
		{"5.", TooOld},
	} {
		if got := ClassifyNumber(tc.value, testNow); got != tc.want {
			t.Errorf("ClassifyNumber(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	const attr = "expires_at"
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	for _, tc := range []struct {
		name string
		item map[string]types.AttributeValue
		want Class
	}{
		{"live", map[string]types.AttributeValue{attr: n("1790899200")}, Live},
		{"expired", map[string]types.AttributeValue{attr: n("1790726400")}, Expired},
		{"missing", map[string]types.AttributeValue{"other": n("1790899200")}, Missing},
		{"nil item", nil, Missing},
		{"nil value", map[string]types.AttributeValue{attr: nil}, Missing},
		{"nil N", map[string]types.AttributeValue{attr: (*types.AttributeValueMemberN)(nil)}, Missing},
		{"string", map[string]types.AttributeValue{attr: &types.AttributeValueMemberS{Value: "1790899200"}}, WrongType},
		{"binary", map[string]types.AttributeValue{attr: &types.AttributeValueMemberB{Value: []byte{1}}}, WrongType},
		{"bool", map[string]types.AttributeValue{attr: &types.AttributeValueMemberBOOL{Value: true}}, WrongType},
		{"null", map[string]types.AttributeValue{attr: &types.AttributeValueMemberNULL{Value: true}}, WrongType},
		{"number set", map[string]types.AttributeValue{attr: &types.AttributeValueMemberNS{Value: []string{"1790899200"}}}, WrongType},
		{"string set", map[string]types.AttributeValue{attr: &types.AttributeValueMemberSS{Value: []string{"x"}}}, WrongType},
		{"binary set", map[string]types.AttributeValue{attr: &types.AttributeValueMemberBS{Value: [][]byte{{1}}}}, WrongType},
		{"list", map[string]types.AttributeValue{attr: &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1790899200")}}}, WrongType},
		{"map", map[string]types.AttributeValue{attr: &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{attr: n("1790899200")}}}, WrongType},
		{"unknown member", map[string]types.AttributeValue{attr: &types.UnknownUnionMember{Tag: "X"}}, WrongType},
		{"nested only", map[string]types.AttributeValue{"meta": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{attr: n("1790899200")}}}, Missing},
		{"milliseconds", map[string]types.AttributeValue{attr: n("1790899200000")}, Milliseconds},
		{"invalid", map[string]types.AttributeValue{attr: n("soon")}, InvalidNumber},
	} {
		if got := Classify(tc.item, attr, testNow); got != tc.want {
			t.Errorf("%s: Classify = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestClassNames(t *testing.T) {
	want := []string{"live", "expired", "missing", "wrong_type", "milliseconds", "microseconds",
		"nanoseconds", "far_future", "too_old", "invalid_number"}
	never := map[Class]bool{WrongType: true, Milliseconds: true, Microseconds: true, Nanoseconds: true,
		FarFuture: true, TooOld: true, InvalidNumber: true}
	classes := Classes()
	if len(classes) != len(want) {
		t.Fatalf("%d classes, want %d", len(classes), len(want))
	}
	for i, c := range classes {
		if c.String() != want[i] {
			t.Errorf("class %d = %q, want %q", i, c, want[i])
		}
		if p, ok := ParseClass(want[i]); !ok || p != c {
			t.Errorf("ParseClass(%q) = %v, %v", want[i], p, ok)
		}
		if c.NeverExpires() != never[c] {
			t.Errorf("%v.NeverExpires() = %v", c, c.NeverExpires())
		}
		if c.Description() == "" {
			t.Errorf("%v has no description", c)
		}
	}
	if Class(NumClasses).String() != "unknown" || Class(NumClasses).Valid() {
		t.Error("undefined class")
	}
	if got := SetOf(Expired, TooOld).String(); got != "expired+too_old" {
		t.Errorf("set = %q", got)
	}
	if ClassSet(0).String() != "none" {
		t.Error("empty set")
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		value      string
		class      Class
		unit       Unit
		seconds    string // RFC 3339, "" when out of range
		likelyUnit string
	}{
		{"1790899200", Live, UnitSeconds, "2026-10-02T00:00:00Z", "2026-10-02T00:00:00Z"},
		{"1790899200.5", Live, UnitSeconds, "2026-10-02T00:00:00.5Z", "2026-10-02T00:00:00.5Z"},
		{"1790899200000", Milliseconds, UnitMilliseconds, "58721-05-04T00:00:00Z", "2026-10-02T00:00:00Z"},
		{"1790899200000000", Microseconds, UnitMicroseconds, "", "2026-10-02T00:00:00Z"},
		{"1790899200123456789", Nanoseconds, UnitNanoseconds, "", "2026-10-02T00:00:00.123456789Z"},
		{"-1", TooOld, UnitSeconds, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"},
		{"-0.5", TooOld, UnitSeconds, "1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59.5Z"},
	} {
		d := Decode(tc.value, testNow)
		if !d.Valid || d.Class != tc.class || d.LikelyUnit != tc.unit {
			t.Errorf("Decode(%q) = %+v", tc.value, d)
			continue
		}
		if tc.seconds == "" {
			if d.SecondsOK && d.Seconds.Year() < 1e6 {
				t.Errorf("Decode(%q).Seconds = %v, want far beyond year 1e6", tc.value, d.Seconds)
			}
		} else if got := d.Seconds.Format(time.RFC3339Nano); !d.SecondsOK || got != tc.seconds {
			t.Errorf("Decode(%q).Seconds = %s, want %s", tc.value, got, tc.seconds)
		}
		if got := d.InLikelyUnit.Format(time.RFC3339Nano); got != tc.likelyUnit {
			t.Errorf("Decode(%q).InLikelyUnit = %s, want %s", tc.value, got, tc.likelyUnit)
		}
	}
	if d := Decode("9e125", testNow); !d.Valid || d.SecondsOK || d.Class != FarFuture {
		t.Errorf("huge: %+v", d)
	}
	if d := Decode("x", testNow); d.Valid || d.Class != InvalidNumber || !d.Seconds.IsZero() {
		t.Errorf("invalid: %+v", d)
	}
	if UnitMicroseconds.String() != "microseconds" || Unit(9).String() != "unknown" {
		t.Error("unit names")
	}
}
