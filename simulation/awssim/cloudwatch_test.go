package awssim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

var consumedRead = Metric{Namespace: NamespaceDynamoDB, Name: "ConsumedReadCapacityUnits", Dimensions: []Dimension{{"TableName", "t1"}}}

func query(id string, m Metric, period int32, stat string) types.MetricDataQuery {
	var dims []types.Dimension
	for _, d := range m.Dimensions {
		dims = append(dims, types.Dimension{Name: aws.String(d.Name), Value: aws.String(d.Value)})
	}
	return types.MetricDataQuery{Id: aws.String(id), MetricStat: &types.MetricStat{
		Metric: &types.Metric{Namespace: aws.String(m.Namespace), MetricName: aws.String(m.Name), Dimensions: dims},
		Period: aws.Int32(period), Stat: aws.String(stat),
	}}
}

// storeServer has datapoints of consumedRead at 11:00..11:09 except 11:03
// and 11:07; minute i has Sum i+1, two samples and p99 10*(i+1).
func storeServer(t *testing.T) (*Server, *cloudwatch.Client) {
	t.Helper()
	s := start(t, New(WithClock(clock.NewManual(t0))))
	base := t0.Add(-time.Hour)
	for i := range 10 {
		if i == 3 || i == 7 {
			continue
		}
		v := float64(i + 1)
		s.Metrics().Put("us-east-1", consumedRead, Datapoint{
			Time: base.Add(time.Duration(i) * time.Minute), Sum: v, SampleCount: 2, Minimum: v / 4, Maximum: v / 2,
			Percentiles: map[string]float64{"p99": 10 * v},
		})
	}
	return s, clientsFor(s, cfg("us-east-1")).cw
}

func TestGetMetricDataPerMinuteValuesAndAbsentPeriods(t *testing.T) {
	_, cw := storeServer(t)
	// Dimensions in another order than stored must still match.
	out, err := cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		StartTime:         aws.Time(t0.Add(-time.Hour)),
		EndTime:           aws.Time(t0.Add(-50 * time.Minute)),
		MetricDataQueries: []types.MetricDataQuery{query("m1", consumedRead, 60, "Sum"), query("m2", consumedRead, 60, "p99")},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := out.MetricDataResults[0]
	if *r.Id != "m1" || *r.Label != "ConsumedReadCapacityUnits" || r.StatusCode != types.StatusCodeComplete {
		t.Fatalf("result header %+v", r)
	}
	wantVals := []float64{10, 9, 7, 6, 5, 3, 2, 1} // descending, no 11:07 / 11:03
	if !slices.Equal(r.Values, wantVals) {
		t.Fatalf("values %v, want %v", r.Values, wantVals)
	}
	if !r.Timestamps[0].Equal(t0.Add(-51*time.Minute)) || !r.Timestamps[7].Equal(t0.Add(-time.Hour)) {
		t.Fatalf("timestamps %v", r.Timestamps)
	}
	if got := out.MetricDataResults[1].Values; got[0] != 100 || len(got) != 8 {
		t.Fatalf("p99 values %v", got)
	}
}

