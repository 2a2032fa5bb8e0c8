package preflight_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/preflight"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

var now = time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC)

// account100 fills sim with 100 provisioned tables with 2 GSIs each, whose
// consumed capacity and throttle events were published a few minutes ago.
func account100(t *testing.T, sim *awssim.Server) {
	t.Helper()
	tables100(t, sim, true)
}

// tables100 creates the 100 tables, with the active minute when active.
func tables100(t *testing.T, sim *awssim.Server, active bool) {
	t.Helper()
	minute := now.Add(-4 * time.Minute).Truncate(time.Minute)
	for i := range 100 {
		name := "table-" + string(rune('a'+i/26%26)) + string(rune('a'+i%26)) + "-" + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
		tb := awssim.Table{
			Name: name, BillingMode: awssim.BillingProvisioned, CreationDateTime: now.Add(-120 * 24 * time.Hour),
			Throughput:           awssim.Throughput{ReadCapacityUnits: 100, WriteCapacityUnits: 50},
			KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		}
		for _, g := range []string{"gsi-a", "gsi-b"} {
			tb.GSIs = append(tb.GSIs, awssim.GlobalSecondaryIndex{IndexName: g,
				KeySchema:  []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
				Throughput: awssim.Throughput{ReadCapacityUnits: 10, WriteCapacityUnits: 10}})
		}
		if err := sim.PutTable("us-east-1", tb); err != nil {
			t.Fatal(err)
		}
		if !active {
			continue
		}
		for _, idx := range []string{"", "gsi-a", "gsi-b"} {
			for _, m := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents"} {
				dims := []awssim.Dimension{{Name: "TableName", Value: name}}
				if idx != "" {
					dims = append(dims, awssim.Dimension{Name: "GlobalSecondaryIndexName", Value: idx})
				}
				sim.Metrics().Put("us-east-1", awssim.Metric{Namespace: "AWS/DynamoDB", Name: m, Dimensions: dims},
					awssim.Datapoint{Time: minute, Sum: 60, SampleCount: 1, Minimum: 60, Maximum: 60})
			}
		}
	}
}

func build(t *testing.T, sim *awssim.Server, yaml string) *exporter.App {
	t.Helper()
	app, _ := harnesstest.Exporter(t, sim, clock.NewManual(now), yaml, harness.RunOptions{})
	return app
}

