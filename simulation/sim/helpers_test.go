package sim

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// t0 is the start of most tests: a Wednesday, 12:00 UTC.
var t0 = time.Date(2025, 3, 12, 12, 0, 0, 0, time.UTC)

// rig is a scenario running on a manual clock behind a real HTTP server.
type rig struct {
	srv *awssim.Server
	clk *clock.Manual
	eng *Engine
	ddb *dynamodb.Client
	cw  *cloudwatch.Client
	url string // the HTTP server's address
}

// newRig starts scenario sc at t0.
func newRig(t testing.TB, sc *Scenario) *rig {
	t.Helper()
	clk := clock.NewManual(t0)
	srv := awssim.New(awssim.WithClock(clk))
	eng, err := New(sc, srv, clk)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cfg := aws.Config{
		Region:      sc.Account.Regions[0],
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}
	u := aws.String(hs.URL)
	return &rig{
		srv: srv, clk: clk, eng: eng, url: hs.URL,
		ddb: dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = u }),
		cw:  cloudwatch.NewFromConfig(cfg, func(o *cloudwatch.Options) { o.BaseEndpoint = u }),
	}
}

// builtin loads a shipped scenario or fails the test.
func builtin(t testing.TB, name string) *Scenario {
	t.Helper()
	sc, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// series returns the GetMetricData answer for one metric, oldest first.
func (r *rig) series(t testing.TB, name string, dims map[string]string, stat string, from, to time.Time, period int32) ([]time.Time, []float64) {
	t.Helper()
	var cd []cwtypes.Dimension
	for k, v := range dims {
		cd = append(cd, cwtypes.Dimension{Name: aws.String(k), Value: aws.String(v)})
	}
	out, err := r.cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(from), EndTime: aws.Time(to), ScanBy: cwtypes.ScanByTimestampAscending,
		MetricDataQueries: []cwtypes.MetricDataQuery{{Id: aws.String("q"), MetricStat: &cwtypes.MetricStat{
			Metric: &cwtypes.Metric{Namespace: aws.String("AWS/DynamoDB"), MetricName: aws.String(name), Dimensions: cd},
			Period: aws.Int32(period), Stat: aws.String(stat)}}},
	})
	if err != nil {
		t.Fatalf("GetMetricData %s: %v", name, err)
	}
	res := out.MetricDataResults[0]
	return res.Timestamps, res.Values
}

// sum is the sum of a table metric over [from, to) at the given period.
func (r *rig) sum(t testing.TB, table, name string, from, to time.Time, period int32) float64 {
	t.Helper()
	_, vals := r.series(t, name, map[string]string{"TableName": table}, "Sum", from, to, period)
	var s float64
	for _, v := range vals {
		s += v
	}
	return s
}

// advance moves the clock and the engine forward by d.
func (r *rig) advance(t testing.TB, d time.Duration) {
	t.Helper()
	if err := r.eng.AdvanceTo(r.clk.Advance(d)); err != nil {
		t.Fatal(err)
	}
}

// describe returns DescribeTable of a table through the SDK.
func (r *rig) describe(t testing.TB, table string) *dynamodb.DescribeTableOutput {
	t.Helper()
	out, err := r.ddb.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", table, err)
	}
	return out
}

// apiCode returns the AWS error code of err, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// cwGet makes one GetMetricData call for ConsumedReadCapacityUnits.
func (r *rig) cwGet(dims map[string]string) (*cloudwatch.GetMetricDataOutput, error) {
	var cd []cwtypes.Dimension
	for k, v := range dims {
		cd = append(cd, cwtypes.Dimension{Name: aws.String(k), Value: aws.String(v)})
	}
	now := r.clk.Now()
	return r.cw.GetMetricData(context.Background(), &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(now.Add(-10 * time.Minute)), EndTime: aws.Time(now),
		MetricDataQueries: []cwtypes.MetricDataQuery{{Id: aws.String("q"), MetricStat: &cwtypes.MetricStat{
			Metric: &cwtypes.Metric{Namespace: aws.String("AWS/DynamoDB"), MetricName: aws.String("ConsumedReadCapacityUnits"), Dimensions: cd},
			Period: aws.Int32(60), Stat: aws.String("Sum")}}},
	})
}
