package exporter_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

func TestDiscoveryFiltersByNameTagAndRegion(t *testing.T) {
	h := newHarness(t, `
accounts:
  - name: prod
    regions: [us-east-1, eu-west-1]
tables:
  include: ["orders.*", "sessions"]
  exclude: [".*-tmp"]
  tags: {env: prod}
`, func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", tagged(provisioned("orders", 10, 5), "env", "prod"))
		mustPut(sim, "us-east-1", tagged(provisioned("orders-tmp", 10, 5), "env", "prod"))
		mustPut(sim, "us-east-1", tagged(provisioned("orders-staging", 10, 5), "env", "staging"))
		mustPut(sim, "us-east-1", tagged(provisioned("sessions", 10, 5), "env", "prod", "team", "web"))
		mustPut(sim, "us-east-1", tagged(provisioned("audit", 10, 5), "env", "prod"))
		mustPut(sim, "us-east-1", provisioned("sessions-untagged", 10, 5))
		mustPut(sim, "eu-west-1", tagged(provisioned("orders-eu", 10, 5), "env", "prod"))
	})
	h.cycle()
	body := h.scrape()
	got := series(t, body, catalogue.TableInfo)
	want := []string{
		"account=prod,billing_mode=PROVISIONED,region=eu-west-1,status=ACTIVE,table=orders-eu,table_class=STANDARD",
		"account=prod,billing_mode=PROVISIONED,region=us-east-1,status=ACTIVE,table=orders,table_class=STANDARD",
		"account=prod,billing_mode=PROVISIONED,region=us-east-1,status=ACTIVE,table=sessions,table_class=STANDARD",
	}
	if !slices.Equal(got, want) {
		t.Errorf("table_info series:\n got %q\nwant %q", got, want)
	}
	if v := mustValue(t, body, catalogue.ExporterTables, map[string]string{"region": "us-east-1"}); v != 2 {
		t.Errorf("tables monitored in us-east-1 = %v, want 2", v)
	}
	if v := mustValue(t, body, catalogue.ExporterTables, map[string]string{"region": "eu-west-1"}); v != 1 {
		t.Errorf("tables monitored in eu-west-1 = %v, want 1", v)
	}
	// Tags are only read for tables whose names pass the filters.
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "ListTagsOfResource"); n != 4 {
		t.Errorf("ListTagsOfResource calls = %d, want 4 (orders, orders-staging, sessions, sessions-untagged... minus excluded)", n)
	}
}

func TestCloudWatchBatchesOnlyListedSeries(t *testing.T) {
	// 100 tables with 2 GSIs each; consumed and throttle events exist for
	// the table and both indexes: 100 x 3 x 4 = 1,200 listed series.
	minute := start.Add(-4 * time.Minute).Truncate(time.Minute)
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		for i := range 100 {
			name := tableName(i)
			mustPut(sim, "us-east-1", provisioned(name, 100, 50, "gsi-a", "gsi-b"))
			for _, idx := range []string{"", "gsi-a", "gsi-b"} {
				for _, m := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents"} {
					dims := []string{"TableName", name}
					if idx != "" {
						dims = append(dims, "GlobalSecondaryIndexName", idx)
					}
					putSum(sim, "us-east-1", metric(m, dims...), minute, 60)
				}
			}
		}
	})
	h.cycle()
	var sizes []int
	for _, r := range h.sim.Requests() {
		if r.Operation == "GetMetricData" {
			sizes = append(sizes, r.Queries)
		}
	}
	slices.Sort(sizes)
	// 1,200 table series and the account's two provisioned-utilization
	// series (AWS publishes them whatever the traffic).
	if !slices.Equal(sizes, []int{202, 500, 500}) {
		t.Errorf("GetMetricData request sizes = %v, want [202 500 500]", sizes)
	}
	body := h.scrape()
	if v := mustValue(t, body, catalogue.ExporterCloudWatchMetricsTotal, nil); v != 1202 {
		t.Errorf("metrics requested = %v, want 1202", v)
	}
	if v := mustValue(t, body, catalogue.ExporterCloudWatchSeries, map[string]string{"state": "queried"}); v != 1202 {
		t.Errorf("queried series = %v, want 1202", v)
	}
	// Not listed, so proven zero without a request: the cause-specific
	// throttle metrics a provisioned table can have (key range and
	// provisioned throughput, read and write) x 3 x 100, TTL deletions x
	// 100, UserErrors x 1. The on-demand causes (account limit, maximum
	// on-demand throughput) cannot occur: no series.
	if v := mustValue(t, body, catalogue.ExporterCloudWatchSeries, map[string]string{"state": "proven_zero"}); v != 1301 {
		t.Errorf("proven-zero series = %v, want 1301", v)
	}
	if v := mustValue(t, body, catalogue.ConsumedReadCapacityUnitsTotal, map[string]string{"table": "t-042", "index": "gsi-b"}); v != 60 {
		t.Errorf("consumed read on t-042/gsi-b = %v, want 60 units", v)
	}
	if v := mustValue(t, body, catalogue.ThrottleEventsByCauseTotal, map[string]string{"table": "t-042", "index": "", "kind": "write", "cause": "key_range_throughput"}); v != 0 {
		t.Errorf("proven-zero counter = %v, want 0", v)
	}
}

