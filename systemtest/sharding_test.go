package systemtest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/preflight"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// TestShardsSplitTheDemoAccount runs the exporter unsharded and as three
// shards (0/3, 1/3, 2/3) on one simulated account (the demo scenario plus 30
// plain tables): every table is polled by exactly one shard and the shards
// together poll the unsharded set, in the inventory and in /metrics; the
// CloudWatch metrics the shards request add up to the unsharded figure;
// `check` prints each shard's share; and when unrelated tables come and go
// no table changes shard.
func TestShardsSplitTheDemoAccount(t *testing.T) {
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	acct := harnesstest.Account(t, harnesstest.Scenario(t, "demo"), clk)
	srv, eng := acct.Server, acct.Engine
	if err := eng.AdvanceTo(start); err != nil {
		t.Fatal(err)
	}
	plain := func(name string) awssim.Table {
		return awssim.Table{
			Name: name, BillingMode: awssim.BillingPayPerRequest, CreationDateTime: start.Add(-30 * 24 * time.Hour),
			KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		}
	}
	for i := range 30 {
		if err := srv.PutTable("us-east-1", plain(fmt.Sprintf("plain-%02d", i))); err != nil {
			t.Fatal(err)
		}
	}

	build := func(shard config.Shard) *exporter.App {
		cfg, awsOpts := harnesstest.Config(t, acct, harness.DemoCollectors), acct.AWS()
		cfg.Shard = shard
		// The TTL sampler's Scans publish new CloudWatch series (their
		// consumed capacity and latency), so a run with it would change
		// what the next run plans; its tables come from the same sharded
		// inventory as every other collector's.
		off := false
		cfg.Collectors.TTL.Enabled = &off
		app, err := exporter.Build(context.Background(), cfg, exporter.Options{
			Clock: clk, AWS: awsOpts, Logger: slog.New(slog.DiscardHandler),
			TTLPace: func(context.Context, time.Duration) error { return nil }, TTLSeed: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		return app
	}
	type run struct {
		name    string
		app     *exporter.App
		res     preflight.Result
		out     string
		tables  map[string]bool // account/region/table in the inventory
		series  map[string]bool // account/region/table with a series in /metrics
		cw      float64         // dynamodb_exporter_cloudwatch_metrics_total added by one cycle
		account int             // account-level series (dynamodb_user_errors_total)
	}
	collect := func(name string, shard config.Shard) *run {
		r := &run{name: name, app: build(shard), tables: map[string]bool{}, series: map[string]bool{}}
		var out bytes.Buffer
		r.res = preflight.Run(context.Background(), r.app, &out)
		r.out = out.String()
		// check's own probe (one GetMetricData) is not part of a cycle.
		for _, tg := range r.app.Targets {
			r.cw -= r.app.Self.CloudWatchMetricsRequested(tg.Account, tg.Region)
		}
		r.app.Scheduler.RunOnce(context.Background())
		for _, tg := range r.app.Targets {
			for _, tb := range r.app.Inventory.Tables(tg.Key()) {
				r.tables[tg.Account+"/"+tg.Region+"/"+tb.Name] = true
			}
		}
		mfs, err := r.app.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				l := map[string]string{}
				for _, lp := range m.GetLabel() {
					l[lp.GetName()] = lp.GetValue()
				}
				if l[catalogue.LabelTable] != "" {
					r.series[l[catalogue.LabelAccount]+"/"+l[catalogue.LabelRegion]+"/"+l[catalogue.LabelTable]] = true
				}
				if mf.GetName() == catalogue.UserErrorsTotal {
					r.account++
				}
				if mf.GetName() == catalogue.ExporterCloudWatchMetricsTotal {
					r.cw += m.GetCounter().GetValue()
				}
			}
		}
		return r
	}

	whole := collect("unsharded", config.Shard{})
	if len(whole.tables) < 40 {
		t.Fatalf("unsharded exporter monitors %d tables, want the demo's and 30 plain ones", len(whole.tables))
	}
	if whole.account == 0 {
		t.Fatalf("the unsharded exporter emits no %s series to compare with", catalogue.UserErrorsTotal)
	}
	if strings.Contains(whole.out, "shard ") {
		t.Errorf("unsharded check mentions a shard:\n%s", whole.out)
	}
	var shards []*run
	owner := map[string]string{}
	seriesOwner := map[string]string{}
	queried, cw := 0, 0.0
	for i := range 3 {
		r := collect(fmt.Sprintf("shard %d/3", i), config.Shard{Index: i, Count: 3})
		shards = append(shards, r)
		for tb := range r.tables {
			if o, dup := owner[tb]; dup {
				t.Errorf("table %s polled by %s and %s", tb, o, r.name)
			}
			owner[tb] = r.name
		}
		for tb := range r.series {
			if o, dup := seriesOwner[tb]; dup {
				t.Errorf("table %s has series in the /metrics of %s and %s", tb, o, r.name)
			}
			seriesOwner[tb] = r.name
		}
		// Account-level series come from the first shard only.
		if want := map[bool]int{true: whole.account, false: 0}[i == 0]; r.account != want {
			t.Errorf("%s emits %d %s series, want %d", r.name, r.account, catalogue.UserErrorsTotal, want)
		}
		queried += r.res.Queried
		cw += r.cw
		// The total over the regions the shard reads (the demo has two).
		share := fmt.Sprintf("shard %d/3: polls %d of the %d tables that pass the name filters", i, len(r.tables), len(whole.tables))
		if !strings.Contains(r.out, share) {
			t.Errorf("check of %s does not print %q:\n%s", r.name, share, r.out)
		}
		if len(r.tables) == 0 || len(r.tables) > len(whole.tables)/2 {
			t.Errorf("%s polls %d of %d tables, far from a third", r.name, len(r.tables), len(whole.tables))
		}
		t.Logf("%s: %d tables, %d CloudWatch metrics per cycle, %d ListMetrics requests", r.name, len(r.tables), r.res.Queried, r.res.ListPages)
	}
	if got, want := slices.Sorted(maps.Keys(owner)), slices.Sorted(maps.Keys(whole.tables)); !slices.Equal(got, want) {
		t.Errorf("union of the shards' tables\n  %v\ndiffers from the unsharded set\n  %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(seriesOwner)), slices.Sorted(maps.Keys(whole.series)); !slices.Equal(got, want) {
		t.Errorf("union of the tables in the shards' /metrics\n  %v\ndiffers from the unsharded /metrics\n  %v", got, want)
	}
	if queried != whole.res.Queried || queried == 0 {
		t.Errorf("shards plan %d CloudWatch metrics per cycle together, unsharded %d", queried, whole.res.Queried)
	}
	if cw != whole.cw || cw == 0 {
		t.Errorf("shards requested %g CloudWatch metrics in one cycle together, unsharded %g", cw, whole.cw)
	}
	t.Logf("unsharded: %d tables, %d CloudWatch metrics per cycle (%g requested in one cycle); the three shards: %d, %d (%g)",
		len(whole.tables), whole.res.Queried, whole.cw, len(owner), queried, cw)

	// Unrelated tables come and go: 20 new ones, 10 plain ones deleted.
	for i := range 20 {
		if err := srv.PutTable("us-east-1", plain(fmt.Sprintf("new-%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if !srv.DeleteTable("us-east-1", fmt.Sprintf("plain-%02d", i)) {
			t.Fatalf("plain-%02d not deleted", i)
		}
	}
	stayed, total := 0, 0
	for _, r := range shards {
		r.app.Scheduler.RunOnceNamed(context.Background(), "discovery", "tables")
		for _, tg := range r.app.Targets {
			for _, tb := range r.app.Inventory.Tables(tg.Key()) {
				id := tg.Account + "/" + tg.Region + "/" + tb.Name
				total++
				if o, known := owner[id]; known {
					if o != r.name {
						t.Errorf("table %s moved from %s to %s when unrelated tables came and went", id, o, r.name)
					}
					stayed++
				}
			}
		}
	}
	if want := len(whole.tables) - 10; stayed != want || total != want+20 {
		t.Errorf("after the changes the shards poll %d known tables (want %d) of %d (want %d)", stayed, want, total, want+20)
	}
}
