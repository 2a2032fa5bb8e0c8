package ttl

import "math"

// Confidence is the nominal coverage of every interval this package returns.
const Confidence = 0.95

// Estimate is the estimated share of a set of classes in a table, with
// bounds of a Confidence (95%) interval.
type Estimate struct {
	// Classes is the set of classes estimated.
	Classes ClassSet
	// Fraction is the estimated fraction of the table's items whose class
	// is in Classes, with its interval.
	Fraction, FractionLower, FractionUpper float64
	// Items is the estimated number of such items, with its interval.
	Items, ItemsLower, ItemsUpper float64
	// TableItems is the table size used: DynamoDB's ItemCount or, when that
	// is unknown or smaller than the items read, the estimate
	// TotalSegments/SegmentsRead × SampleItems; then TableItemsEstimated is
	// true. After a full read it is the count read.
	TableItems          float64
	TableItemsEstimated bool
	// SampleItems and SampleHits count the items read and those in Classes.
	SampleItems, SampleHits int64
	// SegmentsRead (k) and TotalSegments (N) describe the design.
	SegmentsRead, TotalSegments int
	// DesignEffect is the variance of the estimated fraction relative to a
	// simple random sample of as many items (at least 1). With no hits (or
	// only hits) the clustering cannot be measured and the worst case is
	// assumed: see Sample.Estimate.
	DesignEffect float64
	// EffectiveSampleSize is SampleItems / DesignEffect: the number of
	// independently drawn items the sample is worth.
	EffectiveSampleSize float64
	// Exact is true when every segment was read: the figures are counts and
	// every interval collapses to its point.
	Exact bool
}

