package awssim

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// putGlobal installs "orders" as a global table in us-east-1 and eu-west-1.
func putGlobal(t *testing.T, s *Server) {
	t.Helper()
	for _, p := range [][2]string{{"us-east-1", "eu-west-1"}, {"eu-west-1", "us-east-1"}} {
		tb := Table{Name: "orders", Throughput: Throughput{ReadCapacityUnits: 10, WriteCapacityUnits: 10},
			GSIs:     []GlobalSecondaryIndex{{IndexName: "by-user", Throughput: Throughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5}}},
			Replicas: []Replica{{RegionName: p[1]}}}
		if err := s.PutTable(p[0], tb); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDescribeTableAnswersTheOtherReplicas(t *testing.T) {
	s := start(t, New(WithClock(clock.NewManual(t0))))
	putGlobal(t, s)
	if err := s.PutTable("us-east-1", Table{Name: "local"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct{ region, other string }{{"us-east-1", "eu-west-1"}, {"eu-west-1", "us-east-1"}} {
		out, err := clientsFor(s, cfg(c.region)).ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		d := out.Table
		if aws.ToString(d.GlobalTableVersion) != "2019.11.21" {
			t.Errorf("%s: GlobalTableVersion %q", c.region, aws.ToString(d.GlobalTableVersion))
		}
		if len(d.Replicas) != 1 || aws.ToString(d.Replicas[0].RegionName) != c.other || d.Replicas[0].ReplicaStatus != types.ReplicaStatusActive {
			t.Fatalf("%s: Replicas %+v, want the other region only, ACTIVE", c.region, d.Replicas)
		}
		r := d.Replicas[0]
		if len(r.GlobalSecondaryIndexes) != 1 || aws.ToString(r.GlobalSecondaryIndexes[0].IndexName) != "by-user" {
			t.Errorf("%s: replica GSIs %+v", c.region, r.GlobalSecondaryIndexes)
		}
		if r.ReplicaTableClassSummary == nil || r.ReplicaTableClassSummary.TableClass != types.TableClassStandard {
			t.Errorf("%s: ReplicaTableClassSummary %+v", c.region, r.ReplicaTableClassSummary)
		}
		if d.MultiRegionConsistency != "" {
			t.Errorf("%s: MultiRegionConsistency %q, want absent when not set", c.region, d.MultiRegionConsistency)
		}
	}
	out, err := clientsFor(s, cfg("us-east-1")).ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("local")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Table.Replicas != nil || out.Table.GlobalTableVersion != nil {
		t.Errorf("a table of one region answers Replicas %+v, GlobalTableVersion %v", out.Table.Replicas, out.Table.GlobalTableVersion)
	}
	if err := s.PutTable("us-east-1", Table{Name: "bad", Replicas: []Replica{{RegionName: "us-east-1"}}}); err == nil {
		t.Error("a replica in the table's own region was accepted")
	}
}

func TestSwitchingOneReplicaSwitchesEveryReplica(t *testing.T) {
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	putGlobal(t, s)
	ctx := context.Background()
	east := clientsFor(s, cfg("us-east-1")).ddb
	west := clientsFor(s, cfg("eu-west-1")).ddb
	mode := func(region string) string {
		tb, _ := s.Table(region, "orders")
		return tb.BillingMode
	}
	if _, err := east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	if mode("us-east-1") != BillingPayPerRequest || mode("eu-west-1") != BillingPayPerRequest {
		t.Fatalf("after a switch in us-east-1: %s / %s, want both PAY_PER_REQUEST", mode("us-east-1"), mode("eu-west-1"))
	}
	out, err := west.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("eu-west-1 BillingModeSummary %+v", out.Table.BillingModeSummary)
	}
	// Back to provisioned from the other region: both follow, with the
	// capacities given.
	clk.Advance(time.Hour)
	_, err = west.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(20), WriteCapacityUnits: aws.Int64(30)},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("by-user"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(30)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := s.Table("us-east-1", "orders")
	if tb.BillingMode != BillingProvisioned || tb.Throughput.WriteCapacityUnits != 30 || tb.GSIs[0].Throughput.WriteCapacityUnits != 30 {
		t.Fatalf("us-east-1 after the switch in eu-west-1: %s, WCU %d, GSI WCU %d", tb.BillingMode, tb.Throughput.WriteCapacityUnits, tb.GSIs[0].Throughput.WriteCapacityUnits)
	}
	// Three more round trips through the Go API (the simulation's path),
	// each switching both replicas; then a fifth switch to on-demand
	// within 24 hours is refused and changes no replica.
	for range 3 {
		clk.Advance(time.Hour)
		if err := s.SetBillingMode("eu-west-1", "orders", BillingPayPerRequest, Capacity{}, nil, clk.Now()); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Hour)
		if err := s.SetBillingMode("us-east-1", "orders", BillingProvisioned, Capacity{Read: 20, Write: 30}, map[string]Capacity{"by-user": {Read: 5, Write: 30}}, clk.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if mode("eu-west-1") != BillingProvisioned {
		t.Fatalf("eu-west-1 did not follow the switch back: %s", mode("eu-west-1"))
	}
	clk.Advance(time.Hour)
	_, err = east.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest})
	wantAPIError(t, err, "LimitExceededException")
	if mode("us-east-1") != BillingProvisioned || mode("eu-west-1") != BillingProvisioned {
		t.Fatalf("a refused switch changed a replica: %s / %s", mode("us-east-1"), mode("eu-west-1"))
	}
}
