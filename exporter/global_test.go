package exporter_test

import (
	"math"
	"slices"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestGlobalTableDecisionAcrossShards pins the sharding decision for global
// tables (collectors/capacity_global.go): tables are sharded by account,
// region and table name, so the two replicas of "carts" may be polled by
// different shards. Each replica's figures are its own and do not depend
// on the shard, so the global saving is exactly the sum of the replicas'
// dynamodb_capacity_monthly_provisioned_saving_dollars across shards (the
// PromQL sum the docs give), equal to what one unsharded exporter computes
// as the global table's one decision; a shard holding one replica decides
// nothing and names the other region.
func TestGlobalTableDecisionAcrossShards(t *testing.T) {
	regions := []string{"us-east-1", "eu-west-1"}
	count := 0
	for n := 2; n <= 16 && count == 0; n++ {
		if config.ShardOf("g", regions[0], "carts", n) != config.ShardOf("g", regions[1], "carts", n) {
			count = n
		}
	}
	if count == 0 {
		t.Fatal("no shard count up to 16 splits the replicas")
	}
	created := start.Add(-60 * day)
	setup := func(sim *awssim.Server) {
		for i, region := range regions {
			tb := provisioned("carts", 300, 100)
			tb.BillingMode, tb.CreationDateTime = awssim.BillingPayPerRequest, created
			tb.Replicas = []awssim.Replica{{RegionName: regions[1-i]}}
			mustPut(sim, region, tb)
			gen := newGenSource(region, created)
			// The same writes in both regions (made in us-east-1,
			// replicated to eu-west-1); reads of their own.
			gen.consumed("carts", "", flatSum(float64(300-200*i)*60), flatSum(120*60))
			sim.AddMetricSource(gen)
		}
	}
	run := func(shard string) (map[string]float64, []collectors.TableReport) {
		y := "accounts: [{name: g, regions: [us-east-1, eu-west-1]}]\n"
		if shard != "" {
			y += "shard: \"" + shard + "\"\n"
		}
		h := newHarness(t, y, setup)
		h.cycle()
		body := h.scrape()
		out := map[string]float64{}
		for _, region := range regions {
			if v, ok := value(t, body, catalogue.CapacityProvisionedSaving, map[string]string{"region": region, "table": "carts", "window": "30d"}); ok {
				out[region] = v
			}
		}
		return out, h.app.Capacity.Reports()
	}
	whole, reports := run("")
	if len(whole) != 2 {
		t.Fatalf("unsharded: savings %v, want both replicas", whole)
	}
	g := reports[0].Global
	if g == nil || len(g.Missing) != 0 || len(g.Costs) == 0 {
		t.Fatalf("unsharded: global decision %+v", g)
	}
	var global float64
	for _, c := range g.Costs {
		if c.Window == "30d" {
			global = c.Evaluation.MonthlyOnDemand - c.Evaluation.MonthlyProvisioned
		}
	}
	if math.Abs(global-(whole["us-east-1"]+whole["eu-west-1"])) > 1e-6*math.Abs(global) {
		t.Errorf("the global table's saving %v is not the sum of its replicas' %v", global, whole)
	}
	var sum float64
	for i := range count {
		got, reports := run(config.Shard{Index: i, Count: count}.String())
		for region, v := range got {
			sum += v
			if math.Abs(v-whole[region]) > 1e-9*math.Abs(v) {
				t.Errorf("shard %d: %s saving %v, unsharded %v", i, region, v, whole[region])
			}
		}
		for _, r := range reports {
			if r.Table == "carts" && (r.Global == nil || !slices.Equal(r.Global.Missing, []string{regions[1-slices.Index(regions, r.Region)]}) || len(r.Global.Costs) != 0) {
				t.Errorf("shard %d, %s: global decision %+v; want none, naming the other region", i, r.Region, r.Global)
			}
		}
	}
	if math.Abs(sum-global) > 1e-6*math.Abs(global) {
		t.Errorf("the shards' savings sum to %v, the global table's is %v", sum, global)
	}
}