func tableName(i int) string {
	return "t-" + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

func TestCloudWatchValuesDimensionsAndCounters(t *testing.T) {
	m1 := start.Add(-4 * time.Minute).Truncate(time.Minute) // 11:56, read by the first cycle
	m2 := m1.Add(time.Minute)
	// Every tier every minute: the test is about values, not cadences.
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {cloudwatch: {slow_interval: 1m}}\n", func(sim *awssim.Server) {
		tb := provisioned("orders", 100, 50, "by-customer")
		tb.TTL = awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: "expires_at"}
		mustPut(sim, "us-east-1", tb)
		r := "us-east-1"
		putSum(sim, r, metric("ConsumedReadCapacityUnits", "TableName", "orders"), m1, 600)
		putSum(sim, r, metric("ConsumedReadCapacityUnits", "TableName", "orders", "GlobalSecondaryIndexName", "by-customer"), m1, 120)
		putSum(sim, r, metric("ReadThrottleEvents", "TableName", "orders", "GlobalSecondaryIndexName", "by-customer"), m1, 5)
		putSum(sim, r, metric("ReadKeyRangeThroughputThrottleEvents", "TableName", "orders"), m1, 3)
		putSum(sim, r, metric("ThrottledRequests", "TableName", "orders", "Operation", "Query"), m1, 4)
		putSum(sim, r, metric("SystemErrors", "TableName", "orders", "Operation", "PutItem"), m1, 1)
		putSum(sim, r, metric("TimeToLiveDeletedItemCount", "TableName", "orders"), m1, 42)
		putSum(sim, r, metric("UserErrors"), m1, 7)
		sim.Metrics().Put(r, metric("SuccessfulRequestLatency", "TableName", "orders", "Operation", "GetItem"),
			awssim.Datapoint{Time: m1, Sum: 50, SampleCount: 10, Minimum: 2, Maximum: 60, Percentiles: map[string]float64{"p99": 48}})
	})
	h.cycle()
	body := h.scrape()
	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{catalogue.ConsumedReadCapacityUnitsTotal, map[string]string{"table": "orders", "index": ""}, 600},
		{catalogue.ConsumedReadCapacityUnitsTotal, map[string]string{"table": "orders", "index": "by-customer"}, 120},
		{catalogue.ConsumedWriteCapacityUnitsTotal, map[string]string{"table": "orders", "index": ""}, 0},
		{catalogue.ThrottleEventsTotal, map[string]string{"table": "orders", "index": "by-customer", "kind": "read"}, 5},
		{catalogue.ThrottleEventsTotal, map[string]string{"table": "orders", "index": "", "kind": "read"}, 0},
		{catalogue.ThrottleEventsByCauseTotal, map[string]string{"table": "orders", "index": "", "kind": "read", "cause": "key_range_throughput"}, 3},
		{catalogue.ThrottledRequestsTotal, map[string]string{"table": "orders", "operation": "Query"}, 4},
		{catalogue.ThrottledRequestsTotal, map[string]string{"table": "orders", "operation": "GetItem"}, 0}, // operation known from latency
		{catalogue.SystemErrorsTotal, map[string]string{"table": "orders", "operation": "PutItem"}, 1},
		{catalogue.TTLDeletedItemsTotal, map[string]string{"table": "orders"}, 42},
		{catalogue.UserErrorsTotal, map[string]string{"region": "us-east-1"}, 7},
		{catalogue.SuccessfulRequestLatencyAverage, map[string]string{"table": "orders", "operation": "GetItem"}, 0.005},
		{catalogue.SuccessfulRequestLatencyP99, map[string]string{"table": "orders", "operation": "GetItem"}, 0.048},
	}
	for _, c := range checks {
		if got := mustValue(t, body, c.family, c.labels); !near(got, c.want) {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
	}
	if _, ok := value(t, body, catalogue.SuccessfulRequestLatencyAverage, map[string]string{"operation": "Query"}); ok {
		t.Error("latency emitted for an operation with no latency data")
	}

	// Next minute: counters add, including consumed units; a minute without
	// consumed data adds nothing.
	r := "us-east-1"
	putSum(h.sim, r, metric("ReadThrottleEvents", "TableName", "orders", "GlobalSecondaryIndexName", "by-customer"), m2, 2)
	putSum(h.sim, r, metric("ConsumedReadCapacityUnits", "TableName", "orders"), m2, 300)
	putSum(h.sim, r, metric("UserErrors"), m2, 1)
	h.clk.Advance(time.Minute)
	h.cycle()
	body = h.scrape()
	if got := mustValue(t, body, catalogue.ThrottleEventsTotal, map[string]string{"table": "orders", "index": "by-customer", "kind": "read"}); got != 7 {
		t.Errorf("throttle counter after two minutes = %v, want 7", got)
	}
	if got := mustValue(t, body, catalogue.ConsumedReadCapacityUnitsTotal, map[string]string{"table": "orders", "index": ""}); got != 900 {
		t.Errorf("consumed read after second minute = %v, want 900", got)
	}
	if got := mustValue(t, body, catalogue.ConsumedReadCapacityUnitsTotal, map[string]string{"table": "orders", "index": "by-customer"}); got != 120 {
		t.Errorf("consumed read on GSI with no point in the minute = %v, want 120", got)
	}
	if got := mustValue(t, body, catalogue.UserErrorsTotal, nil); got != 8 {
		t.Errorf("user errors = %v, want 8", got)
	}
	if got := mustValue(t, body, catalogue.TTLDeletedItemsTotal, map[string]string{"table": "orders"}); got != 42 {
		t.Errorf("TTL deletions = %v, want 42 (no new minute)", got)
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

func TestCatchUpAfterCloudWatchFailure(t *testing.T) {
	m1 := start.Add(-4 * time.Minute).Truncate(time.Minute)
	events := metric("WriteThrottleEvents", "TableName", "orders")
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
		putSum(sim, "us-east-1", events, m1, 1)
	})
	h.cycle()
	// The second cycle's GetMetricData is throttled: nothing is ingested.
	putSum(h.sim, "us-east-1", events, m1.Add(time.Minute), 10)
	h.sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Error: awssim.ErrThrottling, Times: 1})
	h.clk.Advance(time.Minute)
	h.cycle()
	body := h.scrape()
	labels := map[string]string{"table": "orders", "index": "", "kind": "write"}
	if got := mustValue(t, body, catalogue.ThrottleEventsTotal, labels); got != 1 {
		t.Errorf("counter after a failed cycle = %v, want 1 (kept)", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, map[string]string{"collector": "cloudwatch"}); got != 0 {
		t.Errorf("cloudwatch success after failure = %v, want 0", got)
	}
	if got := mustValue(t, body, catalogue.ExporterAWSRequestErrorsTotal, map[string]string{"operation": "GetMetricData", "error_code": "Throttling"}); got != 1 {
		t.Errorf("request errors = %v, want 1", got)
	}
	// The third cycle fetches both missed minutes.
	putSum(h.sim, "us-east-1", events, m1.Add(2*time.Minute), 100)
	h.clk.Advance(time.Minute)
	h.cycle()
	body = h.scrape()
	if got := mustValue(t, body, catalogue.ThrottleEventsTotal, labels); got != 111 {
		t.Errorf("counter after catch-up = %v, want 111", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, map[string]string{"collector": "cloudwatch"}); got != 1 {
		t.Errorf("cloudwatch success after recovery = %v, want 1", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorErrorsTotal, map[string]string{"collector": "cloudwatch"}); got != 1 {
		t.Errorf("cloudwatch errors = %v, want 1", got)
	}
	if _, ok := value(t, body, catalogue.ExporterCollectorLastSuccess, map[string]string{"collector": "cloudwatch"}); !ok {
		t.Error("no last-success time for cloudwatch")
	}
}

func TestTableDeletedBetweenCyclesDropsItsSeries(t *testing.T) {
	m1 := start.Add(-4 * time.Minute).Truncate(time.Minute)
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("keep", 10, 5, "idx"))
		mustPut(sim, "us-east-1", provisioned("gone", 10, 5, "idx"))
		putSum(sim, "us-east-1", metric("ReadThrottleEvents", "TableName", "gone"), m1, 3)
	})
	h.cycle()
	body := h.scrape()
	if _, ok := value(t, body, catalogue.ThrottleEventsTotal, map[string]string{"table": "gone", "kind": "read", "index": ""}); !ok {
		t.Fatal("setup: no throttle series for the table to delete")
	}
	if !h.sim.DeleteTable("us-east-1", "gone") {
		t.Fatal("setup: delete failed")
	}
	h.clk.Advance(5 * time.Minute)
	h.cycle()
	body = h.scrape()
	for _, fam := range []string{catalogue.TableInfo, catalogue.ProvisionedReadCapacityUnits, catalogue.Items, catalogue.ThrottleEventsTotal, catalogue.ConsumedReadCapacityUnitsTotal} {
		if _, ok := value(t, body, fam, map[string]string{"table": "gone"}); ok {
			t.Errorf("%s still has a series for the deleted table", fam)
		}
		if _, ok := value(t, body, fam, map[string]string{"table": "keep"}); !ok {
			t.Errorf("%s lost the series of the remaining table", fam)
		}
	}
	if got := mustValue(t, body, catalogue.ExporterTables, nil); got != 1 {
		t.Errorf("tables = %v, want 1", got)
	}
}

