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

func TestUpdateTableFifthSwitchToOnDemandWithin24hIsRefused(t *testing.T) {
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	if err := s.PutTable("us-east-1", Table{Name: "flip", Throughput: Throughput{ReadCapacityUnits: 10, WriteCapacityUnits: 10}}); err != nil {
		t.Fatal(err)
	}
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()
	toOnDemand := func() error {
		out, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("flip"), BillingMode: types.BillingModePayPerRequest})
		if err == nil && !out.TableDescription.BillingModeSummary.LastUpdateToPayPerRequestDateTime.Equal(clk.Now()) {
			t.Errorf("LastUpdateToPayPerRequestDateTime %v, want %v", out.TableDescription.BillingModeSummary.LastUpdateToPayPerRequestDateTime, clk.Now())
		}
		return err
	}
	toProvisioned := func() {
		t.Helper()
		_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName: aws.String("flip"), BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(10)},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		if err := toOnDemand(); err != nil {
			t.Fatalf("switch %d: %v", i+1, err)
		}
		clk.Advance(time.Hour)
		toProvisioned()
	}
	wantAPIError(t, toOnDemand(), "LimitExceededException")
	if tb, _ := s.Table("us-east-1", "flip"); tb.BillingMode != BillingProvisioned {
		t.Fatalf("refused switch changed the billing mode to %s", tb.BillingMode)
	}
	// 24 h after the first switch one switch is free again, but only one.
	clk.Set(t0.Add(24 * time.Hour))
	if err := toOnDemand(); err != nil {
		t.Fatalf("switch after the window: %v", err)
	}
	toProvisioned()
	wantAPIError(t, toOnDemand(), "LimitExceededException")

	// Provisioned capacity with PAY_PER_REQUEST is invalid.
	_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String("flip"), BillingMode: types.BillingModePayPerRequest,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	})
	wantAPIError(t, err, "ValidationException")
}

func TestUpdateTableDecreaseLimits(t *testing.T) {
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	if err := s.PutTable("us-east-1", Table{Name: "shrink", Throughput: Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 100}}); err != nil {
		t.Fatal(err)
	}
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()
	set := func(r int64) (*types.ProvisionedThroughputDescription, error) {
		out, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:             aws.String("shrink"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(100)},
		})
		if err != nil {
			return nil, err
		}
		return out.TableDescription.ProvisionedThroughput, nil
	}
	for i := range 4 {
		clk.Advance(time.Minute)
		pt, err := set(int64(90 - i))
		if err != nil {
			t.Fatalf("decrease %d: %v", i+1, err)
		}
		if *pt.NumberOfDecreasesToday != int64(i+1) || !pt.LastDecreaseDateTime.Equal(clk.Now()) {
			t.Fatalf("after decrease %d: count %d at %v", i+1, *pt.NumberOfDecreasesToday, pt.LastDecreaseDateTime)
		}
	}
	clk.Advance(59 * time.Minute)
	_, err := set(80)
	wantAPIError(t, err, "LimitExceededException")

	// Increases are never limited.
	pt, err := set(500)
	if err != nil {
		t.Fatal(err)
	}
	if !pt.LastIncreaseDateTime.Equal(clk.Now()) || *pt.ReadCapacityUnits != 500 {
		t.Fatalf("increase not recorded: %+v", pt)
	}
	_, err = set(500)
	wantAPIError(t, err, "ValidationException") // unchanged value

	clk.Advance(time.Minute) // an hour after the 4th decrease
	if _, err := set(400); err != nil {
		t.Fatalf("hourly decrease: %v", err)
	}
	clk.Advance(30 * time.Minute)
	_, err = set(300)
	wantAPIError(t, err, "LimitExceededException")

	// A new UTC day resets the counter.
	clk.Set(time.Date(2025, 3, 13, 0, 0, 1, 0, time.UTC))
	d, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("shrink")})
	if err != nil {
		t.Fatal(err)
	}
	if n := *d.Table.ProvisionedThroughput.NumberOfDecreasesToday; n != 0 {
		t.Fatalf("decreases today after midnight: %d", n)
	}
	if _, err := set(300); err != nil {
		t.Fatalf("first decrease of a new day: %v", err)
	}
}

func TestUpdateTableGSIThroughput(t *testing.T) {
	s, _ := fixture(t, t0)
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	out, err := ddb.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName: aws.String("orders"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Update: &types.UpdateGlobalSecondaryIndexAction{
			IndexName:             aws.String("by-status"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(30), WriteCapacityUnits: aws.Int64(50)},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := out.TableDescription.GlobalSecondaryIndexes[1]
	if *g.ProvisionedThroughput.ReadCapacityUnits != 30 || !g.ProvisionedThroughput.LastIncreaseDateTime.Equal(t0) {
		t.Fatalf("GSI throughput %+v", g.ProvisionedThroughput)
	}
	// Switching a table with GSIs to provisioned needs every GSI's capacity.
	if _, err := ddb.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	_, err = ddb.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
		TableName: aws.String("orders"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
	})
	wantAPIError(t, err, "ValidationException")
}

func TestUpdateTableClassTwiceIn30DaysThenRefused(t *testing.T) {
	clk := clock.NewManual(t0)
	s := start(t, New(WithClock(clk)))
	if err := s.PutTable("us-east-1", Table{Name: "archive", Throughput: Throughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5}}); err != nil {
		t.Fatal(err)
	}
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()
	describe := func() *types.TableClassSummary {
		t.Helper()
		out, err := ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("archive")})
		if err != nil {
			t.Fatal(err)
		}
		return out.Table.TableClassSummary
	}
	if c := describe(); c.TableClass != types.TableClassStandard || c.LastUpdateDateTime != nil {
		t.Fatalf("a table never updated: %+v, want STANDARD without LastUpdateDateTime", c)
	}
	update := func(class types.TableClass) error {
		_, err := ddb.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("archive"), TableClass: class})
		return err
	}
	if err := update(types.TableClassStandardInfrequentAccess); err != nil {
		t.Fatal(err)
	}
	first := clk.Now()
	if c := describe(); c.TableClass != types.TableClassStandardInfrequentAccess || c.LastUpdateDateTime == nil || !c.LastUpdateDateTime.Equal(first) {
		t.Fatalf("after the update: %+v, want STANDARD_INFREQUENT_ACCESS at %v", c, first)
	}
	clk.Advance(24 * time.Hour)
	if err := update(types.TableClassStandard); err != nil {
		t.Fatalf("second update within 30 days: %v", err)
	}
	clk.Advance(24 * time.Hour)
	wantAPIError(t, update(types.TableClassStandardInfrequentAccess), "LimitExceededException")
	if c := describe(); c.TableClass != types.TableClassStandard {
		t.Fatalf("a refused update changed the class to %s", c.TableClass)
	}
	// Asking for the class the table has is no update (the simulator's
	// reading: AWS does not document it).
	if err := update(types.TableClassStandard); err != nil {
		t.Fatalf("same class: %v", err)
	}
	// 30 days after the first update one is allowed again.
	clk.Set(first.Add(30 * 24 * time.Hour))
	if err := update(types.TableClassStandardInfrequentAccess); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}
