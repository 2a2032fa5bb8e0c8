package exporter_test

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
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

// globalTTLYAML is an on-demand global table whose source (us-east-1)
// writes 2 TTL items of about 2.5 KB a minute (3 write units each),
// expiring an hour later (class seconds) or never (class string).
const globalTTLYAML = `
history: 8d
account: {regions: [us-east-1, eu-west-1]}
tables:
  - name: carts
    billing: on_demand
    created: -20d
    traffic: {read: 20, write: 10}
    ttl:
      attribute: expires_at
      deletion_delay: 10m
      item_size: 2500
      writes: {per_minute: 2, class: %s, expires_in: 1h, from: -8d}
    replicas:
      - {region: eu-west-1, read: 5}
`

// TestGlobalTableCostIncludesReplicatedTTLDeletes: the TTL deletions of a
// global table are free where the items expire and a replicated write in
// the other replica (AWS, "Throughput capacity planning for DynamoDB global
// tables"). Read through the exporter, over the 7-day window the replica's
// consumed write units are the source's plus 3 units per deletion, the
// source's are those of the same table whose items never expire, and the
// global table's on-demand cost rises by exactly the replica's.
func TestGlobalTableCostIncludesReplicatedTTLDeletes(t *testing.T) {
	type outcome struct {
		write   map[string]float64 // region -> consumed write units in the 7d window
		monthly map[string]float64 // region -> monthly on-demand cost
		global  float64            // the global table's monthly on-demand cost
		deleted float64            // TTL deletions in us-east-1 over the window
	}
	run := func(class string) outcome {
		sc, err := sim.LoadScenario(fmt.Appendf(nil, globalTTLYAML, class))
		if err != nil {
			t.Fatal(err)
		}
		var srv *awssim.Server
		h := newHarness(t, "accounts: [{name: g, regions: [us-east-1, eu-west-1]}]\n", func(s *awssim.Server) {
			srv = s
			if _, err := sim.New(sc, s, nil); err != nil {
				t.Fatal(err)
			}
		})
		h.cycle()
		out := outcome{write: map[string]float64{}, monthly: map[string]float64{}}
		var covered time.Duration
		for _, r := range h.app.Capacity.Reports() {
			for _, c := range r.Costs {
				if c.Window != "7d" {
					continue
				}
				out.write[r.Region], out.monthly[r.Region], covered = c.Evaluation.Demand.Write, c.Evaluation.MonthlyOnDemand, c.Covered
			}
			if g := r.Global; g != nil {
				for _, c := range g.Costs {
					if c.Window == "7d" {
						out.global = c.Evaluation.MonthlyOnDemand
					}
				}
			}
		}
		if len(out.write) != 2 || out.global == 0 {
			t.Fatalf("%s: 7-day windows %v, global cost %v: want both replicas and the global table", class, out.write, out.global)
		}
		now := h.clk.Now()
		for _, dp := range srv.Metrics().Datapoints("us-east-1", awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount",
			Dimensions: []awssim.Dimension{{Name: "TableName", Value: "carts"}}}, now.Add(-covered), now) {
			out.deleted += dp.Sum
		}
		return out
	}
	expiring, kept := run(sim.ClassSeconds), run(sim.ClassString)
	if kept.deleted != 0 || expiring.deleted < 2*60*24*6 {
		t.Fatalf("TTL deletions over the window: %v with expiring items, %v with items that never expire", expiring.deleted, kept.deleted)
	}
	const units = 3
	if a, b := expiring.write["us-east-1"], kept.write["us-east-1"]; a != b {
		t.Errorf("the source consumed %v write units with TTL deletions, %v without: the deletions are free there", a, b)
	}
	// At most a minute's deletions (2) at the window's edges may fall on
	// the other side of [now-covered, now).
	want := expiring.write["us-east-1"] + units*expiring.deleted
	if got := expiring.write["eu-west-1"]; math.Abs(got-want) > 2*units {
		t.Errorf("the replica consumed %v write units, want the source's %v plus %v×%d replicated deletes = %v",
			got, expiring.write["us-east-1"], expiring.deleted, units, want)
	}
	if got := kept.write["eu-west-1"]; math.Abs(got-kept.write["us-east-1"]) > 1e-9*got {
		t.Errorf("without deletions the replica consumed %v write units, the source %v", got, kept.write["us-east-1"])
	}
	extra := expiring.monthly["eu-west-1"] - kept.monthly["eu-west-1"]
	if extra <= 0 || expiring.monthly["us-east-1"] != kept.monthly["us-east-1"] {
		t.Errorf("monthly on-demand costs %v with deletions, %v without", expiring.monthly, kept.monthly)
	}
	if got := expiring.global - kept.global; math.Abs(got-extra) > 1e-9*math.Abs(extra) {
		t.Errorf("the global table's monthly cost rose by %v, the replica's by %v", got, extra)
	}
}
