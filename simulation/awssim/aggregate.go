package awssim

import (
	"slices"
	"time"
)

// bucket is the statistic set of one period.
type bucket struct {
	start       time.Time
	sum, count  float64
	minV, maxV  float64
	percentiles map[string]float64
}

// alignDown rounds t down to a multiple of period since the Unix epoch.
func alignDown(t time.Time, period time.Duration) time.Time {
	p := int64(period / time.Second)
	u := t.Unix()
	r := u % p
	if r < 0 {
		r += p
	}
	return time.Unix(u-r, 0).UTC()
}

// maxDenseBuckets bounds the periods aggregate indexes in a slice rather
// than a map (a range of 15 days at 1 minute is 21,600).
const maxDenseBuckets = 1 << 17

// aggregate collects the minute datapoints of m from every source into
// period buckets aligned to the period (since the Unix epoch). The range
// starts at start rounded down to the period and ends before end. Buckets
// without any datapoint do not exist: CloudWatch answers no value for them.
func aggregate(sources []MetricSource, region string, m Metric, start, end time.Time, period time.Duration) []*bucket {
	from := alignDown(start, period)
	if !from.Before(end) {
		return nil
	}
	// The buckets of the range by index, when the range is short enough
	// (every CloudWatch retention is), else by start time; either way the
	// datapoints are added in the sources' order, so sums are the same.
	n := (end.Sub(from) + period - 1) / period
	var dense []bucket
	var byStart map[int64]*bucket
	if n <= maxDenseBuckets {
		dense = make([]bucket, n)
	} else {
		byStart = map[int64]*bucket{}
	}
	found := 0
	for _, src := range sources {
		for _, dp := range src.Datapoints(region, m, from, end) {
			t := dp.Time.UTC().Truncate(time.Minute)
			if t.Before(from) || !t.Before(end) {
				continue
			}
			bs := alignDown(t, period)
			var b *bucket
			if dense != nil {
				b = &dense[bs.Sub(from)/period]
				if b.start.IsZero() {
					*b = bucket{start: bs, minV: dp.Minimum, maxV: dp.Maximum}
					found++
				}
			} else if b = byStart[bs.Unix()]; b == nil {
				b = &bucket{start: bs, minV: dp.Minimum, maxV: dp.Maximum}
				byStart[bs.Unix()] = b
			}
			b.sum += dp.Sum
			b.count += dp.SampleCount
			b.minV = min(b.minV, dp.Minimum)
			b.maxV = max(b.maxV, dp.Maximum)
			for k, v := range dp.Percentiles {
				if b.percentiles == nil {
					b.percentiles = map[string]float64{}
				}
				// Exact for a 1-minute period; for longer periods the
				// percentile is approximated by the maximum of the
				// minute percentiles (an upper bound of the true value).
				if old, ok := b.percentiles[k]; !ok || v > old {
					b.percentiles[k] = v
				}
			}
		}
	}
	if dense != nil {
		out := make([]*bucket, 0, found)
		for i := range dense {
			if !dense[i].start.IsZero() {
				out = append(out, &dense[i])
			}
		}
		return out
	}
	out := make([]*bucket, 0, len(byStart))
	for _, b := range byStart {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b *bucket) int { return a.start.Compare(b.start) })
	return out
}

// supportedStat reports whether the simulator can compute stat.
func supportedStat(stat string) bool {
	switch stat {
	case "Sum", "Average", "SampleCount", "Minimum", "Maximum":
		return true
	}
	_, ok := PercentileKey(stat)
	return ok
}

// evaluate computes stat for every bucket that has a value, in ascending or
// descending time order.
func evaluate(buckets []*bucket, stat string, descending bool) ([]time.Time, []float64) {
	pk, isPct := PercentileKey(stat)
	ts := make([]time.Time, 0, len(buckets))
	vals := make([]float64, 0, len(buckets))
	for _, b := range buckets {
		var v float64
		switch {
		case stat == "Sum":
			v = b.sum
		case stat == "SampleCount":
			v = b.count
		case stat == "Minimum":
			v = b.minV
		case stat == "Maximum":
			v = b.maxV
		case stat == "Average":
			if b.count == 0 {
				continue
			}
			v = b.sum / b.count
		case isPct:
			p, ok := b.percentiles[pk]
			if !ok {
				continue // statistic sets without percentiles have none
			}
			v = p
		default:
			continue
		}
		ts = append(ts, b.start)
		vals = append(vals, v)
	}
	if descending {
		slices.Reverse(ts)
		slices.Reverse(vals)
	}
	return ts, vals
}