func TestDescribeFailureKeepsLastKnownFacts(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("aaa", 10, 5))
		mustPut(sim, "us-east-1", provisioned("bbb", 20, 5))
	})
	h.cycle()
	h.sim.InjectFault(awssim.Fault{Service: awssim.ServiceDynamoDB, Operation: "DescribeTable", Table: "bbb", Error: awssim.ErrInternal})
	h.clk.Advance(5 * time.Minute)
	h.cycle()
	body := h.scrape()
	if got := mustValue(t, body, catalogue.ProvisionedReadCapacityUnits, map[string]string{"table": "bbb", "index": ""}); got != 20 {
		t.Errorf("last known capacity of bbb = %v, want 20", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorErrorsTotal, map[string]string{"collector": "tables"}); got != 1 {
		t.Errorf("tables collector errors = %v, want 1", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, map[string]string{"collector": "tables"}); got != 0 {
		t.Errorf("tables collector success = %v, want 0", got)
	}
}

func TestTableFactsAndAutoScaling(t *testing.T) {
	switched := start.Add(-36 * time.Hour).Truncate(time.Second)
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		tb := provisioned("orders", 100, 50, "by-customer")
		tb.TTL = awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: "expires_at"}
		tb.Throughput.NumberOfDecreasesToday = 2
		tb.Throughput.LastDecreaseDateTime = start.Add(-time.Hour)
		mustPut(sim, "us-east-1", tb)
		od := awssim.Table{
			Name: "sessions", BillingMode: awssim.BillingPayPerRequest, TableClass: awssim.TableClassStandardIA,
			ItemCount: 77, SizeBytes: 4096, LastUpdateToPayPerRequestDateTime: switched,
			OnDemand:             awssim.OnDemandThroughput{MaxReadRequestUnits: 1000, MaxWriteRequestUnits: -1},
			KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			GSIs: []awssim.GlobalSecondaryIndex{{
				IndexName: "by-user", KeySchema: []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
				OnDemand: awssim.OnDemandThroughput{MaxReadRequestUnits: -1, MaxWriteRequestUnits: 200},
			}},
		}
		mustPut(sim, "us-east-1", od)
		for _, st := range []awssim.ScalableTarget{
			{ResourceID: "table/orders", ScalableDimension: awssim.DimTableRead, MinCapacity: 5, MaxCapacity: 500},
			{ResourceID: "table/orders/index/by-customer", ScalableDimension: awssim.DimIndexWrite, MinCapacity: 1, MaxCapacity: 40},
			{ResourceID: "table/not-monitored", ScalableDimension: awssim.DimTableRead, MinCapacity: 1, MaxCapacity: 2},
		} {
			if err := sim.PutScalableTarget("us-east-1", st); err != nil {
				t.Fatal(err)
			}
		}
		if err := sim.PutScalingPolicy("us-east-1", awssim.ScalingPolicy{
			PolicyName: "read", ResourceID: "table/orders", ScalableDimension: awssim.DimTableRead,
			TargetValue: 90, PredefinedMetricType: awssim.MetricReadUtilization, ScaleInCooldown: 60, ScaleOutCooldown: 30, DisableScaleIn: true,
		}); err != nil {
			t.Fatal(err)
		}
	})
	h.cycle()
	body := h.scrape()
	checks := []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{catalogue.ProvisionedReadCapacityUnits, map[string]string{"table": "orders", "index": ""}, 100},
		{catalogue.ProvisionedWriteCapacityUnits, map[string]string{"table": "orders", "index": "by-customer"}, 25},
		{catalogue.ProvisionedDecreasesToday, map[string]string{"table": "orders", "index": ""}, 2},
		{catalogue.Items, map[string]string{"table": "sessions", "index": ""}, 77},
		{catalogue.SizeBytes, map[string]string{"table": "orders", "index": "by-customer"}, 1 << 19},
		{catalogue.LastSwitchToOnDemandTimestamp, map[string]string{"table": "sessions"}, float64(switched.Unix())},
		{catalogue.OnDemandMaxReadRequestUnits, map[string]string{"table": "sessions", "index": ""}, 1000},
		{catalogue.OnDemandMaxWriteRequestUnits, map[string]string{"table": "sessions", "index": "by-user"}, 200},
		{catalogue.TableTTLInfo, map[string]string{"table": "orders", "status": "ENABLED", "attribute": "expires_at"}, 1},
		{catalogue.TableTTLInfo, map[string]string{"table": "sessions", "status": "DISABLED", "attribute": ""}, 1},
		{catalogue.TableInfo, map[string]string{"table": "sessions", "billing_mode": "PAY_PER_REQUEST", "table_class": "STANDARD_INFREQUENT_ACCESS"}, 1},
		{catalogue.AutoScalingMinCapacityUnits, map[string]string{"table": "orders", "index": "", "dimension": "read"}, 5},
		{catalogue.AutoScalingMaxCapacityUnits, map[string]string{"table": "orders", "index": "by-customer", "dimension": "write"}, 40},
		{catalogue.AutoScalingTargetUtilization, map[string]string{"table": "orders", "dimension": "read"}, 0.9},
		{catalogue.AutoScalingScaleInCooldown, map[string]string{"table": "orders", "dimension": "read"}, 60},
		{catalogue.AutoScalingScaleOutCooldown, map[string]string{"table": "orders", "dimension": "read"}, 30},
		{catalogue.AutoScalingScaleInDisabled, map[string]string{"table": "orders", "dimension": "read"}, 1},
	}
	for _, c := range checks {
		if got := mustValue(t, body, c.family, c.labels); !near(got, c.want) {
			t.Errorf("%s%v = %v, want %v", c.family, c.labels, got, c.want)
		}
	}
	for _, absent := range []struct {
		family string
		labels map[string]string
	}{
		{catalogue.ProvisionedReadCapacityUnits, map[string]string{"table": "sessions"}},                    // on-demand
		{catalogue.OnDemandMaxWriteRequestUnits, map[string]string{"table": "sessions", "index": ""}},       // unlimited (-1)
		{catalogue.OnDemandMaxReadRequestUnits, map[string]string{"table": "sessions", "index": "by-user"}}, // unlimited (-1)
		{catalogue.AutoScalingMinCapacityUnits, map[string]string{"table": "not-monitored"}},                // no such table
		{catalogue.LastSwitchToOnDemandTimestamp, map[string]string{"table": "orders"}},                     // never switched
	} {
		if _, ok := value(t, body, absent.family, absent.labels); ok {
			t.Errorf("%s%v should be absent", absent.family, absent.labels)
		}
	}
}