// Estimate estimates the fraction and number of the table's items whose
// class is in set.
//
// # Method
//
// The sample is a one-stage cluster sample: k of N scan segments drawn by
// simple random sampling without replacement, each read completely. Segments
// are cut by hash of the partition key, so all items of a partition key fall
// in one segment, and classes are strongly correlated within a partition key
// (one tenant, one code path). Treating the items as independent would
// understate the variance by the design effect, which is often 5–50 here.
//
//  1. Point estimate: the ratio estimator p̂ = Σyᵢ / Σmᵢ (hits over items
//     read, summed over segments). It needs no table size and is consistent
//     for the item-level fraction whatever the segment sizes.
//  2. Variance: the cluster-robust (Taylor-linearised) variance of a ratio,
//     v(p̂) = (1 − k/N) · k/(k−1) · Σ(yᵢ − p̂mᵢ)² / (Σmᵢ)², with the finite
//     population correction 1 − k/N over segments. It uses only
//     between-segment variation, so any within-segment correlation is
//     accounted for, and it is exactly 0 when k = N.
//  3. Interval: Korn and Graubard's (1998) Clopper–Pearson interval on the
//     effective sample size. The design effect d = v(p̂)/v_SRS(p̂), floored
//     at 1, gives n_eff = Σmᵢ/d; the degrees-of-freedom correction
//     n* = n_eff/(1−k/N) · (t_{n−1}/t_ν)² makes it agree with a t interval
//     on ν df; the interval is the exact binomial (Beta-quantile) interval
//     for x* = p̂·n* successes in n* trials. ν is not k−1 but the smaller
//     Satterthwaite effective df of the variance, (Σeᵢ²)²/Σeᵢ⁴ with
//     eᵢ = yᵢ − p̂mᵢ: when the class sits in a few segments, the variance
//     rests on those few and k−1 df would be far too optimistic (in the
//     tests, plain k−1 df gave 83–87% coverage for a clustered 3% class,
//     this gives 93–97%). When every residual is 0 (the class has the same
//     proportion in every segment read, e.g. 2 of 10 items in each), Σeᵢ⁴ = 0
//     and the Satterthwaite ratio is 0/0: no residual dominates, which is
//     the case where the effective df reach their maximum, so ν = k−1, and
//     the design effect is its floor 1 (the segments vary less than
//     independent items would): the interval is the Clopper–Pearson
//     interval of Σmᵢ independent items, defined and finite instead of NaN
//     degrees of freedom and a silent [0, 1]. Unlike a Wald
//     interval (p̂ ± t·√v) it is asymmetric, stays inside [0, 1], and
//     keeps its coverage for rare classes and few clusters, where the
//     sampling distribution of p̂ is badly skewed. It is known to be
//     somewhat conservative, which is the side to err on for an alert.
//  4. Zero hits (or only hits): v(p̂) = 0 and the clustering of the class
//     cannot be measured. The worst case, each segment entirely in or out
//     of the class, is assumed: d = Σmᵢ²/Σmᵢ, so n_eff = (Σmᵢ)²/Σmᵢ² is
//     Kish's effective number of segments. The upper bound is then roughly
//     3.7/k rather than 3.7/Σmᵢ: seeing no hit in k segments is evidence
//     about k clusters, not about Σmᵢ independent items. The same worst
//     case is used when k = 1 (no between-segment variation to measure).
//  5. Item counts: with a known ItemCount M, Items = p̂·M and its bounds
//     are the fraction bounds times M (M is taken as exact), and never
//     below the hits seen. Without ItemCount (0), or with one below the
//     items read (surely stale), M is estimated by N/k·Σmᵢ with its own t
//     interval on k−1 df, and the item bounds combine a 97.5% fraction
//     interval with a 97.5% interval for M (Bonferroni: at least 95%
//     jointly).
//
// With k = N every figure is an exact count and the interval collapses.
//
// Caveats: ItemCount may lag by hours; the segments must be chosen at random
// before reading (not "until the budget is spent"); coverage is nominal, and
// with a handful of segments that hold a large share of the class (a giant
// partition key) no design-based interval can be trusted: read more
// segments.
func (s Sample) Estimate(set ClassSet) (Estimate, error) {
	if err := s.validate(); err != nil {
		return Estimate{}, err
	}
	k, n := len(s.Segments), s.TotalSegments
	m := make([]float64, k)
	y := make([]float64, k)
	var ms, ys int64
	for i := range s.Segments {
		seg := &s.Segments[i]
		hits := seg.Count(set)
		m[i], y[i] = float64(seg.Items), float64(hits)
		ms += seg.Items
		ys += hits
	}
	e := Estimate{
		Classes:       set,
		SampleItems:   ms,
		SampleHits:    ys,
		SegmentsRead:  k,
		TotalSegments: n,
	}
	if k == n {
		return census(e), nil
	}
	if ms == 0 {
		return Estimate{}, ErrEmptySample
	}
	alpha := 1 - Confidence
	r := ratioInterval(m, y, n, alpha)
	e.Fraction, e.FractionLower, e.FractionUpper = r.p, r.lo, r.hi
	e.DesignEffect, e.EffectiveSampleSize = r.deff, float64(ms)/r.deff

	if s.TableItems >= ms {
		total := float64(s.TableItems)
		e.TableItems = total
		e.Items = e.Fraction * total
		// The hits seen are certainly in the table.
		e.ItemsLower = max(e.FractionLower*total, float64(ys))
		e.ItemsUpper = max(e.FractionUpper*total, float64(ys))
		return e, nil
	}

	// Unknown table size (or an ItemCount below what was read, so surely
	// stale): estimate it, and split alpha between the two intervals
	// (Bonferroni).
	tot, totLo, totHi := expansionTotal(m, n, alpha/2)
	totLo = max(totLo, float64(ms))
	half := ratioInterval(m, y, n, alpha/2)
	e.TableItems, e.TableItemsEstimated = tot, true
	e.Items = e.Fraction * tot
	e.ItemsLower = max(half.lo*totLo, float64(ys))
	e.ItemsUpper = min(half.hi*totHi, totHi-float64(ms-ys))
	return e, nil
}

// census fills e for a sample that read every segment.
func census(e Estimate) Estimate {
	e.Exact = true
	if e.SampleItems > 0 {
		e.Fraction = float64(e.SampleHits) / float64(e.SampleItems)
	}
	e.FractionLower, e.FractionUpper = e.Fraction, e.Fraction
	e.Items = float64(e.SampleHits)
	e.ItemsLower, e.ItemsUpper = e.Items, e.Items
	e.TableItems = float64(e.SampleItems)
	e.DesignEffect, e.EffectiveSampleSize = 1, float64(e.SampleItems)
	return e
}

// ratio is a ratio estimate with its interval and design effect.
type ratio struct {
	p, lo, hi, deff float64
}

