package ttl

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// seg builds the tally of one segment from live and expired counts.
func seg(id int, live, expired int64) SegmentCounts {
	s := SegmentCounts{Segment: id, Items: live + expired}
	s.ByClass[Live], s.ByClass[Expired] = live, expired
	return s
}

func TestEstimateExactWhenAllSegmentsRead(t *testing.T) {
	for _, tc := range []struct {
		name       string
		segs       []SegmentCounts
		tableItems int64
		want       float64
		wantItems  float64
	}{
		{"mixed", []SegmentCounts{seg(0, 90, 10), seg(1, 50, 0), seg(2, 0, 50)}, 999, 60.0 / 200, 60},
		{"none", []SegmentCounts{seg(0, 10, 0), seg(1, 5, 0)}, 0, 0, 0},
		{"all", []SegmentCounts{seg(1, 0, 7), seg(0, 0, 3)}, 10, 1, 10},
		{"empty table", []SegmentCounts{seg(0, 0, 0)}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Sample{TotalSegments: len(tc.segs), TableItems: tc.tableItems, Segments: tc.segs}
			e, err := s.Estimate(SetOf(Expired))
			if err != nil {
				t.Fatal(err)
			}
			if !e.Exact || e.Fraction != tc.want || e.FractionLower != tc.want || e.FractionUpper != tc.want {
				t.Errorf("fraction = %v [%v, %v] exact=%v, want exactly %v", e.Fraction, e.FractionLower, e.FractionUpper, e.Exact, tc.want)
			}
			if e.Items != tc.wantItems || e.ItemsLower != tc.wantItems || e.ItemsUpper != tc.wantItems {
				t.Errorf("items = %v [%v, %v], want exactly %v", e.Items, e.ItemsLower, e.ItemsUpper, tc.wantItems)
			}
		})
	}
}

func TestEstimateZeroHitsHasUpperBound(t *testing.T) {
	var segs []SegmentCounts
	for i := range 100 {
		segs = append(segs, seg(i*7, 10, 0))
	}
	s := Sample{TotalSegments: 1000, TableItems: 10_000, Segments: segs}
	e, err := s.Estimate(SetOf(Expired))
	if err != nil {
		t.Fatal(err)
	}
	if e.Fraction != 0 || e.FractionLower != 0 || e.ItemsLower != 0 {
		t.Errorf("point/lower = %v/%v/%v, want 0", e.Fraction, e.FractionLower, e.ItemsLower)
	}
	// Worst case: 100 equal segments are 100 effective draws, so the upper
	// bound is about 1-(0.025)^(1/(100/0.9)) ≈ 3.3%, not 3.7/1000.
	if e.FractionUpper < 0.02 || e.FractionUpper > 0.05 {
		t.Errorf("upper = %v, want a worst-case bound near 3.3%%", e.FractionUpper)
	}
	if e.ItemsUpper != e.FractionUpper*10_000 || e.ItemsUpper > 9000 {
		t.Errorf("items upper = %v", e.ItemsUpper)
	}
	if e.DesignEffect != 10 || e.EffectiveSampleSize != 100 {
		t.Errorf("deff = %v, n_eff = %v, want 10 and 100", e.DesignEffect, e.EffectiveSampleSize)
	}
}

