package awssim

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// TestBackfill: an index added to an existing table is CREATING with
// Backfilling true while its build runs, then ACTIVE with Backfilling
// false; the index's write capacity serves the table's ongoing writes
// first and the build with the rest, and what both ask beyond it is
// throttled; the OnlineIndex metrics have datapoints only within the build,
// the throttle events only in minutes with events.
func TestBackfill(t *testing.T) {
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	// by-customer: 100 WCU, the table writes 60 units/s into it, the build
	// asks 120: 40 served, 80 throttled a second; 240,000 units take 6,000
	// seconds (100 minutes). by-date (created with the table) has none.
	err := s.PutTable("us-east-1", Table{Name: "orders", Throughput: Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 100},
		GSIs: []GlobalSecondaryIndex{
			{IndexName: "by-customer", Throughput: Throughput{ReadCapacityUnits: 50, WriteCapacityUnits: 100},
				Backfill: &Backfill{Start: t0.Add(-10 * time.Minute), Units: 240000, Pace: 120, Writes: 60}},
			{IndexName: "by-date", Throughput: Throughput{ReadCapacityUnits: 50, WriteCapacityUnits: 100}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	c := clientsFor(s, cfg("us-east-1"))
	ctx := context.Background()
	describe := func() map[string]types.GlobalSecondaryIndexDescription {
		out, err := c.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]types.GlobalSecondaryIndexDescription{}
		for _, g := range out.Table.GlobalSecondaryIndexes {
			m[aws.ToString(g.IndexName)] = g
		}
		return m
	}
	gs := describe()
	if g := gs["by-customer"]; g.IndexStatus != types.IndexStatusCreating || !aws.ToBool(g.Backfilling) {
		t.Errorf("by-customer during its build: %s backfilling %v, want CREATING and true", g.IndexStatus, g.Backfilling)
	}
	if g := gs["by-date"]; g.IndexStatus != types.IndexStatusActive || g.Backfilling != nil {
		t.Errorf("by-date: %s backfilling %v, want ACTIVE and no Backfilling (created with its table)", g.IndexStatus, g.Backfilling)
	}
	get := func(name, stat string, from, to time.Time) ([]time.Time, []float64) {
		out, err := c.cw.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{StartTime: aws.Time(from), EndTime: aws.Time(to),
			ScanBy:            cwtypes.ScanByTimestampAscending,
			MetricDataQueries: []cwtypes.MetricDataQuery{query("m", onlineIndexMetric(name, "orders", "by-customer"), 60, stat)}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out.MetricDataResults[0].Timestamps, out.MetricDataResults[0].Values
	}
	// The 10 minutes since the start: 40 × 60 = 2,400 units and 4,800
	// throttle events a minute, progress 1% a minute (2,400 of 240,000).
	_, vs := get("OnlineIndexConsumedWriteCapacity", "Sum", t0.Add(-20*time.Minute), t0)
	if len(vs) != 10 || vs[0] != 2400 {
		t.Errorf("OnlineIndexConsumedWriteCapacity = %v, want 10 minutes of 2,400", vs)
	}
	_, vs = get("OnlineIndexThrottleEvents", "Sum", t0.Add(-20*time.Minute), t0)
	if len(vs) != 10 || vs[0] != 4800 {
		t.Errorf("OnlineIndexThrottleEvents = %v, want 10 minutes of 4,800", vs)
	}
	_, vs = get("OnlineIndexPercentageProgress", "Maximum", t0.Add(-20*time.Minute), t0)
	if len(vs) != 10 || vs[0] != 1 || vs[9] != 10 {
		t.Errorf("OnlineIndexPercentageProgress = %v, want 1 to 10", vs)
	}
	// ListMetrics lists them while the build has recent datapoints.
	listed := func() int {
		out, err := c.cw.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String(NamespaceDynamoDB), MetricName: aws.String("OnlineIndexPercentageProgress"), RecentlyActive: cwtypes.RecentlyActivePt3h})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Metrics)
	}
	if n := listed(); n != 1 {
		t.Errorf("OnlineIndexPercentageProgress listed %d times during the build, want 1", n)
	}

	// The build ends 100 minutes after its start: ACTIVE, Backfilling
	// false, progress 100 in its last minute and no datapoint after it.
	clk.Advance(2 * time.Hour)
	if g := describe()["by-customer"]; g.IndexStatus != types.IndexStatusActive || g.Backfilling == nil || *g.Backfilling {
		t.Errorf("by-customer after its build: %s backfilling %v, want ACTIVE and false", g.IndexStatus, g.Backfilling)
	}
	ts, vs := get("OnlineIndexPercentageProgress", "Maximum", t0, t0.Add(2*time.Hour))
	if len(vs) != 90 || vs[len(vs)-1] != 100 || !ts[len(ts)-1].Equal(t0.Add(89*time.Minute)) {
		t.Errorf("progress after the start: %d minutes ending with %v at %v, want 90 ending with 100 at +89m", len(vs), vs[len(vs)-1], ts[len(ts)-1])
	}
	clk.Advance(3 * time.Hour)
	if n := listed(); n != 0 {
		t.Errorf("OnlineIndexPercentageProgress listed %d times 3 hours after the build, want 0", n)
	}

	// Raising the index's write capacity to 180 serves the whole pace:
	// nothing throttled.
	if err := s.PutTable("us-east-1", Table{Name: "fast", GSIs: []GlobalSecondaryIndex{{IndexName: "by-x", Throughput: Throughput{WriteCapacityUnits: 180},
		Backfill: &Backfill{Start: clk.Now().Add(-5 * time.Minute), Units: 1e6, Pace: 120, Writes: 60}}}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.cw.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{StartTime: aws.Time(clk.Now().Add(-10 * time.Minute)), EndTime: aws.Time(clk.Now()),
		MetricDataQueries: []cwtypes.MetricDataQuery{query("m", onlineIndexMetric("OnlineIndexThrottleEvents", "fast", "by-x"), 60, "Sum")}})
	if err != nil {
		t.Fatal(err)
	}
	if vs := out.MetricDataResults[0].Values; len(vs) != 0 {
		t.Errorf("throttle events with capacity for both: %v, want none", vs)
	}
	// A backfill without units or pace is refused.
	if err := s.PutTable("us-east-1", Table{Name: "bad", GSIs: []GlobalSecondaryIndex{{IndexName: "by-x", Backfill: &Backfill{Start: t0}}}}); err == nil {
		t.Error("a backfill with no units nor pace was accepted")
	}
}
