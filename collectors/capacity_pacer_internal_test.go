package collectors

import (
	"context"
	"testing"
	"time"
)

// TestPacerDatapointBuckets: a window longer than three hours is paced by
// DatapointsPerSecond, a shorter one by RecentDatapointsPerSecond, each in
// its own bucket (CloudWatch's two DPS quotas), and a kind without a rate
// is not paced by datapoints.
func TestPacerDatapointBuckets(t *testing.T) {
	end := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	old := fetchWindow{start: end.Add(-15 * 24 * time.Hour), end: end, period: time.Minute}
	recent := fetchWindow{start: end.Add(-70 * time.Minute), end: end, period: time.Minute}
	if bucketOf(old) != 0 || bucketOf(recent) != 1 {
		t.Fatalf("buckets: old window %d, recent window %d; want 0 and 1", bucketOf(old), bucketOf(recent))
	}
	if edge := (fetchWindow{start: end.Add(-DPSOldAfter), end: end}); bucketOf(edge) != 1 {
		t.Errorf("a window of exactly %v is in bucket %d, want the recent one (1): CloudWatch's larger quota is for StartTimes more than three hours old", DPSOldAfter, bucketOf(edge))
	}

	p := newPacer(FetchSettings{RequestsPerSecond: 1e6, DatapointsPerSecond: 396000, RecentDatapointsPerSecond: 180000})
	ctx := context.Background()
	before := time.Now()
	if err := p.wait(ctx, 39600, 0); err != nil {
		t.Fatal(err)
	}
	if got := p.nextPoint[0].Sub(before); got < 99*time.Millisecond || got > time.Second {
		t.Errorf("39,600 old datapoints at 396,000 a second hold the old bucket for %v, want about 100ms", got)
	}
	if !p.nextPoint[1].IsZero() {
		t.Errorf("an old request moved the recent bucket to %v", p.nextPoint[1])
	}
	before = time.Now()
	if err := p.wait(ctx, 18000, 1); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(before); waited > 90*time.Millisecond {
		t.Errorf("a recent request waited %v behind an old one: the buckets are not separate", waited)
	}
	if got := p.nextPoint[1].Sub(before); got < 99*time.Millisecond || got > time.Second {
		t.Errorf("18,000 recent datapoints at 180,000 a second hold the recent bucket for %v, want about 100ms", got)
	}

	unpaced := newPacer(FetchSettings{RequestsPerSecond: 1e6})
	if err := unpaced.wait(ctx, 1e6, 0); err != nil {
		t.Fatal(err)
	}
	if unpaced.nextPoint[0].After(time.Now().Add(time.Millisecond)) {
		t.Errorf("without a datapoint rate the old bucket is held until %v", unpaced.nextPoint[0])
	}
}