func TestEstimateProperties(t *testing.T) {
	segs := []SegmentCounts{seg(0, 9, 1), seg(1, 10, 0), seg(2, 5, 5), seg(3, 10, 0), seg(4, 8, 2)}
	for _, tc := range []struct {
		name       string
		n          int
		tableItems int64
	}{
		{"known size", 50, 500},
		{"unknown size", 50, 0},
		{"stale small ItemCount", 50, 20},
		{"nearly census", 6, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Sample{TotalSegments: tc.n, TableItems: tc.tableItems, Segments: segs}.Estimate(SetOf(Expired))
			if err != nil {
				t.Fatal(err)
			}
			if e.Fraction != 8.0/50 {
				t.Errorf("fraction = %v, want 0.16", e.Fraction)
			}
			if !(e.FractionLower < e.Fraction && e.Fraction < e.FractionUpper) ||
				!(e.ItemsLower <= e.Items && e.Items <= e.ItemsUpper) || e.ItemsLower < 8 {
				t.Errorf("bounds out of order: %+v", e)
			}
			if e.Exact || e.DesignEffect < 1 || e.TableItems < 50 {
				t.Errorf("unexpected %+v", e)
			}
			if e.TableItemsEstimated != (tc.tableItems < 50) {
				t.Errorf("TableItemsEstimated = %v", e.TableItemsEstimated)
			}
		})
	}
	// A larger sampling fraction never widens the interval (same data).
	wide, _ := Sample{TotalSegments: 1000, TableItems: 10_000, Segments: segs}.Estimate(SetOf(Expired))
	narrow, _ := Sample{TotalSegments: 6, TableItems: 60, Segments: segs}.Estimate(SetOf(Expired))
	if narrow.FractionUpper-narrow.FractionLower >= wide.FractionUpper-wide.FractionLower {
		t.Errorf("fpc did not narrow the interval")
	}
	// Sets of classes add up.
	both, _ := Sample{TotalSegments: 50, TableItems: 500, Segments: segs}.Estimate(SetOf(Live, Expired))
	if both.Fraction != 1 || both.FractionUpper != 1 {
		t.Errorf("live+expired = %+v", both)
	}
}

func TestEstimateSingleSegment(t *testing.T) {
	e, err := Sample{TotalSegments: 10, TableItems: 0, Segments: []SegmentCounts{seg(3, 90, 10)}}.Estimate(SetOf(Expired))
	if err != nil {
		t.Fatal(err)
	}
	if e.FractionLower > 0.01 || e.FractionUpper < 0.9 {
		t.Errorf("one segment must say almost nothing about the fraction: %+v", e)
	}
	// The table size is unknown and one segment shows no spread: the item
	// bounds come from the Poisson interval of the 100 items read, x10
	// segments, and must be finite (not +Inf, which was exported before).
	if math.IsInf(e.ItemsUpper, 0) || math.IsNaN(e.ItemsUpper) || e.ItemsUpper < e.Items || e.ItemsUpper > 1300 || e.ItemsLower != 10 {
		t.Errorf("items = %v [%v, %v], want finite bounds from 10 hits up to at most 1,300", e.Items, e.ItemsLower, e.ItemsUpper)
	}
}

// TestEstimateEqualProportionsEverywhere: every segment holds the class in
// the same proportion, so every residual is 0 and Satterthwaite's Σe⁴ is 0.
// The interval must be the finite binomial one, not NaN df and [0, 1].
func TestEstimateEqualProportionsEverywhere(t *testing.T) {
	var segs []SegmentCounts
	for i := range 20 {
		segs = append(segs, seg(i, 8, 2))
	}
	for _, items := range []int64{1000, 0} {
		e, err := Sample{TotalSegments: 100, TableItems: items, Segments: segs}.Estimate(SetOf(Expired))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []float64{e.FractionLower, e.FractionUpper, e.ItemsLower, e.ItemsUpper, e.DesignEffect} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("table items %d: non-finite figure in %+v", items, e)
			}
		}
		// 40 hits in 200 items with design effect 1: the Clopper–Pearson
		// interval (with the finite-population and df corrections) is
		// about [0.147, 0.256].
		if e.Fraction != 0.2 || e.FractionLower < 0.12 || e.FractionLower > 0.16 || e.FractionUpper < 0.24 || e.FractionUpper > 0.29 || e.DesignEffect != 1 {
			t.Errorf("table items %d: fraction %v [%v, %v], design effect %v; want 0.2 in about [0.147, 0.256], 1",
				items, e.Fraction, e.FractionLower, e.FractionUpper, e.DesignEffect)
		}
		// With the size unknown and every segment of 10 items, the t
		// interval for the size collapses; the Poisson floor keeps it open.
		if items == 0 && (e.ItemsUpper <= e.Items*1.1 || e.ItemsLower >= e.Items*0.9) {
			t.Errorf("unknown size: items %v [%v, %v] is too narrow for 20 of 100 segments", e.Items, e.ItemsLower, e.ItemsUpper)
		}
	}
}

