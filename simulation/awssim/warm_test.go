package awssim

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// TestWarmThroughput: DescribeTable's WarmThroughput over the real SDK: a
// provisioned table's follows its capacity up, never down; an on-demand
// table starts at the new-table values; UpdateTable raises it and refuses
// a decrease; an older answer (Omit) has none.
func TestWarmThroughput(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.PutTable("us-east-1", Table{Name: "prov", Throughput: Throughput{ReadCapacityUnits: 500, WriteCapacityUnits: 100},
		GSIs: []GlobalSecondaryIndex{{IndexName: "gsi", Throughput: Throughput{ReadCapacityUnits: 50, WriteCapacityUnits: 20}}}}))
	must(s.PutTable("us-east-1", Table{Name: "ondemand", BillingMode: BillingPayPerRequest}))
	must(s.PutTable("us-east-1", Table{Name: "old", BillingMode: BillingPayPerRequest, Warm: WarmThroughput{Omit: true}}))
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()
	describe := func(name string) *types.TableDescription {
		t.Helper()
		out, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		must(err)
		return out.Table
	}
	want := func(name string, w *types.TableWarmThroughputDescription, r, wr int64, status string) {
		t.Helper()
		if w == nil || aws.ToInt64(w.ReadUnitsPerSecond) != r || aws.ToInt64(w.WriteUnitsPerSecond) != wr || string(w.Status) != status {
			t.Fatalf("%s: WarmThroughput %+v, want %d/%d %s", name, w, r, wr, status)
		}
	}
	d := describe("prov")
	want("prov", d.WarmThroughput, 500, 100, "ACTIVE")
	if g := d.GlobalSecondaryIndexes[0].WarmThroughput; g == nil || aws.ToInt64(g.ReadUnitsPerSecond) != 50 || aws.ToInt64(g.WriteUnitsPerSecond) != 20 {
		t.Fatalf("GSI WarmThroughput %+v, want 50/20", g)
	}
	// Raise the capacity, then lower it: the warm throughput keeps the high.
	for _, c := range []int64{2000, 10} {
		_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("prov"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(c), WriteCapacityUnits: aws.Int64(c)}})
		must(err)
		describe("prov")
	}
	want("prov after 2000 then 10", describe("prov").WarmThroughput, 2000, 2000, "ACTIVE")

	want("ondemand", describe("ondemand").WarmThroughput, 12000, 4000, "ACTIVE")
	out, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("ondemand"),
		WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(50000), WriteUnitsPerSecond: aws.Int64(20000)}})
	must(err)
	want("ondemand pre-warmed", out.TableDescription.WarmThroughput, 50000, 20000, "ACTIVE")
	_, err = ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("ondemand"),
		WarmThroughput: &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(30000)}})
	wantAPIError(t, err, "ValidationException")
	want("ondemand after a refused decrease", describe("ondemand").WarmThroughput, 50000, 20000, "ACTIVE")

	if w := describe("old").WarmThroughput; w != nil {
		t.Fatalf("an older answer has no WarmThroughput, got %+v", w)
	}
}
