package ttl

import "math"

// Sampling defaults. The coverage tests (coverage_test.go) run at this
// budget: about 1,500 items read as about 150 segments of 10 items.
const (
	// DefaultSampleItems is the default number of items to read per check.
	DefaultSampleItems = 1500
	// DefaultItemsPerSegment is the default target segment size. Small
	// segments mean many independent clusters for the same number of items
	// read, which both narrows the interval and keeps its coverage: with
	// about 10 segments of 150 items instead, the interval for a clustered
	// 3% class covered about 93.5% of the time in the tests instead of
	// 97%.
	DefaultItemsPerSegment = 10
	// MaxTotalSegments is DynamoDB's limit on a parallel scan's
	// TotalSegments.
	MaxTotalSegments = 1_000_000
)

// Plan chooses a parallel-scan design for a table of tableItems items
// (DynamoDB's ItemCount): split it into totalSegments segments of about
// itemsPerSegment items and read segmentsToRead of them, chosen uniformly at
// random without replacement before reading, for about sampleItems items.
// A table no larger than the budget is read whole (one segment, exact).
// ok is false when tableItems is unknown (0) or an argument is not
// positive: the caller must then decide, e.g. read the whole table in an
// emulator.
func Plan(tableItems int64, sampleItems, itemsPerSegment int) (totalSegments, segmentsToRead int, ok bool) {
	if tableItems <= 0 || sampleItems <= 0 || itemsPerSegment <= 0 {
		return 0, 0, false
	}
	if tableItems <= int64(sampleItems) {
		return 1, 1, true
	}
	n := (tableItems + int64(itemsPerSegment) - 1) / int64(itemsPerSegment)
	n = min(max(n, 1), MaxTotalSegments)
	k := int64(math.Ceil(float64(sampleItems) * float64(n) / float64(tableItems)))
	k = min(max(k, 2), n)
	return int(n), int(k), true
}

// MarginOfError returns the approximate relative half-width of the 95%
// interval for a class holding fraction of the table, from a sample of
// sampleItems items with the given design effect: z·√(d·(1−p)/(n·p)).
// With a design effect of 1 it is the simple-random-sample figure; for
// classes assigned per partition key the design effect is about the
// size-weighted mean partition-key size (Σsize²/Σsize). For example
// MarginOfError(0.2, 1500, 20) ≈ 0.45 and MarginOfError(0.03, 1500, 10) ≈
// 0.91: a 1,500-item sample tells a clustered 3% class from 0% or 6%, not
// from 2.5%. It returns +Inf for fraction <= 0 and 0 for fraction >= 1.
func MarginOfError(fraction float64, sampleItems int, designEffect float64) float64 {
	switch {
	case fraction <= 0 || sampleItems <= 0:
		return math.Inf(1)
	case fraction >= 1:
		return 0
	}
	d := max(designEffect, 1)
	return normalQuantile(1-(1-Confidence)/2) * math.Sqrt(d*(1-fraction)/(float64(sampleItems)*fraction))
}
