package ttl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func nv(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func TestEpochTime(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sec := now.Unix()
	cases := []struct {
		av   types.AttributeValue
		want float64
		ok   bool
	}{
		{nv(strconv.FormatInt(sec+3600, 10)), float64(sec + 3600), true},
		{nv(strconv.FormatInt(sec-86400, 10)), float64(sec - 86400), true},
		{nv(strconv.FormatInt((sec+60)*1000, 10)), float64(sec + 60), true}, // milliseconds
		{nv(strconv.FormatInt(now.AddDate(-6, 0, 0).Unix(), 10)), 0, false}, // beyond five years back
		{nv(strconv.FormatInt(now.AddDate(25, 0, 0).Unix(), 10)), 0, false}, // beyond 20 years ahead
		{nv(strconv.FormatInt((sec+60)*1000000, 10)), 0, false},             // microseconds: not taken
		{nv("42"), 0, false},
		{nv("not a number"), 0, false},
		{&types.AttributeValueMemberS{Value: strconv.FormatInt(sec, 10)}, 0, false},
		{nil, 0, false},
	}
	for i, c := range cases {
		got, ok := EpochTime(c.av, now)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("case %d: EpochTime = %v, %v; want %v, %v", i, got, ok, c.want, c.ok)
		}
	}
}

// tally builds one segment's tally from items described as attribute → seconds from now.
func tally(now time.Time, items ...map[string]int64) (CandidateTally, int64) {
	var tl CandidateTally
	for _, it := range items {
		item := map[string]types.AttributeValue{"pk": nv(strconv.FormatInt(now.Unix(), 10))}
		for k, d := range it {
			item[k] = nv(strconv.FormatInt(now.Unix()+d, 10))
		}
		tl.Add(item, "ttl", func(n string) bool { return n == "pk" }, now)
	}
	return tl, int64(len(items))
}

