package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

const globalYAML = `
name: global
history: 2d
horizon: 1d
account: {regions: [us-east-1, eu-west-1]}
tables:
  - name: orders
    billing: on_demand
    traffic: {read: 40, write: 20, daily: 0.3, noise: 0.05}
    gsis:
      - {name: by-user, capacity: {read: 5, write: 5}}
    billing_switches:
      - {at: -12h, mode: provisioned, capacity: {read: 100, write: 100}}
    auto_scaling:
      write: {min: 50, max: 400}
    replicas:
      - region: eu-west-1
        read: 10
        replication_latency:
          base: 800ms
          noise: 0.1
          lags:
            - {at: -2h, ramp: 1h, peak: 4m}
`

// ddbIn is a DynamoDB client of the rig's server in region.
func (r *rig) ddbIn(region string) *dynamodb.Client {
	return dynamodb.New(r.ddb.Options(), func(o *dynamodb.Options) { o.Region = region })
}

func TestGlobalTableReplicatesWritesAndLatency(t *testing.T) {
	sc, err := LoadScenario([]byte(globalYAML))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	if got := r.eng.Tables(); len(got) != 2 || got[0] != "eu-west-1/orders" || got[1] != "us-east-1/orders" {
		t.Fatalf("Tables() = %v, want the table in both regions", got)
	}
	ctx := context.Background()
	for _, c := range []struct{ region, other string }{{"us-east-1", "eu-west-1"}, {"eu-west-1", "us-east-1"}} {
		out, err := r.ddbIn(c.region).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
		if err != nil {
			t.Fatal(err)
		}
		d := out.Table
		if len(d.Replicas) != 1 || aws.ToString(d.Replicas[0].RegionName) != c.other || aws.ToString(d.GlobalTableVersion) != "2019.11.21" {
			t.Errorf("%s: Replicas %+v, version %v", c.region, d.Replicas, aws.ToString(d.GlobalTableVersion))
		}
		// The scheduled switch to provisioned, made once in the source's
		// region, switched both replicas.
		if d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Errorf("%s: billing mode %s after the scheduled switch", c.region, d.BillingModeSummary.BillingMode)
		}
	}
	// Every write accepted in us-east-1 is a replicated write in eu-west-1:
	// the consumed write units are the same minute by minute (neither
	// region throttles: on-demand, then auto-scaled well above demand).
	from, to := t0.Add(-36*time.Hour), t0
	east := r.eng.Datapoints("us-east-1", awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ConsumedWriteCapacityUnits", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}}}, from, to)
	west := r.eng.Datapoints("eu-west-1", awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ConsumedWriteCapacityUnits", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}}}, from, to)
	if len(east) == 0 || len(east) != len(west) {
		t.Fatalf("consumed writes: %d datapoints in us-east-1, %d in eu-west-1", len(east), len(west))
	}
	for i := range east {
		if east[i].Sum != west[i].Sum {
			t.Fatalf("minute %v: %v write units in us-east-1, %v replicated to eu-west-1", east[i].Time, east[i].Sum, west[i].Sum)
		}
	}
	// The replica's own reads are its own.
	er, wr := r.sumIn("us-east-1", "ConsumedReadCapacityUnits", from, to), r.sumIn("eu-west-1", "ConsumedReadCapacityUnits", from, to)
	if ratio := wr / er; math.Abs(ratio-0.25) > 0.03 {
		t.Errorf("reads eu-west-1/us-east-1 = %.3f, want about 10/40", ratio)
	}

	// ReplicationLatency: in the source's region only, per receiving
	// region, in milliseconds: about 800 ms, then 4 minutes once lagging.
	lat := func(region string, at time.Time) []awssim.Datapoint {
		return r.eng.Datapoints(region, awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ReplicationLatency",
			Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}, {Name: "ReceivingRegion", Value: "eu-west-1"}}}, at, at.Add(time.Minute))
	}
	if dp := lat("us-east-1", t0.Add(-5*time.Hour)); len(dp) != 1 || math.Abs(dp[0].Sum/dp[0].SampleCount-800) > 81 {
		t.Errorf("latency before the lag: %+v, want about 800 ms", dp)
	}
	if dp := lat("us-east-1", t0.Add(-10*time.Minute)); len(dp) != 1 || math.Abs(dp[0].Sum/dp[0].SampleCount-240000) > 24001 {
		t.Errorf("latency while lagging: %+v, want about 240000 ms", dp)
	}
	if dp := lat("eu-west-1", t0.Add(-10*time.Minute)); len(dp) != 0 {
		t.Errorf("ReplicationLatency published in the receiving region: %+v", dp)
	}
	var listed bool
	for _, m := range r.eng.ListMetrics("us-east-1") {
		if m.Name == "ReplicationLatency" {
			listed = true
		}
	}
	if !listed {
		t.Error("ReplicationLatency is not listed in us-east-1")
	}

	// A switch made through the API in the replica's region switches the
	// source too, and the simulation follows in both.
	if _, err := r.ddbIn("eu-west-1").UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	r.advance(t, 10*time.Minute)
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		tb, _ := r.srv.Table(region, "orders")
		if tb.BillingMode != awssim.BillingPayPerRequest {
			t.Errorf("%s: %s after the switch in eu-west-1", region, tb.BillingMode)
		}
	}
	for _, ts := range r.eng.tables {
		if !ts.onDemand {
			t.Errorf("the simulation of %s/%s did not follow the switch", ts.region, ts.name)
		}
	}
}