func TestGetMetricDataFiveMinuteAggregation(t *testing.T) {
	_, cw := storeServer(t)
	out, err := cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		// Start inside a period: the range is rounded down to 11:00.
		StartTime: aws.Time(t0.Add(-58 * time.Minute)),
		EndTime:   aws.Time(t0),
		ScanBy:    types.ScanByTimestampAscending,
		MetricDataQueries: []types.MetricDataQuery{
			query("sum", consumedRead, 300, "Sum"), query("avg", consumedRead, 300, "Average"),
			query("cnt", consumedRead, 300, "SampleCount"), query("mx", consumedRead, 300, "Maximum"),
			query("mn", consumedRead, 300, "Minimum"), query("pct", consumedRead, 300, "p99"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"sum": {1 + 2 + 3 + 5, 6 + 7 + 9 + 10},
		"avg": {11.0 / 8, 32.0 / 8},
		"cnt": {8, 8},
		"mx":  {2.5, 5},
		"mn":  {0.25, 1.5},
		"pct": {50, 100}, // max of the minute p99s
	}
	for _, r := range out.MetricDataResults {
		if !slices.Equal(r.Values, want[*r.Id]) {
			t.Errorf("%s: %v, want %v", *r.Id, r.Values, want[*r.Id])
		}
		if len(r.Timestamps) != 2 || !r.Timestamps[0].Equal(t0.Add(-time.Hour)) || !r.Timestamps[1].Equal(t0.Add(-55*time.Minute)) {
			t.Errorf("%s: timestamps %v not aligned to 5 minutes", *r.Id, r.Timestamps)
		}
	}
}

func TestGetMetricDataPaginatesByMaxDatapoints(t *testing.T) {
	_, cw := storeServer(t)
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(t0.Add(-time.Hour)), EndTime: aws.Time(t0), MaxDatapoints: aws.Int32(5),
		MetricDataQueries: []types.MetricDataQuery{query("a", consumedRead, 60, "Sum"), query("b", consumedRead, 60, "Maximum")},
	}
	got := map[string]int{}
	pages := 0
	p := cloudwatch.NewGetMetricDataPaginator(cw, in)
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pages++
		n := 0
		for _, r := range out.MetricDataResults {
			got[*r.Id] += len(r.Values)
			n += len(r.Values)
		}
		if n > 5 {
			t.Fatalf("page with %d datapoints exceeds MaxDatapoints", n)
		}
	}
	if pages != 4 || got["a"] != 8 || got["b"] != 8 {
		t.Fatalf("pages %d, datapoints %v", pages, got)
	}
}

func TestGetMetricDataValidation(t *testing.T) {
	s, cw := storeServer(t)
	ctx := context.Background()
	base := cloudwatch.GetMetricDataInput{StartTime: aws.Time(t0.Add(-time.Hour)), EndTime: aws.Time(t0)}

	in := base
	for i := range 501 {
		in.MetricDataQueries = append(in.MetricDataQueries, query(fmt.Sprintf("q%d", i), consumedRead, 60, "Sum"))
	}
	_, err := cw.GetMetricData(ctx, &in)
	if msg := wantAPIError(t, err, "ValidationError"); !strings.Contains(msg, "500") {
		t.Fatalf("message does not name the limit: %q", msg)
	}
	recs := s.Requests()
	if last := recs[len(recs)-1]; last.Queries != 501 || last.ErrorCode != "ValidationError" {
		t.Fatalf("record %+v", last)
	}

	in = base
	in.MetricDataQueries = []types.MetricDataQuery{query("Bad", consumedRead, 60, "Sum")}
	_, err = cw.GetMetricData(ctx, &in)
	wantAPIError(t, err, "ValidationError")

	in.MetricDataQueries = []types.MetricDataQuery{query("a", consumedRead, 60, "Sum"), query("a", consumedRead, 60, "Sum")}
	_, err = cw.GetMetricData(ctx, &in)
	wantAPIError(t, err, "ValidationError")

	in.MetricDataQueries = []types.MetricDataQuery{{Id: aws.String("e1"), Expression: aws.String("SUM(METRICS())")}}
	_, err = cw.GetMetricData(ctx, &in)
	if msg := wantAPIError(t, err, "InvalidParameterValue"); !strings.Contains(msg, "metric math") {
		t.Fatalf("message %q", msg)
	}
}