func TestChooseCandidate(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	rep := func(n int, it map[string]int64) []map[string]int64 {
		out := make([]map[string]int64, n)
		for i := range out {
			out[i] = it
		}
		return out
	}
	t.Run("an expiry beats a creation time carried as often", func(t *testing.T) {
		items := append(rep(6, map[string]int64{"created": -7200, "expiresAt": -3600}), rep(4, map[string]int64{"created": -7200, "expiresAt": 3600})...)
		items = append(items, rep(3, map[string]int64{"ttl": 60, "created": -7200})...)
		tl, n := tally(now, items...)
		c, err := ChooseCandidate(1, 0, []SegmentCandidates{{Segment: 0, Items: n, Tally: tl}}, now)
		if err != nil {
			t.Fatal(err)
		}
		if c.Attribute != "expiresAt" || c.Carried.Items != 10 || c.Expired.Items != 6 || c.MissingItems != 10 || !c.Carried.Exact {
			t.Errorf("got %q carried %v expired %v missing %d", c.Attribute, c.Carried.Items, c.Expired.Items, c.MissingItems)
		}
		if c.Carried.Fraction != 10.0/13 {
			t.Errorf("share %v, want 10/13", c.Carried.Fraction)
		}
	})
	t.Run("the share of future values is reported", func(t *testing.T) {
		items := append(rep(6, map[string]int64{"expiresAt": -3600}), rep(4, map[string]int64{"expiresAt": 3600})...)
		tl, n := tally(now, items...)
		c, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now)
		if err != nil || c.FutureFraction != 0.4 {
			t.Errorf("future fraction %v, err %v; want 0.4", c.FutureFraction, err)
		}
	})
	t.Run("an update time that tracks the clock is not an expiry", func(t *testing.T) {
		// updated_at on profiles kept for good: one written every minute
		// or so up to now, none in the future.
		var items []map[string]int64
		for i := range 200 {
			items = append(items, map[string]int64{"updated_at": -int64(i*67 + 30)})
		}
		items = append(items, rep(40, map[string]int64{"ttl": 3600})...)
		tl, n := tally(now, items...)
		if c, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now); !errors.Is(err, ErrNoCandidate) {
			t.Errorf("named %q (future fraction %v) for an update time; want none", c.Attribute, c.FutureFraction)
		}
		// The same times 2 days later: nothing written since, the gap is
		// 2 days against spacings of a minute: the writer stopped.
		if c, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now.Add(48*time.Hour)); err != nil || c.Attribute != "updated_at" {
			t.Errorf("got %q, %v; want updated_at named once its values stopped long ago", c.Attribute, err)
		}
	})
	t.Run("expiries of a writer since fixed are named, all past", func(t *testing.T) {
		// expiresAt written until 2 days ago with 12 hours to live: the
		// latest passed 36 hours ago, the values are 30 minutes apart.
		var items []map[string]int64
		for i := range 200 {
			items = append(items, map[string]int64{"expiresAt": -36*3600 - int64(i*1800)})
		}
		tl, n := tally(now, items...)
		c, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now)
		if err != nil || c.Attribute != "expiresAt" || c.FutureFraction != 0 || c.Expired.Items != 200 {
			t.Errorf("got %+v, %v; want expiresAt, all 200 expired, none in the future", c, err)
		}
	})
	t.Run("a key attribute is never a candidate", func(t *testing.T) {
		tl, n := tally(now, rep(10, map[string]int64{})...)
		if _, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now); !errors.Is(err, ErrNoCandidate) {
			t.Errorf("err %v, want ErrNoCandidate (pk holds an epoch time but is the key)", err)
		}
	})
	t.Run("a name held by few items is not named", func(t *testing.T) {
		var items []map[string]int64
		for i := range 20 {
			items = append(items, map[string]int64{fmt.Sprintf("user-%02d", i): 3600})
		}
		tl, n := tally(now, items...)
		if c, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now); !errors.Is(err, ErrNoCandidate) {
			t.Errorf("named %q from per-item attribute names; want none", c.Attribute)
		}
		if len(tl.ByName) > MaxCandidateNames {
			t.Errorf("tally keeps %d names, cap %d", len(tl.ByName), MaxCandidateNames)
		}
	})
	t.Run("the name cap holds", func(t *testing.T) {
		var items []map[string]int64
		for i := range 2 * MaxCandidateNames {
			items = append(items, map[string]int64{"n" + strings.Repeat("x", i%100) + strconv.Itoa(i): 3600})
		}
		tl, _ := tally(now, items...)
		if len(tl.ByName) != MaxCandidateNames || !tl.Overflow {
			t.Errorf("names %d overflow %v; want %d, true", len(tl.ByName), tl.Overflow, MaxCandidateNames)
		}
	})
	t.Run("fewer than the minimum carriers", func(t *testing.T) {
		tl, n := tally(now, rep(MinCandidateItems-1, map[string]int64{"expiresAt": 60})...)
		if _, err := ChooseCandidate(1, 0, []SegmentCandidates{{Items: n, Tally: tl}}, now); !errors.Is(err, ErrNoCandidate) {
			t.Errorf("err %v, want ErrNoCandidate", err)
		}
	})
	t.Run("a partial sample gives an interval holding the hits", func(t *testing.T) {
		var segs []SegmentCandidates
		for s := range 4 {
			tl, n := tally(now, append(rep(30+s, map[string]int64{"expiresAt": -60}), rep(5, map[string]int64{"ttl": 60})...)...)
			segs = append(segs, SegmentCandidates{Segment: s * 3, Items: n, Tally: tl})
		}
		c, err := ChooseCandidate(12, 1500, segs, now)
		if err != nil {
			t.Fatal(err)
		}
		if c.Expired.Exact || c.Expired.ItemsLower > c.Expired.Items || c.Expired.Items > c.Expired.ItemsUpper || c.Expired.ItemsLower < 126 {
			t.Errorf("expired %+v; want an interval around the estimate, not below the 126 hits", c.Expired)
		}
	})
}
