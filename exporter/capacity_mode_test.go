package exporter_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestProvisionedSavingKeepsItsSignAcrossSwitches: a table with flat traffic
// (180 read and 60 write units/s) and a target-tracking policy is switched
// to on-demand and back through UpdateTable, as the billing-switch scenarios
// do. The switch saving is relative to the current mode, so it changes sign
// with every switch; the provisioned saving (on-demand minus provisioned)
// must keep its sign and stay within 2% of its value while the consumption
// does not change.
func TestProvisionedSavingKeepsItsSignAcrossSwitches(t *testing.T) {
	const region = "us-east-1"
	created := start.Add(-60 * day)
	gen := newGenSource(region, created)
	gen.consumed("flipper", "", flatSum(180*60), flatSum(60*60))
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		p := provisioned("flipper", 300, 100)
		p.CreationDateTime = created
		mustPut(sim, region, p)
		for _, st := range []awssim.ScalableTarget{
			{ResourceID: "table/flipper", ScalableDimension: awssim.DimTableRead, MinCapacity: 50, MaxCapacity: 2000},
			{ResourceID: "table/flipper", ScalableDimension: awssim.DimTableWrite, MinCapacity: 20, MaxCapacity: 800},
		} {
			if err := sim.PutScalableTarget(region, st); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []string{awssim.DimTableRead, awssim.DimTableWrite} {
			if err := sim.PutScalingPolicy(region, awssim.ScalingPolicy{
				PolicyName: d, ResourceID: "table/flipper", ScalableDimension: d,
				TargetValue: 70, PredefinedMetricType: awssim.MetricReadUtilization,
			}); err != nil {
				t.Fatal(err)
			}
		}
		sim.AddMetricSource(gen)
	})
	ddb := dynamodb.NewFromConfig(testtools.AWSConfig(h.url))
	switchTo := func(mode types.BillingMode) {
		t.Helper()
		in := &dynamodb.UpdateTableInput{TableName: aws.String("flipper"), BillingMode: mode}
		if mode == types.BillingModeProvisioned {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(300), WriteCapacityUnits: aws.Int64(100)}
		}
		if _, err := ddb.UpdateTable(context.Background(), in); err != nil {
			t.Fatalf("switching to %s: %v", mode, err)
		}
	}
	l := map[string]string{"table": "flipper", "window": "7d"}
	var first float64
	for k, mode := range []types.BillingMode{"", types.BillingModePayPerRequest, types.BillingModeProvisioned, types.BillingModePayPerRequest} {
		if mode != "" {
			switchTo(mode)
			h.clk.Advance(10 * time.Minute)
		}
		h.cycle()
		body := h.scrape()
		saving := mustValue(t, body, catalogue.CapacityProvisionedSaving, l)
		sw := mustValue(t, body, catalogue.CapacityMonthlySwitchSaving, l)
		current := "PROVISIONED"
		if k%2 == 1 {
			current = "PAY_PER_REQUEST"
		}
		if _, ok := value(t, body, catalogue.TableInfo, map[string]string{"table": "flipper", "billing_mode": current, "table_class": "STANDARD", "status": "ACTIVE"}); !ok {
			t.Fatalf("run %d: table not reported %s:\n%s", k, current, grep(body, catalogue.TableInfo))
		}
		t.Logf("run %d (%s): provisioned saving $%.2f/month, switch saving $%.2f/month", k, current, saving, sw)
		// Flat 180 + 60 units/s: on-demand about $158/month, provisioned at
		// a 70% target about $65/month.
		if saving < 50 {
			t.Errorf("run %d (%s): provisioned saving $%.2f/month, want about +$90 (provisioned is cheaper)", k, current, saving)
		}
		// The switch saving flips: negative while provisioned (switching
		// would cost more), positive while on-demand.
		if (current == "PROVISIONED") != (sw < 0) {
			t.Errorf("run %d (%s): switch saving $%.2f/month has the wrong sign for the current mode", k, current, sw)
		}
		if k == 0 {
			first = saving
			continue
		}
		if d := math.Abs(saving - first); d > 0.02*math.Abs(first) {
			t.Errorf("run %d (%s): provisioned saving $%.2f/month, $%.2f/month before any switch: moved by %.1f%%", k, current, saving, first, 100*d/math.Abs(first))
		}
	}
}