// TestCloudWatchPlanForAFullyActiveAccount is the worst case of the bill:
// 100 tables with 2 GSIs where every series DynamoDB can publish had a
// datapoint in the last three hours, with three operations per table.
func TestCloudWatchPlanForAFullyActiveAccount(t *testing.T) {
	minute := start.Add(-4 * time.Minute).Truncate(time.Minute)
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		r := "us-east-1"
		putSum(sim, r, metric("UserErrors"), minute, 1)
		for i := range 100 {
			name := tableName(i)
			mustPut(sim, r, provisioned(name, 100, 50, "gsi-a", "gsi-b"))
			putSum(sim, r, metric("TimeToLiveDeletedItemCount", "TableName", name), minute, 1)
			for _, idx := range []string{"", "gsi-a", "gsi-b"} {
				for _, s := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents"} {
					putSum(sim, r, indexMetric(s, name, idx), minute, 1)
				}
				for _, kind := range []string{"Read", "Write"} {
					for _, cause := range []string{"KeyRangeThroughput", "ProvisionedThroughput", "AccountLimit", "MaxOnDemandThroughput"} {
						if kind+cause == "WriteAccountLimit" && idx != "" {
							continue // published per table only
						}
						putSum(sim, r, indexMetric(kind+cause+"ThrottleEvents", name, idx), minute, 1)
					}
				}
			}
			for _, op := range []string{"GetItem", "PutItem", "Query"} {
				for _, s := range []string{"ThrottledRequests", "SystemErrors", "SuccessfulRequestLatency"} {
					putSum(sim, r, metric(s, "TableName", name, "Operation", op), minute, 1)
				}
			}
		}
	})
	h.cycle()
	body := h.scrape()
	// Per table: 11 table/index metrics x 3 + WriteAccountLimitThrottleEvents
	// (per table only) + TTL deletions + 3 operations x (throttled, system
	// errors, latency average, latency p99) = 47; plus UserErrors and the
	// two provisioned-utilization metrics for the region.
	if v := mustValue(t, body, catalogue.ExporterCloudWatchSeries, map[string]string{"state": "queried"}); v != 4703 {
		t.Errorf("queried series = %v, want 4703", v)
	}
	if v := mustValue(t, body, catalogue.ExporterCloudWatchSeries, map[string]string{"state": "proven_zero"}); v != 0 {
		t.Errorf("proven-zero series = %v, want 0", v)
	}
	// Plus, once an hour, the TTL deletions of the same hour a day earlier
	// of the 100 tables whose TTL deletions are listed: one request.
	if n := h.sim.RequestCount(awssim.ServiceCloudWatch, "GetMetricData"); n != 11 {
		t.Errorf("GetMetricData requests = %d, want 11 (4,703 queries in batches of 500, and 100 day-earlier queries)", n)
	}
	if v := mustValue(t, body, catalogue.ExporterCloudWatchMetricsTotal, nil); v != 4803 {
		t.Errorf("metrics requested = %v, want 4803", v)
	}
}