func TestListMetricsRecentlyActiveAndPagination(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	for i := range 1100 {
		m := Metric{Namespace: "Custom", Name: "M", Dimensions: []Dimension{{"Id", fmt.Sprintf("%04d", i)}}}
		at := t0.Add(-time.Hour)
		if i%2 == 1 {
			at = t0.Add(-4 * time.Hour) // not recently active
		}
		s.Metrics().AddSample("us-east-1", m, at, 1)
	}
	s.Metrics().AddSample("eu-west-1", consumedRead, t0.Add(-time.Minute), 1)
	cw := clientsFor(s, cfg("us-east-1")).cw
	count := func(in *cloudwatch.ListMetricsInput) (metrics, pages int) {
		t.Helper()
		p := cloudwatch.NewListMetricsPaginator(cw, in)
		for p.HasMorePages() {
			out, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Metrics) > 500 {
				t.Fatalf("page of %d metrics", len(out.Metrics))
			}
			pages++
			metrics += len(out.Metrics)
		}
		return metrics, pages
	}
	if n, pages := count(&cloudwatch.ListMetricsInput{}); n != 1100 || pages != 3 {
		t.Fatalf("all: %d metrics in %d pages", n, pages)
	}
	if n, _ := count(&cloudwatch.ListMetricsInput{RecentlyActive: types.RecentlyActivePt3h}); n != 550 {
		t.Fatalf("recently active: %d, want 550", n)
	}
	if n, _ := count(&cloudwatch.ListMetricsInput{Namespace: aws.String("Custom"), Dimensions: []types.DimensionFilter{{Name: aws.String("Id"), Value: aws.String("0007")}}}); n != 1 {
		t.Fatalf("dimension filter: %d", n)
	}
	if n, _ := count(&cloudwatch.ListMetricsInput{Namespace: aws.String(NamespaceDynamoDB)}); n != 0 {
		t.Fatalf("metric of eu-west-1 visible in us-east-1")
	}
}

// TestIdleTableKeepsPublishingConsumedZeros: an idle table and its GSI have
// a zero ConsumedRead/WriteCapacityUnits datapoint every minute since
// creation, so ListMetrics (RecentlyActive) lists them; event metrics stay
// unlisted; a minute with real data keeps its value.
func TestIdleTableKeepsPublishingConsumedZeros(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	tb := Table{Name: "idle", CreationDateTime: t0.Add(-10 * time.Minute),
		KeySchema:            []KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		GSIs: []GlobalSecondaryIndex{{IndexName: "gsi", KeySchema: []KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			Throughput: Throughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1}}},
		Throughput: Throughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1}}
	if err := s.PutTable("us-east-1", tb); err != nil {
		t.Fatal(err)
	}
	read := Metric{Namespace: NamespaceDynamoDB, Name: "ConsumedReadCapacityUnits", Dimensions: []Dimension{{"TableName", "idle"}}}
	s.Metrics().Put("us-east-1", read, Datapoint{Time: t0.Add(-2 * time.Minute), Sum: 30, SampleCount: 3, Minimum: 10, Maximum: 10})
	cw := clientsFor(s, cfg("us-east-1")).cw
	ctx := context.Background()
	list, err := cw.ListMetrics(ctx, &cloudwatch.ListMetricsInput{Namespace: aws.String(NamespaceDynamoDB), RecentlyActive: types.RecentlyActivePt3h})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Metrics {
		n := aws.ToString(m.MetricName)
		for _, d := range m.Dimensions {
			if aws.ToString(d.Name) == "GlobalSecondaryIndexName" {
				n += "/" + aws.ToString(d.Value)
			}
		}
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"AccountMaxReads", "AccountMaxTableLevelReads", "AccountMaxTableLevelWrites", "AccountMaxWrites",
		"AccountProvisionedReadCapacityUtilization", "AccountProvisionedWriteCapacityUtilization", // account-level, account_metrics.go
		"ConsumedReadCapacityUnits", "ConsumedReadCapacityUnits/gsi", "ConsumedWriteCapacityUnits", "ConsumedWriteCapacityUnits/gsi"}
	if !slices.Equal(names, want) {
		t.Errorf("listed %v, want %v", names, want)
	}
	out, err := cw.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(t0.Add(-time.Hour)), EndTime: aws.Time(t0), ScanBy: types.ScanByTimestampAscending,
		MetricDataQueries: []types.MetricDataQuery{query("r", read, 60, "Sum"), query("a", read, 60, "Average")},
	})
	if err != nil {
		t.Fatal(err)
	}
	sums, avgs := out.MetricDataResults[0], out.MetricDataResults[1]
	// Ten minutes since creation, one of them with 30 units.
	if len(sums.Values) != 10 || !sums.Timestamps[0].Equal(t0.Add(-10*time.Minute)) {
		t.Fatalf("got %d datapoints from %v, want 10 from creation %v", len(sums.Values), sums.Timestamps, t0.Add(-10*time.Minute))
	}
	total := 0.0
	for _, v := range sums.Values {
		total += v
	}
	if total != 30 || sums.Values[8] != 30 {
		t.Errorf("sums %v (total %v); want one minute of 30 units", sums.Values, total)
	}
	// The zero datapoints count no request: the average is the busy minute's.
	if !slices.Equal(avgs.Values, []float64{10}) {
		t.Errorf("averages %v, want [10]", avgs.Values)
	}
}