func TestCheckPrintsPlanAndCost(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	account100(t, sim)
	app := build(t, sim, "accounts: [{regions: [us-east-1]}]\n")
	var out bytes.Buffer
	res := preflight.Run(context.Background(), app, &out)
	t.Logf("check output:\n%s", out.String())
	if !res.OK() {
		t.Fatalf("preflight failed: %+v", res)
	}
	if res.Tables != 100 || res.Indexes != 200 || res.Queried != 1202 || res.Requests != 3 || res.IdleFloor != 600 {
		t.Errorf("plan = %d tables, %d indexes, %d queried (%d idle floor), %d requests; want 100, 200, 1202 (600), 3", res.Tables, res.Indexes, res.Queried, res.IdleFloor, res.Requests)
	}
	// Fast tier: 600 aggregate throttle series x 43,200 one-minute
	// cycles; slow tier: 600 consumed series and the account's 2
	// provisioned-utilization series x 4,320 ten-minute cycles; $0.01 per
	// 1,000 metrics; plus 3 ListMetrics pages per one-minute cycle at
	// $0.01 per 1,000 requests.
	// The day-earlier tier queries one series an hour per table whose TTL
	// deletions are queried: none here.
	if len(res.Tiers) != 3 || res.Tiers[0].Name != "fast" || res.Tiers[0].Queried != 600 || res.Tiers[1].Name != "slow" || res.Tiers[1].Queried != 602 ||
		res.Tiers[2].Name != "day_earlier" || res.Tiers[2].Queried != 0 {
		t.Fatalf("tiers = %+v, want fast with 600 series, slow with 602 and day_earlier with none", res.Tiers)
	}
	want := 600*43200*0.01/1000 + 602*4320*0.01/1000 + 3*43200*0.01/1000
	if d := res.MonthlyCost - want; d > 0.01 || d < -0.01 {
		t.Errorf("monthly cost = %.2f, want %.2f", res.MonthlyCost, want)
	}
	for _, s := range []string{
		"ok       dynamodb:DescribeTable",
		"ok       dynamodb:DescribeContinuousBackups",
		"ok       application-autoscaling:DescribeScheduledActions",
		"ok       dynamodb:DescribeLimits",
		"ok       cloudwatch:GetMetricData",
		"ok       dynamodb:Scan",
		"tables monitored: 100 (of 100 discovered), global secondary indexes: 200",
		"  fast tier, every 1m0s (throttle events, throttled requests, system and user errors, TTL deletions): 600 metrics per fetch in 2 GetMetricData requests, 36000 metrics per hour",
		"  slow tier, every 10m0s (consumed capacity, latency, the account's provisioned utilization, replication latency): 602 metrics per fetch in 2 GetMetricData requests, 3612 metrics per hour",
		"  every cycle (1m0s): 3 ListMetrics requests",
		"  fast tier, every 1m0s (throttle events, throttled requests, system and user errors, TTL deletions): 600 metrics per fetch, 36000 metrics per hour, about $259.20 per 30 days",
		"  slow tier, every 10m0s (consumed capacity, latency, the account's provisioned utilization, replication latency): 602 metrics per fetch, 3612 metrics per hour, about $26.01 per 30 days",
		"  ListMetrics, every 1m0s: 3 requests per cycle, about $1.30 per 30 days",
		"  total: 39612 metrics per hour (396 per table-hour), about $286.50 per 30 days",
		// 600 consumed series x 4,320 ten-minute cycles x $0.01/1,000 + 2 ListMetrics pages a minute.
		"CloudWatch cost floor, were every table and index idle: about $26.78 per 30 days (600 consumed-capacity metrics every 10m0s, published even when idle)",
		// Capacity history: 600 series x 3 windows packed by points, and
		// the 200 provisioned-capacity series of the base tables (the
		// billing-mode history, one request; see
		// exporter.TestCapacityHistoryCost), then 800 metrics an hour.
		"capacity history: first fetch 189 GetMetricData requests, 2000 metrics requested; then every 1h0m0s 3 requests, 800 metrics",
		"capacity history cost: $0.02 once for the first fetch (2000 metrics in 189 requests), then about $5.76 per 30 days (800 metrics per refresh)",
		"preflight passed",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q", s)
		}
	}

	// At a 5-minute interval the fast tier and ListMetrics cost a fifth;
	// the slow tier keeps its 10 minutes.
	app5 := build(t, sim, "accounts: [{regions: [us-east-1]}]\ncollectors: {cloudwatch: {interval: 5m}}\n")
	var out5 bytes.Buffer
	res5 := preflight.Run(context.Background(), app5, &out5)
	if len(res5.Tiers) != 3 {
		t.Fatalf("5m tiers = %+v", res5.Tiers)
	}
	near := func(a, b float64) bool { return a-b < 0.01 && b-a < 0.01 }
	if !near(res5.Tiers[0].MonthlyCost*5, res.Tiers[0].MonthlyCost) || !near(res5.Tiers[1].MonthlyCost, res.Tiers[1].MonthlyCost) ||
		!near(res5.ListMetricsMonthlyCost*5, res.ListMetricsMonthlyCost) {
		t.Errorf("5m costs: fast %.2f, slow %.2f, ListMetrics %.2f; 1m: %.2f, %.2f, %.2f; want a fifth, the same, a fifth; check output:\n%s",
			res5.Tiers[0].MonthlyCost, res5.Tiers[1].MonthlyCost, res5.ListMetricsMonthlyCost, res.Tiers[0].MonthlyCost, res.Tiers[1].MonthlyCost, res.ListMetricsMonthlyCost, out5.String())
	}
}

