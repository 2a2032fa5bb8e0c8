package awssim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAggregateSliceAndMapAgree checks that the buckets of a range short
// enough to be indexed in a slice are those the map of a longer range
// holds for the same periods, bit for bit: same sums (datapoints of
// several sources added in the same order), counts, extremes and
// percentiles.
func TestAggregateSliceAndMapAgree(t *testing.T) {
	m := Metric{Namespace: NamespaceDynamoDB, Name: "SuccessfulRequestLatency", Dimensions: []Dimension{{"TableName", "t"}, {"Operation", "GetItem"}}}
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := NewMetricStore(), NewMetricStore()
	from := t0.Add(-3 * 24 * time.Hour)
	for i := range 3 * 1440 {
		if rng.IntN(4) == 0 {
			continue // a minute without data
		}
		at := from.Add(time.Duration(i) * time.Minute)
		v := rng.Float64() * 100
		a.Put("us-east-1", m, Datapoint{Time: at, Sum: v * 7, SampleCount: 7, Minimum: v / 3, Maximum: v * 2, Percentiles: map[string]float64{"p99": v * 1.7}})
		if rng.IntN(2) == 0 {
			b.AddSample("us-east-1", m, at, rng.Float64()*100)
		}
	}
	sources := []MetricSource{a, b}
	for _, period := range []time.Duration{time.Minute, 5 * time.Minute, time.Hour} {
		short := aggregate(sources, "us-east-1", m, from, t0, period)
		long := aggregate(sources, "us-east-1", m, from.Add(-time.Duration(maxDenseBuckets+10)*period), t0.Add(time.Hour), period)
		if len(short) == 0 || len(short) != len(long) {
			t.Fatalf("period %s: %d buckets from the slice, %d from the map", period, len(short), len(long))
		}
		for i, s := range short {
			l := long[i]
			same := s.start.Equal(l.start) && math.Float64bits(s.sum) == math.Float64bits(l.sum) && s.count == l.count &&
				s.minV == l.minV && s.maxV == l.maxV && s.percentiles["p99"] == l.percentiles["p99"]
			if !same {
				t.Fatalf("period %s, bucket %d: slice %+v, map %+v", period, i, *s, *l)
			}
			if i > 0 && !short[i-1].start.Before(s.start) {
				t.Fatalf("period %s: buckets out of order at %d", period, i)
			}
		}
	}
}