// TestListMetricsDelayHidesNewMetrics: with a listing delay, a metric whose
// first datapoint is younger than the delay is not listed yet, while
// GetMetricData already answers its data.
func TestListMetricsDelayHidesNewMetrics(t *testing.T) {
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	s.SetListMetricsDelay(15 * time.Minute)
	m := Metric{Namespace: NamespaceDynamoDB, Name: "ReadThrottleEvents", Dimensions: []Dimension{{"TableName", "t1"}}}
	s.Metrics().Put("us-east-1", m, Datapoint{Time: t0.Add(-time.Minute), Sum: 4, SampleCount: 4, Minimum: 1, Maximum: 1})
	cw := clientsFor(s, cfg("us-east-1")).cw
	listed := func() int {
		t.Helper()
		n := 0
		for _, ra := range []types.RecentlyActive{types.RecentlyActivePt3h, ""} {
			out, err := cw.ListMetrics(context.Background(), &cloudwatch.ListMetricsInput{Namespace: aws.String(NamespaceDynamoDB), RecentlyActive: ra})
			if err != nil {
				t.Fatal(err)
			}
			n += len(out.Metrics)
		}
		return n
	}
	if n := listed(); n != 0 {
		t.Errorf("a one-minute-old metric is listed %d times with a 15-minute delay", n)
	}
	out, err := cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(t0.Add(-time.Hour)), EndTime: aws.Time(t0), MetricDataQueries: []types.MetricDataQuery{query("q", m, 60, "Sum")},
	})
	if err != nil || len(out.MetricDataResults[0].Values) != 1 {
		t.Fatalf("GetMetricData of the unlisted metric: %v, %+v", err, out)
	}
	clk.Advance(15 * time.Minute)
	if n := listed(); n != 2 {
		t.Errorf("after the delay the metric is listed %d times, want 2 (with and without RecentlyActive)", n)
	}
}

// TestGetMetricDataDatapointQuota: with SetDatapointQuota, a request whose
// datapoints exceed what its region's bucket holds is refused as throttled
// (and counts nothing), each StartTime age in its own bucket; every
// datapoint answered is counted by age.
func TestGetMetricDataDatapointQuota(t *testing.T) {
	s, cw := storeServer(t)
	// The stored minutes are 11:00 to 11:09 and the server's now is t0:
	// a StartTime of t0-1h is recent, one of t0-4h old; each request
	// answers the same 8 datapoints.
	get := func(from time.Duration) error {
		_, err := cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
			StartTime: aws.Time(t0.Add(-from)), EndTime: aws.Time(t0),
			MetricDataQueries: []types.MetricDataQuery{query("a", consumedRead, 60, "Sum")},
		}, func(o *cloudwatch.Options) { o.RetryMaxAttempts = 1 })
		return err
	}
	if err := get(time.Hour); err != nil {
		t.Fatalf("without a quota: %v", err)
	}
	s.SetDatapointQuota(100, 10)
	if err := get(time.Hour); err != nil {
		t.Fatalf("8 recent datapoints within a bucket of 10: %v", err)
	}
	err := get(time.Hour)
	if err == nil || !strings.Contains(err.Error(), "Throttling") {
		t.Fatalf("8 more recent datapoints at once with 10 a second: error %v, want Throttling", err)
	}
	for i := range 2 {
		if err := get(4 * time.Hour); err != nil {
			t.Fatalf("old request %d within a bucket of 100, with the recent one empty: %v", i+1, err)
		}
	}
	if old, recent := s.DatapointsServed(); old != 16 || recent != 16 {
		t.Errorf("datapoints served: %d old, %d recent; want 16 and 16 (the throttled request counts none)", old, recent)
	}
}
