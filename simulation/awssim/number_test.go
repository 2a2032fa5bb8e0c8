package awssim

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestParseDecNumber(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		size     int64
		err      string
	}{
		{in: "0", want: "0", size: 1},
		{in: "-0.00e5", want: "0", size: 1},
		{in: "123", want: "123", size: 3},
		{in: "1234", want: "1234", size: 3},
		{in: "1700000000", want: "1700000000", size: 2},
		{in: ".5", want: "0.5", size: 2},
		{in: "5.", want: "5", size: 2},
		{in: "-1.25E-3", want: "-0.00125", size: 3},
		{in: "9.9999e125", want: "99999" + zeros(121), size: 4},
		{in: "1e126", err: msgNumOverflow},
		{in: "1e-130", want: "0." + zeros(129) + "1", size: 2},
		{in: "1e-131", err: msgNumUnderflow},
		{in: "12345678901234567890123456789012345678", want: "12345678901234567890123456789012345678", size: 20},
		{in: "123456789012345678901234567890123456789", err: msgTooManyDigits},
		{in: "1e99999999999999999999", err: msgNumOverflow},
		{in: "", err: msgNotANumber},
		{in: "abc", err: msgNotANumber},
		{in: "1e", err: msgNotANumber},
		{in: " 1", err: msgNotANumber},
		{in: "0x10", err: msgNotANumber},
		{in: "NaN", err: msgNotANumber},
		{in: "1e+-2", err: msgNotANumber},
	} {
		n, err := parseDecNumber(tc.in)
		if tc.err != "" {
			if err == nil || err.(*apiError).msg != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || n.String() != tc.want || n.size() != tc.size {
			t.Errorf("%q: got %q size %d err %v, want %q size %d", tc.in, n.String(), n.size(), err, tc.want, tc.size)
		}
	}
	a, _ := parseDecNumber("-10")
	b, _ := parseDecNumber("-9.5")
	c, _ := parseDecNumber("0.001")
	if compareDec(a, b) >= 0 || compareDec(b, c) >= 0 || compareDec(c, a) <= 0 {
		t.Error("numbers misordered")
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func TestItemSizeFollowsTheDocumentedRules(t *testing.T) {
	it := map[string]types.AttributeValue{
		"s":  sv("abc"),                                                                          // 1 + 3
		"n":  nv("12345"),                                                                        // 1 + 3 + 1
		"b":  &types.AttributeValueMemberB{Value: []byte{1}},                                     // 1 + 1
		"t":  &types.AttributeValueMemberBOOL{Value: true},                                       // 1 + 1
		"nl": &types.AttributeValueMemberNULL{Value: true},                                       // 2 + 1
		"ss": &types.AttributeValueMemberSS{Value: []string{"ab", "c"}},                          // 2 + 3
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{sv("x"), nv("1")}},      // 1 + 3 + (1+1) + (2+1)
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": sv("v")}}, // 1 + 3 + (1+1+1)
		"e":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},             // 1 + 3
	}
	got, err := ItemSize(it)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(4 + 5 + 2 + 2 + 3 + 5 + 9 + 7 + 4); got != want {
		t.Fatalf("size %d, want %d", got, want)
	}
}