// ratioInterval computes steps 1–4 of Sample.Estimate for segment sizes m
// and hits y (k = len(m) < n segments, Σm > 0) at level 1-alpha.
func ratioInterval(m, y []float64, n int, alpha float64) ratio {
	k := float64(len(m))
	var ms, ys, mm float64
	for i := range m {
		ms += m[i]
		ys += y[i]
		mm += m[i] * m[i]
	}
	p := ys / ms
	fpc := 1 - k/float64(n)
	deff := mm / ms // worst case: segments homogeneous in class
	df := k - 1
	if k >= 2 && p > 0 && p < 1 {
		var ss, s4 float64
		for i := range m {
			d := y[i] - p*m[i]
			ss += d * d
			s4 += d * d * d * d
		}
		// v(p̂) = fpc·k/(k−1)·ss/ms²; v_SRS = fpc·p(1−p)/ms.
		deff = max(1, k/(k-1)*ss/(ms*p*(1-p)))
		// Satterthwaite: the variance rests on few segments when few
		// residuals dominate; its effective df is (Σeᵢ²)²/Σeᵢ⁴. With every
		// residual 0 (equal proportions everywhere) no residual dominates:
		// keep k−1 (see step 3).
		if s4 > 0 {
			df = min(df, max(1, ss*ss/s4))
		}
	}
	nstar := ms / deff / fpc
	if k >= 2 && ms >= 2 {
		adj := tQuantile(1-alpha/2, ms-1) / tQuantile(1-alpha/2, df)
		nstar *= adj * adj
	}
	lo, hi := clopperPearson(p*nstar, nstar, alpha)
	return ratio{p: p, lo: lo, hi: hi, deff: deff}
}

// expansionTotal estimates the table's item count N/k·Σm at level 1-alpha:
// the wider of a t interval on k−1 df (k ≥ 2) and the exact Poisson
// interval of Σm scaled by N/k (the only one for k = 1). Both are finite.
func expansionTotal(m []float64, n int, alpha float64) (tot, lo, hi float64) {
	k := float64(len(m))
	var ms float64
	for _, v := range m {
		ms += v
	}
	scale := float64(n) / k
	tot = scale * ms
	plo, phi := poissonInterval(ms, alpha)
	lo, hi = scale*plo, scale*phi
	if len(m) < 2 {
		return tot, lo, hi
	}
	mean := ms / k
	var ss float64
	for _, v := range m {
		ss += (v - mean) * (v - mean)
	}
	se := float64(n) * math.Sqrt((1-k/float64(n))*ss/(k-1)/k)
	t := tQuantile(1-alpha/2, k-1)
	return tot, max(0, min(lo, tot-t*se)), max(hi, tot+t*se)
}

// poissonInterval returns the exact (Garwood) interval for the mean of a
// Poisson count x at confidence 1-alpha: lo solves P(X ≥ x) = alpha/2 (0
// for x = 0) and hi solves P(X ≤ x) = alpha/2.
func poissonInterval(x, alpha float64) (lo, hi float64) {
	x = math.Round(x)
	top := x + 20 + 10*math.Sqrt(x+1)
	hi = bisect(x, top, func(l float64) bool { return poissonCDF(x, l) > alpha/2 })
	if x > 0 {
		lo = bisect(0, x, func(l float64) bool { return 1-poissonCDF(x-1, l) < alpha/2 })
	}
	return lo, hi
}

// bisect returns the point in [a, b] where below turns from true to false.
func bisect(a, b float64, below func(float64) bool) float64 {
	for range 200 {
		mid := a + (b-a)/2
		if below(mid) {
			a = mid
		} else {
			b = mid
		}
		if b-a <= 1e-9*max(1, b) {
			break
		}
	}
	return a + (b-a)/2
}

// poissonCDF returns P(X ≤ x) for X Poisson with mean l (x a whole number).
func poissonCDF(x, l float64) float64 {
	if x < 0 {
		return 0
	}
	if l <= 0 {
		return 1
	}
	// Sum the terms from the largest one outwards in log space, so that
	// neither e^-l nor lⁱ/i! under- or overflows.
	mode := math.Min(x, math.Floor(l))
	logTerm := func(i float64) float64 {
		lg, _ := math.Lgamma(i + 1)
		return i*math.Log(l) - l - lg
	}
	peak := logTerm(mode)
	sum := 0.0
	for i := mode; i >= 0; i-- {
		t := math.Exp(logTerm(i) - peak)
		sum += t
		if t < 1e-17*sum {
			break
		}
	}
	for i := mode + 1; i <= x; i++ {
		t := math.Exp(logTerm(i) - peak)
		sum += t
		if t < 1e-17*sum {
			break
		}
	}
	return math.Min(1, sum*math.Exp(peak))
}