// sumIn is the sum of a table metric of "orders" in region.
func (r *rig) sumIn(region, name string, from, to time.Time) float64 {
	var s float64
	for _, dp := range r.eng.Datapoints(region, awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: name, Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}}}, from, to) {
		s += dp.Sum
	}
	return s
}

// TestReplicaBeingCreated: a replica's status is what DescribeTable in the
// other regions answers for it.
func TestReplicaBeingCreated(t *testing.T) {
	sc, err := LoadScenario([]byte("history: 1d\naccount: {regions: [us-east-1, eu-west-1, ap-south-1]}\ntables:\n  - name: orders\n    billing: on_demand\n    traffic: {read: 5, write: 5}\n    replicas:\n      - {region: eu-west-1}\n      - {region: ap-south-1, status: CREATING}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	out, err := r.ddbIn("eu-west-1").DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]types.ReplicaStatus{}
	for _, rep := range out.Table.Replicas {
		got[aws.ToString(rep.RegionName)] = rep.ReplicaStatus
	}
	if len(got) != 2 || got["us-east-1"] != types.ReplicaStatusActive || got["ap-south-1"] != types.ReplicaStatusCreating {
		t.Errorf("eu-west-1 lists %v, want us-east-1 ACTIVE and ap-south-1 CREATING", got)
	}
}

func TestGlobalTableScenarioErrors(t *testing.T) {
	base := "account: {regions: [us-east-1, eu-west-1]}\ntables:\n  - name: orders\n    billing: on_demand\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"replica in an unknown region", base + "    replicas:\n      - region: ap-south-1\n", "tables[0].replicas[0].region (line 6)"},
		{"replica in the table's region", base + "    replicas:\n      - region: us-east-1\n", "already holds the table"},
		{"provisioned without write auto-scaling", "account: {regions: [us-east-1, eu-west-1]}\ntables:\n  - name: orders\n    replicas:\n      - region: eu-west-1\n", "needs write auto-scaling"},
		{"bad base", base + "    replicas:\n      - region: eu-west-1\n        replication_latency: {base: 2h}\n", "tables[0].replicas[0].replication_latency.base (line 7)"},
		{"peak below base", base + "    replicas:\n      - region: eu-west-1\n        replication_latency:\n          base: 1s\n          lags: [{at: -1h, peak: 10ms}]\n", "tables[0].replicas[0].replication_latency.lags[0].peak"},
		{"noise", base + "    replicas:\n      - region: eu-west-1\n        replication_latency: {noise: 1.5}\n", "replication_latency.noise"},
		{"status", base + "    replicas:\n      - {region: eu-west-1, status: LOST}\n", "tables[0].replicas[0].status (line 6)"},
		{"twice", base + "    replicas:\n      - region: eu-west-1\n  - name: orders\n    region: eu-west-1\n    billing: on_demand\n", "defined twice"},
	} {
		_, err := LoadScenario([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// ttlGlobalYAML is a global table whose source writes nothing but holds n
// TTL items of 2,500 bytes of padding (3 write units each: the item is
// about 2,530 bytes with its key and TTL attribute), written over the half
// hour before -3h, expiring an hour later and deleted 10 minutes after
// that: every deletion falls in [-2h20m, -1h50m).
const ttlGlobalYAML = `
history: 1d
account: {regions: [us-east-1, eu-west-1]}
tables:
  - name: orders
    billing: %s
    capacity: {read: 5, write: 1}
    auto_scaling:
      write: {min: 1, max: 1}
    traffic: {read: 1, write: 0}
    gsis:
      - {name: by-user, capacity: {read: 5, write: 5}, share: {read: 1, write: 1}}
    ttl:
      attribute: expires_at
      deletion_delay: 10m
      item_size: 2500
      items:
        - {class: seconds, count: %d, written: -3h, spread: 30m, expires_in: 1h}
    replicas:
      - region: eu-west-1
        read: 1
`

// TestGlobalTableReplicatesTTLDeletes: a TTL deletion is free in the
// source and a replicated write in the replica, of 1 unit per KB of the
// item (rounded up), on the replica's table and not on its GSI.
func TestGlobalTableReplicatesTTLDeletes(t *testing.T) {
	const n, units = 300, 3
	sc, err := LoadScenario(fmt.Appendf(nil, ttlGlobalYAML, "on_demand", n))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	// The item size the known answer rests on: 3 units per item.
	size, err := awssim.ItemSize(ttlItem("pop0-000000", "expires_at", ClassSeconds, t0, padding(2500)))
	if err != nil || size <= 2*1024 || size > 3*1024 {
		t.Fatalf("TTL item of %d bytes (%v), want between 2 and 3 KB", size, err)
	}
	from, to := t0.Add(-3*time.Hour), t0.Add(-time.Hour)
	if got := r.ttlDeleted(from, to); got != n {
		t.Fatalf("the source deleted %v items in [-3h, -1h), want %d", got, n)
	}
	if got := r.sumIn("us-east-1", "ConsumedWriteCapacityUnits", from, to); got != 0 {
		t.Errorf("the source consumed %v write units: TTL deletes are free where the item expires", got)
	}
	if got := r.sumIn("eu-west-1", "ConsumedWriteCapacityUnits", from, to); got != n*units {
		t.Errorf("the replica consumed %v write units, want %d replicated deletes of %d units", got, n, units)
	}
	// Minute by minute: each minute's units are the source's deletions
	// times 3.
	del := r.srv.Metrics().Datapoints("us-east-1", awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount", Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}}}, from, to)
	for _, dp := range del {
		if got := r.sumIn("eu-west-1", "ConsumedWriteCapacityUnits", dp.Time, dp.Time.Add(time.Minute)); got != dp.Sum*units {
			t.Errorf("minute %v: %v items deleted in us-east-1, %v units replicated", dp.Time, dp.Sum, got)
		}
	}
	gsi := func(region string) float64 {
		var s float64
		for _, dp := range r.eng.Datapoints(region, awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "ConsumedWriteCapacityUnits",
			Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}, {Name: "GlobalSecondaryIndexName", Value: "by-user"}}}, from, to) {
			s += dp.Sum
		}
		return s
	}
	if got := gsi("eu-west-1"); got != 0 {
		t.Errorf("the replica's GSI consumed %v write units: the TTL items are in no GSI", got)
	}
	if got := r.sumIn("eu-west-1", "WriteThrottleEvents", from, to); got != 0 {
		t.Errorf("the on-demand replica throttled %v writes", got)
	}
	// Nothing outside the deletions' minutes.
	if got := r.sumIn("eu-west-1", "ConsumedWriteCapacityUnits", t0.Add(-24*time.Hour), from); got != 0 {
		t.Errorf("the replica consumed %v write units before any deletion", got)
	}
}

// TestReplicatedTTLDeletesThrottled: a provisioned replica of 1 WCU
// throttles the replicated deletes beyond its capacity and burst.
func TestReplicatedTTLDeletesThrottled(t *testing.T) {
	const n, units = 1200, 3 // 3,600 units over 30 minutes: 2 units/s
	sc, err := LoadScenario(fmt.Appendf(nil, ttlGlobalYAML, "provisioned", n))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc)
	from, to := t0.Add(-3*time.Hour), t0.Add(-time.Hour)
	if got := r.ttlDeleted(from, to); got != n {
		t.Fatalf("the source deleted %v items, want %d", got, n)
	}
	if got := r.sumIn("us-east-1", "WriteThrottleEvents", from, to) + r.sumIn("us-east-1", "ConsumedWriteCapacityUnits", from, to); got != 0 {
		t.Errorf("the source consumed or throttled %v write units for its TTL deletes", got)
	}
	consumed := r.sumIn("eu-west-1", "ConsumedWriteCapacityUnits", from, to)
	// At most 1 unit/s over the 40 minutes the deletions and the backlog
	// of throttled ones last, plus the 300 s burst.
	if consumed >= n*units || consumed > 40*60+300 {
		t.Errorf("the replica of 1 WCU consumed %v of %d units", consumed, n*units)
	}
	if got := r.sumIn("eu-west-1", "WriteThrottleEvents", from, to); got == 0 {
		t.Error("the replica of 1 WCU throttled none of the replicated deletes")
	}
}

// ttlDeleted is the TTL deletions of "orders" in us-east-1 in [from, to),
// which the server counts itself.
func (r *rig) ttlDeleted(from, to time.Time) float64 {
	var s float64
	for _, dp := range r.srv.Metrics().Datapoints("us-east-1", awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount",
		Dimensions: []awssim.Dimension{{Name: "TableName", Value: "orders"}}}, from, to) {
		s += dp.Sum
	}
	return s
}

// TestGlobalTableLaggingReplicatesTTLDeletes: in the built-in scenario the
// replica consumes the source's accepted writes plus 3 units per TTL
// deletion of the source.
func TestGlobalTableLaggingReplicatesTTLDeletes(t *testing.T) {
	r := newRig(t, builtin(t, "global-table-lagging"))
	from, to := t0.Add(-4*time.Hour), t0.Add(-time.Hour)
	sum := func(region, name string) float64 {
		var s float64
		for _, dp := range r.eng.Datapoints(region, awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: name, Dimensions: []awssim.Dimension{{Name: "TableName", Value: "carts-global"}}}, from, to) {
			s += dp.Sum
		}
		return s
	}
	var deleted float64
	for _, dp := range r.srv.Metrics().Datapoints("us-east-1", awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount",
		Dimensions: []awssim.Dimension{{Name: "TableName", Value: "carts-global"}}}, from, to) {
		deleted += dp.Sum
	}
	if math.Abs(deleted-2*180) > 20 {
		t.Fatalf("%v TTL deletions in us-east-1 in 3 hours, want about 360", deleted)
	}
	east, west := sum("us-east-1", "ConsumedWriteCapacityUnits"), sum("eu-west-1", "ConsumedWriteCapacityUnits")
	// Each minute's datapoint is rounded down to half a unit.
	if extra := west - east; math.Abs(extra-3*deleted) > 0.5*180 {
		t.Errorf("eu-west-1 consumed %v write units, us-east-1 %v: %v more, want %v (3 units per deletion)", west, east, extra, 3*deleted)
	}
}
