package collectors

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestWhatIfSettingsChangeStartsAgain: the running what-if keeps its
// history and simulation from one cycle to the next while the table's
// auto-scaling settings stay; when its policy changes, the table's history
// is fetched again and a new simulation runs with the new settings (the
// past is not left simulated with the old ones).
func TestWhatIfSettingsChangeStartsAgain(t *testing.T) {
	const region = "us-east-1"
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	sim := awssim.New()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	tb := awssim.Table{
		Name: "prov", BillingMode: awssim.BillingProvisioned, CreationDateTime: now.Add(-40 * day),
		Throughput:           awssim.Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 10},
		KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		TTL:                  awssim.TimeToLive{Status: awssim.TTLDisabled},
	}
	if err := sim.PutTable(region, tb); err != nil {
		t.Fatal(err)
	}
	if err := sim.PutScalableTarget(region, awssim.ScalableTarget{ResourceID: "table/prov", ScalableDimension: awssim.DimTableRead, MinCapacity: 10, MaxCapacity: 1000}); err != nil {
		t.Fatal(err)
	}
	policy := func(target float64) {
		if err := sim.PutScalingPolicy(region, awssim.ScalingPolicy{PolicyName: "read", ResourceID: "table/prov", ScalableDimension: awssim.DimTableRead,
			TargetValue: target, PredefinedMetricType: awssim.MetricReadUtilization}); err != nil {
			t.Fatal(err)
		}
	}
	policy(70)
	m := awssim.Metric{Namespace: CloudWatchNamespace, Name: "ConsumedReadCapacityUnits", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "prov"}}}
	for at := now.Add(-2 * day); at.Before(now.Add(4 * time.Hour)); at = at.Add(time.Minute) {
		sim.Metrics().Put(region, m, awssim.Datapoint{Time: at, Sum: 3000, SampleCount: 1, Minimum: 3000, Maximum: 3000})
	}
	cfg := testtools.AWSConfig(srv.URL)
	target := &awsclient.Target{Account: "acct", Region: region, DynamoDB: dynamodb.NewFromConfig(cfg),
		CloudWatch: cloudwatch.NewFromConfig(cfg), AutoScaling: applicationautoscaling.NewFromConfig(cfg)}
	inv := NewInventory()
	desc, err := dynamodb.NewFromConfig(cfg).DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("prov")})
	if err != nil {
		t.Fatal(err)
	}
	inv.SetTables(target.Key(), []*Table{{Name: "prov", Description: desc.Table}})
	c := NewCapacity(Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, CapacitySettings{Delay: 3 * time.Minute, History: 90 * day, ScaleOutDelay: 5 * time.Minute})
	run := func(at time.Time) (*history, *whatIf) {
		t.Helper()
		if err := c.Run(context.Background(), at); err != nil {
			t.Fatal(err)
		}
		st := c.state[target.Key()]
		return st.hist[historyKey{table: "prov", index: "", write: false}], st.whatIf[historyKey{table: "prov", index: "", write: false}]
	}
	h1, w1 := run(now)
	if h1 == nil || w1 == nil || h1.staged != nil || w1.settings.Read.AutoScaling == nil || w1.settings.Read.AutoScaling.Target != 0.7 {
		t.Fatalf("first cycle: history %v, what-if %+v", h1, w1)
	}
	h2, w2 := run(now.Add(time.Hour))
	if h2 != h1 || w2 != w1 || w2.stream.Start() != w1.stream.Start() || !w2.stream.Next().Equal(settledAt(now.Add(time.Hour-3*time.Minute))) {
		t.Fatalf("second cycle, same settings: history or what-if started again")
	}
	policy(50)
	h3, w3 := run(now.Add(2 * time.Hour))
	if h3 == h2 || w3 == w2 || w3.settings.Read.AutoScaling == nil || w3.settings.Read.AutoScaling.Target != 0.5 {
		t.Fatalf("policy changed: history kept %v, what-if %+v", h3 == h2, w3.settings.Read.AutoScaling)
	}
	// Asked to start where the first run starts, it starts at the first
	// minute with consumption: the data begin 2 days back.
	if !w3.from.Equal(whatIfStart(now.Add(2*time.Hour - 3*time.Minute))) {
		t.Errorf("the new simulation was asked to start at %v, want %v", w3.from, whatIfStart(now.Add(2*time.Hour-3*time.Minute)))
	}
	if !w3.stream.Start().Equal(now.Add(-2 * day)) {
		t.Errorf("the new simulation starts at %v, want the first minute of data %v", w3.stream.Start(), now.Add(-2*day))
	}
	if len(c.Reports()) != 1 || len(c.Reports()[0].Costs) != len(CostWindows) {
		t.Errorf("reports %+v", c.Reports())
	}
}
