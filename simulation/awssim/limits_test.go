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

func TestDescribeLimits(t *testing.T) {
	s, _ := fixture(t, t0)
	s.SetLimits("ca-central-1", Limits{AccountMaxReadCapacityUnits: 120000, TableMaxWriteCapacityUnits: 10000})
	ctx := context.Background()
	for _, c := range []struct {
		region string
		want   Limits
	}{
		{"us-east-1", Limits{80000, 80000, 40000, 40000}},
		{"ca-central-1", Limits{120000, 80000, 40000, 10000}},
	} {
		out, err := clientsFor(s, cfg(c.region)).ddb.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
		if err != nil {
			t.Fatalf("%s: %v", c.region, err)
		}
		got := Limits{aws.ToInt64(out.AccountMaxReadCapacityUnits), aws.ToInt64(out.AccountMaxWriteCapacityUnits),
			aws.ToInt64(out.TableMaxReadCapacityUnits), aws.ToInt64(out.TableMaxWriteCapacityUnits)}
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.region, got, c.want)
		}
	}
	s.Deny("dynamodb:DescribeLimits")
	_, err := clientsFor(s, cfg("us-east-1")).ddb.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	wantAPIError(t, err, "AccessDeniedException")
}

func TestUpdateTableAboveTheQuotasIsRefused(t *testing.T) {
	s, _ := fixture(t, t0)
	s.SetLimits("ca-central-1", Limits{AccountMaxReadCapacityUnits: 1000, AccountMaxWriteCapacityUnits: 1000, TableMaxReadCapacityUnits: 600, TableMaxWriteCapacityUnits: 600})
	for _, tb := range []Table{
		{Name: "big", Throughput: Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 100},
			GSIs: []GlobalSecondaryIndex{{IndexName: "by-x", Throughput: Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 100}}}},
		{Name: "other", Throughput: Throughput{ReadCapacityUnits: 300, WriteCapacityUnits: 300}},
	} {
		if err := s.PutTable("ca-central-1", tb); err != nil {
			t.Fatal(err)
		}
	}
	ddb := clientsFor(s, cfg("ca-central-1")).ddb
	ctx := context.Background()
	update := func(r, w int64) error {
		_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("big"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}})
		return err
	}
	// The table alone above 600 (its index does not count toward it).
	wantAPIError(t, update(650, 100), "LimitExceededException")
	if tb, _ := s.Table("ca-central-1", "big"); tb.Throughput.ReadCapacityUnits != 100 {
		t.Errorf("refused update changed the capacity to %d", tb.Throughput.ReadCapacityUnits)
	}
	// Exactly the table maximum is allowed.
	if err := update(600, 100); err != nil {
		t.Fatalf("update to the table maximum: %v", err)
	}
	// The account: 600 + 100 (index) + 300 = 1,000 of 1,000; anything more is refused.
	if err := s.PutTable("ca-central-1", Table{Name: "third", Throughput: Throughput{ReadCapacityUnits: 1, WriteCapacityUnits: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("third"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(200), WriteCapacityUnits: aws.Int64(50)}})
	wantAPIError(t, err, "LimitExceededException")
	// On-demand tables are outside the account quota: switching "other" to
	// on-demand frees its 300.
	if _, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("other"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	_, err = ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("third"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(200), WriteCapacityUnits: aws.Int64(50)}})
	if err != nil {
		t.Fatalf("update after freeing capacity: %v", err)
	}
}

func TestAccountMetrics(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	s.SetLimits("us-east-1", Limits{AccountMaxReadCapacityUnits: 1000, AccountMaxWriteCapacityUnits: 500})
	for _, tb := range []Table{
		{Name: "acct-a", Throughput: Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 50},
			GSIs: []GlobalSecondaryIndex{{IndexName: "by-x", Throughput: Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 50}}}},
		{Name: "acct-b", BillingMode: BillingPayPerRequest}, // on-demand: outside the account quota
	} {
		if err := s.PutTable("us-east-1", tb); err != nil {
			t.Fatal(err)
		}
	}
	cw := clientsFor(s, cfg("us-east-1")).cw
	ctx := context.Background()
	for name, want := range map[string]float64{
		"AccountProvisionedReadCapacityUtilization":  20, // 200 of 1,000
		"AccountProvisionedWriteCapacityUtilization": 20, // 100 of 500
		"AccountMaxReads":            1000,
		"AccountMaxWrites":           500,
		"AccountMaxTableLevelReads":  40000,
		"AccountMaxTableLevelWrites": 40000,
	} {
		out, err := cw.GetMetricData(ctx, &cloudwatch.GetMetricDataInput{
			StartTime: aws.Time(t0.Add(-5 * time.Minute)), EndTime: aws.Time(t0),
			MetricDataQueries: []cwtypes.MetricDataQuery{query("m", Metric{Namespace: NamespaceDynamoDB, Name: name}, 60, "Maximum")},
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		vs := out.MetricDataResults[0].Values
		if len(vs) == 0 || vs[0] != want {
			t.Errorf("%s = %v, want %v every minute", name, vs, want)
		}
	}
}