// TestCheckIdleAccountStillPaysForConsumed: the same 100 tables with no
// traffic at all. DynamoDB keeps publishing zero-valued consumed capacity
// for every table and index, so those 600 series stay listed and are
// queried: the plan and the bill never fall below them.
func TestCheckIdleAccountStillPaysForConsumed(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	tables100(t, sim, false)
	app := build(t, sim, "accounts: [{regions: [us-east-1]}]\n")
	var out bytes.Buffer
	res := preflight.Run(context.Background(), app, &out)
	if !res.OK() {
		t.Fatalf("preflight failed: %+v\n%s", res, out.String())
	}
	// 2 x (100 tables + 200 GSIs) consumed series queried; proven zero:
	// the 6 throttle metrics a provisioned table can have (aggregate, key
	// range, provisioned throughput; read and write) per table and index,
	// TTL deletions per table, UserErrors. The on-demand causes cannot
	// occur: no series. The account's two provisioned-utilization series
	// are listed (AWS publishes them) and queried too.
	if res.Queried != 602 || res.IdleFloor != 600 || res.Requests != 2 || res.ListPages != 2 || res.ProvenZero != 6*300+100+1 {
		t.Errorf("idle plan = %d queried (floor %d), %d proven zero, %d requests, %d list pages; want 602 (600), 1901, 2, 2",
			res.Queried, res.IdleFloor, res.ProvenZero, res.Requests, res.ListPages)
	}
	// 602 series every 10 minutes, 2 ListMetrics pages a minute; the
	// idle floor counts the 600 consumed series only.
	want := 602*4320*0.01/1000 + 2*43200*0.01/1000
	if d := res.MonthlyCost - want; d > 0.01 || d < -0.01 || res.IdleMonthlyCost-res.MonthlyCost > 0.01 {
		t.Errorf("idle monthly cost = %.2f (floor %.2f), want %.2f", res.MonthlyCost, res.IdleMonthlyCost, want)
	}
	if !strings.Contains(out.String(), "slow tier, every 10m0s (consumed capacity, latency, the account's provisioned utilization, replication latency): 602 metrics per fetch in 2 GetMetricData requests, 3612 metrics per hour") ||
		!strings.Contains(out.String(), "total: 3612 metrics per hour (36 per table-hour), about $26.87 per 30 days") {
		t.Errorf("check output lacks the idle plan:\n%s", out.String())
	}
}

func TestCheckNamesMissingPermissions(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	account100(t, sim)
	sim.Deny("cloudwatch:GetMetricData", "application-autoscaling:DescribeScalingPolicies", "dynamodb:Scan")
	app := build(t, sim, "accounts: [{name: prod, regions: [us-east-1]}]\n")
	var out bytes.Buffer
	res := preflight.Run(context.Background(), app, &out)
	if res.OK() {
		t.Fatalf("preflight passed with denied permissions:\n%s", out.String())
	}
	want := []string{"prod/us-east-1: dynamodb:Scan", "prod/us-east-1: application-autoscaling:DescribeScalingPolicies", "prod/us-east-1: cloudwatch:GetMetricData"}
	if strings.Join(res.Missing, "|") != strings.Join(want, "|") {
		t.Errorf("missing = %q, want %q", res.Missing, want)
	}
	if len(res.Failed) != 0 {
		t.Errorf("unexpected failures: %q", res.Failed)
	}
	for _, s := range []string{"MISSING  cloudwatch:GetMetricData", "MISSING  application-autoscaling:DescribeScalingPolicies", "ok       dynamodb:ListTables", "MISSING  dynamodb:Scan", "preflight FAILED: 3 missing permission(s)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
	if strings.Contains(out.String(), "SECRETTEST") {
		t.Error("output leaks the secret key")
	}
}

func TestCheckProbesTagsOnlyWithTagFilters(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	account100(t, sim)
	sim.Deny("dynamodb:ListTagsOfResource")
	var out bytes.Buffer
	if res := preflight.Run(context.Background(), build(t, sim, "accounts: [{regions: [us-east-1]}]\n"), &out); !res.OK() || strings.Contains(out.String(), "ListTagsOfResource") {
		t.Errorf("without tag filters ListTagsOfResource must not be probed:\n%s", out.String())
	}
	out.Reset()
	res := preflight.Run(context.Background(), build(t, sim, "accounts: [{regions: [us-east-1]}]\ntables: {tags: {env: prod}}\n"), &out)
	if res.OK() || !strings.Contains(out.String(), "MISSING  dynamodb:ListTagsOfResource") {
		t.Errorf("with tag filters a refused ListTagsOfResource must be named:\n%s", out.String())
	}
}

func TestCheckNamesMissingPITRPermission(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	account100(t, sim)
	sim.Deny("dynamodb:DescribeContinuousBackups")
	var out bytes.Buffer
	res := preflight.Run(context.Background(), build(t, sim, "accounts: [{regions: [us-east-1]}]\n"), &out)
	if res.OK() || !strings.Contains(out.String(), "MISSING  dynamodb:DescribeContinuousBackups") {
		t.Errorf("a refused DescribeContinuousBackups must be named:\n%s", out.String())
	}
}

func TestCheckNamesMissingLimitsPermission(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	account100(t, sim)
	sim.Deny("dynamodb:DescribeLimits")
	var out bytes.Buffer
	res := preflight.Run(context.Background(), build(t, sim, "accounts: [{regions: [us-east-1]}]\n"), &out)
	if res.OK() || !strings.Contains(out.String(), "MISSING  dynamodb:DescribeLimits") {
		t.Errorf("a refused DescribeLimits must be named:\n%s", out.String())
	}
}
