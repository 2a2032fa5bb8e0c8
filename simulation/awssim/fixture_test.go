package awssim

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

func ordersMetric(name string, dims ...Dimension) Metric {
	return Metric{Namespace: NamespaceDynamoDB, Name: name, Dimensions: append([]Dimension{{"TableName", "orders"}}, dims...)}
}

// fixtureQueries is a representative scrape of the fixture.
func fixtureQueries() []types.MetricDataQuery {
	return []types.MetricDataQuery{
		query("rcu", ordersMetric("ConsumedReadCapacityUnits"), 60, "Sum"),
		query("gsi", ordersMetric("ConsumedWriteCapacityUnits", Dimension{"GlobalSecondaryIndexName", "by-customer"}), 300, "Sum"),
		query("lat", ordersMetric("SuccessfulRequestLatency", Dimension{"Operation", "GetItem"}), 60, "Average"),
		query("p99", ordersMetric("SuccessfulRequestLatency", Dimension{"Operation", "Query"}), 60, "p99"),
		query("thr", ordersMetric("ReadThrottleEvents"), 60, "Sum"),
		query("usr", Metric{Namespace: NamespaceDynamoDB, Name: "UserErrors"}, 60, "Sum"),
	}
}

func scrape(t *testing.T, s *Server, at time.Time) []types.MetricDataResult {
	t.Helper()
	out, err := clientsFor(s, cfg("us-east-1")).cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(at.Add(-2 * time.Hour)), EndTime: aws.Time(at), MetricDataQueries: fixtureQueries(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.MetricDataResults
}

func TestFixtureIsDeterministic(t *testing.T) {
	at := time.Date(2025, 3, 12, 14, 30, 0, 0, time.UTC)
	a, _ := fixture(t, at)
	b, _ := fixture(t, at)
	ra, rb := scrape(t, a, at), scrape(t, b, at)
	for _, r := range ra {
		if len(r.Values) == 0 {
			t.Errorf("query %s has no data", *r.Id)
		}
	}
	if !reflect.DeepEqual(ra, rb) {
		t.Fatal("two fixture servers on the same clock answered differently")
	}
	if reflect.DeepEqual(ra, scrape(t, a, at.Add(time.Minute))) {
		t.Fatal("a later clock should show newer data")
	}
	if s := scrape(t, a, at); !reflect.DeepEqual(s, ra) {
		t.Fatal("the same server answered differently for the same clock")
	}
}

func TestFixtureThrottlesOnlyDuringSpike(t *testing.T) {
	at := time.Date(2025, 3, 12, 15, 0, 0, 0, time.UTC)
	s, clk := fixture(t, at)
	res := scrape(t, s, at)
	var thr, rcu types.MetricDataResult
	for _, r := range res {
		switch *r.Id {
		case "thr":
			thr = r
		case "rcu":
			rcu = r
		}
	}
	if len(thr.Values) != 20 {
		t.Fatalf("throttle datapoints: %d, want the 20 spike minutes", len(thr.Values))
	}
	for _, ts := range thr.Timestamps {
		if ts.Hour() != 14 || ts.Minute() >= 20 {
			t.Fatalf("throttle event outside the spike at %v", ts)
		}
	}
	if len(rcu.Values) != 120 {
		t.Fatalf("consumed capacity must exist every minute: %d", len(rcu.Values))
	}
	for i, v := range rcu.Values {
		perSecond := v / 60
		spike := rcu.Timestamps[i].Hour() == 14 && rcu.Timestamps[i].Minute() < 20
		if (!spike && perSecond > 70) || (spike && perSecond < 100) {
			t.Fatalf("implausible consumption %.1f RCU/s at %v", perSecond, rcu.Timestamps[i])
		}
	}

	cw := clientsFor(s, cfg("us-east-1")).cw
	names := func() []string {
		out, err := cw.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{
			RecentlyActive: types.RecentlyActivePt3h,
			Dimensions:     []types.DimensionFilter{{Name: aws.String("TableName"), Value: aws.String("orders")}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, m := range out.Metrics {
			n = append(n, *m.MetricName)
		}
		return n
	}
	if got := names(); !slices.Contains(got, "ReadThrottleEvents") || !slices.Contains(got, "TimeToLiveDeletedItemCount") {
		t.Fatalf("recently active at 15:00: %v", got)
	}
	clk.Set(time.Date(2025, 3, 12, 20, 0, 0, 0, time.UTC))
	if got := names(); slices.Contains(got, "ReadThrottleEvents") || !slices.Contains(got, "ConsumedReadCapacityUnits") {
		t.Fatalf("recently active at 20:00: %v", got)
	}
}

func TestRequestsRecordQueries(t *testing.T) {
	at := time.Date(2025, 3, 12, 15, 0, 0, 0, time.UTC)
	s, _ := fixture(t, at)
	scrape(t, s, at)
	scrape(t, s, at)
	if n := s.RequestCount(ServiceCloudWatch, "GetMetricData"); n != 2 {
		t.Fatalf("count %d", n)
	}
	r := s.Requests()[0]
	if r.Queries != len(fixtureQueries()) || r.Region != "us-east-1" || r.Status != 200 || !slices.Contains(r.Tables, "orders") || !r.Time.Equal(at) {
		t.Fatalf("record %+v", r)
	}
	s.ResetRequests()
	if len(s.Requests()) != 0 {
		t.Fatal("reset kept records")
	}
}

func TestUnitNoiseIsUniform(t *testing.T) {
	below, sum := 0, 0.0
	for i := range 10000 {
		u := unit("seed", time.Unix(int64(i*60), 0))
		if u < 0.25 {
			below++
		}
		sum += u
	}
	if below < 2300 || below > 2700 || sum/10000 < 0.48 || sum/10000 > 0.52 {
		t.Fatalf("noise is not uniform: %d below 0.25, mean %.3f", below, sum/10000)
	}
}