// TestPoissonIntervalKnownAnswers checks the exact Poisson interval against
// published 95% values (Garwood 1936; for 100, half the chi-square
// quantiles of 200 and 202 degrees of freedom).
func TestPoissonIntervalKnownAnswers(t *testing.T) {
	for _, c := range []struct{ x, lo, hi float64 }{
		{0, 0, 3.6889}, {1, 0.0253, 5.5716}, {10, 4.7954, 18.3904}, {100, 81.364, 121.627},
	} {
		lo, hi := poissonInterval(c.x, 0.05)
		if math.Abs(lo-c.lo) > 1e-3 || math.Abs(hi-c.hi) > 1e-3 {
			t.Errorf("x=%v: [%.4f, %.4f], want [%.4f, %.4f]", c.x, lo, hi, c.lo, c.hi)
		}
	}
}

func TestEstimateErrors(t *testing.T) {
	bad := seg(1, 5, 5)
	bad.Items = 11
	for _, tc := range []struct {
		name string
		s    Sample
		want error
	}{
		{"no segments", Sample{TotalSegments: 4}, nil},
		{"zero TotalSegments", Sample{Segments: []SegmentCounts{seg(0, 1, 0)}}, nil},
		{"too many", Sample{TotalSegments: 1, Segments: []SegmentCounts{seg(0, 1, 0), seg(1, 1, 0)}}, nil},
		{"out of range", Sample{TotalSegments: 4, Segments: []SegmentCounts{seg(4, 1, 0)}}, nil},
		{"duplicate", Sample{TotalSegments: 4, Segments: []SegmentCounts{seg(2, 1, 0), seg(2, 1, 0)}}, nil},
		{"counts", Sample{TotalSegments: 4, Segments: []SegmentCounts{bad}}, nil},
		{"negative", Sample{TotalSegments: 4, Segments: []SegmentCounts{seg(0, -1, 1)}}, nil},
		{"negative ItemCount", Sample{TotalSegments: 4, TableItems: -1, Segments: []SegmentCounts{seg(0, 1, 0)}}, nil},
		{"empty sample", Sample{TotalSegments: 4, Segments: []SegmentCounts{seg(0, 0, 0)}}, ErrEmptySample},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.Estimate(SetOf(Expired))
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "ttl: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		items      int64
		wantN      int
		wantK      int
		wantOK     bool
		wantExact  bool
		budget, sz int
	}{
		{200_000, 20_000, 150, true, false, 1500, 10},
		{1000, 1, 1, true, true, 1500, 10},
		{0, 0, 0, false, false, 1500, 10},
		{1e12, MaxTotalSegments, 2, true, false, 1500, 10},
		{15_000, 1500, 150, true, false, 1500, 10},
	} {
		n, k, ok := Plan(tc.items, tc.budget, tc.sz)
		if n != tc.wantN || k != tc.wantK || ok != tc.wantOK {
			t.Errorf("Plan(%d) = %d, %d, %v; want %d, %d, %v", tc.items, n, k, ok, tc.wantN, tc.wantK, tc.wantOK)
		}
	}
}

func TestMarginOfError(t *testing.T) {
	if got := MarginOfError(0.2, 1500, 20); math.Abs(got-0.4526) > 1e-3 {
		t.Errorf("MarginOfError(0.2, 1500, 20) = %v", got)
	}
	if !math.IsInf(MarginOfError(0, 1500, 1), 1) || MarginOfError(1, 1500, 1) != 0 {
		t.Error("edge cases")
	}
}