func indexMetric(name, table, index string) awssim.Metric {
	if index == "" {
		return metric(name, "TableName", table)
	}
	return metric(name, "TableName", table, "GlobalSecondaryIndexName", index)
}

func TestMissingTTLPermissionKeepsTablesMonitored(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
		sim.Deny("dynamodb:DescribeTimeToLive")
	})
	h.cycle()
	body := h.scrape()
	if _, ok := value(t, body, catalogue.TableInfo, map[string]string{"table": "orders"}); !ok {
		t.Error("a table whose TTL cannot be read must stay monitored")
	}
	if _, ok := value(t, body, catalogue.TableTTLInfo, map[string]string{"table": "orders"}); ok {
		t.Error("TTL info emitted without a DescribeTimeToLive answer")
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorErrorsTotal, map[string]string{"collector": "tables"}); got != 1 {
		t.Errorf("tables errors = %v, want 1", got)
	}
	if got := mustValue(t, body, catalogue.ExporterAWSRequestErrorsTotal, map[string]string{"operation": "DescribeTimeToLive", "error_code": "AccessDeniedException"}); got != 1 {
		t.Errorf("AccessDenied count = %v, want 1", got)
	}
}

// TestTTLDeletionRateDayEarlier: a table whose TTL deletions CloudWatch
// lists gets its deletion rate over the hour that ended 24 hours before
// the cycle's end, from the first cycle on, read off CloudWatch's
// history, sliding with the clock; a TTL table without deletions gets
// none; a failed query leaves no figure and a failed run, and the next
// cycle fetches it again.
func TestTTLDeletionRateDayEarlier(t *testing.T) {
	// The day before: 6 deletions a minute from 10:00 to 12:00.
	dayBefore := start.Add(-24 * time.Hour).Truncate(time.Hour).Add(-2 * time.Hour)
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {cloudwatch: {delay: 2m}}\n", func(sim *awssim.Server) {
		for _, name := range []string{"sessions", "quiet"} {
			tb := provisioned(name, 100, 50)
			tb.TTL = awssim.TimeToLive{Status: awssim.TTLEnabled, AttributeName: "expires_at"}
			mustPut(sim, "us-east-1", tb)
		}
		m := metric("TimeToLiveDeletedItemCount", "TableName", "sessions")
		for at := dayBefore; at.Before(dayBefore.Add(2 * time.Hour)); at = at.Add(time.Minute) {
			putSum(sim, "us-east-1", m, at, 6)
		}
	})
	// A deletion a few minutes before each cycle keeps the table's TTL
	// deletions listed (ListMetrics lists the metrics of the last 3 hours).
	listed := func(h *harness) {
		putSum(h.sim, "us-east-1", metric("TimeToLiveDeletedItemCount", "TableName", "sessions"), h.clk.Now().Add(-4*time.Minute).Truncate(time.Minute), 3)
	}
	for _, c := range []struct {
		after time.Duration
		want  float64
	}{
		// end 11:58: [10:55, 11:55) the day before, all of it at 6 a minute.
		{0, 0.1},
		// end 12:28: [11:25, 12:25), 35 minutes of it.
		{30 * time.Minute, 35 * 6 / 3600.0},
		// end 13:58: [12:55, 13:55), none (fetched again: the first
		// fetch held 10:55 to 12:55).
		{90 * time.Minute, 0},
	} {
		h.clk.Advance(c.after)
		listed(h)
		h.cycle()
		body := h.scrape()
		if got, ok := value(t, body, catalogue.TTLDeletionRateDayEarlier, map[string]string{"table": "sessions"}); !ok || !near(got, c.want) {
			t.Errorf("+%v: day-earlier rate %v (present %v), want %v", c.after, got, ok, c.want)
		}
		if got, ok := value(t, body, catalogue.TTLDeletionRateDayEarlier, map[string]string{"table": "quiet"}); ok {
			t.Errorf("+%v: a table without TTL deletions has a day-earlier rate %v", c.after, got)
		}
	}

	// end 15:03: the bins (12:55 to 14:55) no longer cover [14:00, 15:00),
	// and CloudWatch answers the day-earlier queries (ids d0, d1, ...)
	// with an error status while the live series' queries succeed: no
	// figure (not the stale one), and the collector's run counts as
	// failed for that query alone.
	edited := 0
	h.sim.InjectFault(awssim.Fault{Service: awssim.ServiceCloudWatch, Operation: "GetMetricData", Edit: func(doc map[string]any) {
		rs, _ := doc["MetricDataResults"].([]any)
		for _, x := range rs {
			if res, ok := x.(map[string]any); ok {
				if id, _ := res["Id"].(string); strings.HasPrefix(id, "d") {
					res["StatusCode"] = "InternalError"
					edited++
				}
			}
		}
	}})
	h.clk.Advance(65 * time.Minute)
	listed(h)
	h.cycle()
	body := h.scrape()
	if edited == 0 {
		t.Fatal("no day-earlier query was asked for: the failure path is not exercised")
	}
	if got, ok := value(t, body, catalogue.TTLDeletionRateDayEarlier, map[string]string{"table": "sessions"}); ok {
		t.Errorf("a failed day-earlier query left a figure: %v", got)
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorSuccess, map[string]string{"collector": "cloudwatch"}); got != 0 {
		t.Errorf("cloudwatch collector success = %v after a failed day-earlier query, want 0", got)
	}
	if got := mustValue(t, body, catalogue.TTLDeletedItemsTotal, map[string]string{"table": "sessions"}); got == 0 {
		t.Error("the live TTL counter read nothing: the fault reached the live queries too")
	}
	// CloudWatch answers again: the next cycle fetches it (no deletion
	// then: 0).
	h.sim.ClearFaults()
	h.clk.Advance(time.Minute)
	listed(h)
	h.cycle()
	if got, ok := value(t, h.scrape(), catalogue.TTLDeletionRateDayEarlier, map[string]string{"table": "sessions"}); !ok || got != 0 {
		t.Errorf("after CloudWatch recovered: day-earlier rate %v (present %v), want 0", got, ok)
	}
}
