package sim

import (
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Each test here pins one correction of issue 8 and fails on the behaviour
// before it.

// rigYAML runs a scenario given as YAML at t0.
func rigYAML(t *testing.T, yaml string) *rig {
	t.Helper()
	sc, err := LoadScenario([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return newRig(t, sc)
}

// A GSI short of write capacity throttles the base table's writes: they
// count in the table's WriteThrottleEvents and ThrottledRequests (not in a
// cause metric of the table), the GSI's WriteProvisionedThroughput
// ThrottleEvents holds the cause, and neither the table nor the GSI
// consumes the refused writes.
func TestGSIWriteBackPressure(t *testing.T) {
	r := rigYAML(t, `
name: back-pressure
history: 1d
tables:
  - name: orders-bp
    capacity: {read: 100, write: 100}
    traffic: {read: 10, write: 50}
    gsis:
      - name: by-customer
        capacity: {read: 100, write: 10}
        share: {read: 0.1, write: 1}
`)
	from, to := t0.Add(-6*time.Hour), t0
	table := map[string]string{"TableName": "orders-bp"}
	gsi := map[string]string{"TableName": "orders-bp", "GlobalSecondaryIndexName": "by-customer"}
	sum := func(name string, dims map[string]string) float64 {
		_, vals := r.series(t, name, dims, "Sum", from, to, 3600)
		var s float64
		for _, v := range vals {
			s += v
		}
		return s
	}
	gsiCause := sum("WriteProvisionedThroughputThrottleEvents", gsi)
	tableAll := sum("WriteThrottleEvents", table)
	if gsiCause == 0 {
		t.Fatal("no WriteProvisionedThroughputThrottleEvents on the GSI")
	}
	if tableAll == 0 {
		t.Fatal("no WriteThrottleEvents on the base table: the GSI's lack of write capacity must throttle its writes")
	}
	if n := sum("WriteProvisionedThroughputThrottleEvents", table); n != 0 {
		t.Errorf("base table WriteProvisionedThroughputThrottleEvents %v: the table's own capacity was enough", n)
	}
	put := sum("ThrottledRequests", map[string]string{"TableName": "orders-bp", "Operation": "PutItem"})
	upd := sum("ThrottledRequests", map[string]string{"TableName": "orders-bp", "Operation": "UpdateItem"})
	if put+upd != tableAll {
		t.Errorf("ThrottledRequests PutItem %v + UpdateItem %v, want the table's %v write throttle events", put, upd, tableAll)
	}
	// 6 hours at the GSI's 10 WCU: the table writes what the GSI takes.
	hours := to.Sub(from).Hours()
	tableW, gsiW := sum("ConsumedWriteCapacityUnits", table), sum("ConsumedWriteCapacityUnits", gsi)
	if tableW > 10*3600*hours*1.01 || gsiW > 10*3600*hours*1.01 {
		t.Errorf("consumed writes table %v, GSI %v over %vh: want about 10 WCU × 3,600 s × %v = %v each", tableW, gsiW, hours, hours, 10*3600*hours)
	}
	if tableW != gsiW {
		t.Errorf("table consumed %v write units, GSI %v: every accepted write touches the GSI (share 1)", tableW, gsiW)
	}
	ms, err := r.eng.Truth("", "orders-bp", "by-customer", from, to)
	if err != nil {
		t.Fatal(err)
	}
	if m := ms[len(ms)/2]; m.WriteDemand < 49 {
		t.Errorf("GSI write demand %v units/s, want the table's 50 accepted writes", m.WriteDemand)
	}
}

// SuccessfulRequestLatency is server-side: throttled requests and their
// client retries do not raise it.
func TestLatencyIgnoresThrottling(t *testing.T) {
	r := rigYAML(t, `
name: latency
history: 1d
tables:
  - name: throttled-latency
    capacity: {read: 100, write: 100}
    traffic: {read: 1000, write: 10}
`)
	from, to := t0.Add(-6*time.Hour), t0
	if n := r.sum(t, "throttled-latency", "ReadThrottleEvents", from, to, 3600); n == 0 {
		t.Fatal("the table does not throttle: the test needs 90% of its reads throttled")
	}
	_, avg := r.series(t, "SuccessfulRequestLatency", map[string]string{"TableName": "throttled-latency", "Operation": "GetItem"}, "Average", from, to, 3600)
	if len(avg) == 0 {
		t.Fatal("no SuccessfulRequestLatency")
	}
	for _, v := range avg {
		// GetItem is 2 ms at rest, ±10% noise; retries would add 90%.
		if v > 2*1.1 {
			t.Fatalf("GetItem average latency %v ms with 90%% of reads throttled, want the 2 ms at rest", v)
		}
	}
}

// The per-table quota throttles on-demand tables only; a provisioned
// table serves up to its capacity.
func TestAccountLimitOnDemandOnly(t *testing.T) {
	r := rigYAML(t, `
name: account-limit
history: 1d
account:
  table_quota: {read: 100, write: 100}
tables:
  - name: provisioned-over-quota
    capacity: {read: 200, write: 10}
    traffic: {read: 150, write: 5}
  - name: on-demand-over-quota
    billing: on_demand
    traffic: {read: 150, write: 5}
`)
	from, to := t0.Add(-6*time.Hour), t0
	if n := r.sum(t, "provisioned-over-quota", "ReadAccountLimitThrottleEvents", from, to, 3600); n != 0 {
		t.Errorf("ReadAccountLimitThrottleEvents %v on a provisioned table", n)
	}
	if got, want := r.sum(t, "provisioned-over-quota", "ConsumedReadCapacityUnits", from, to, 3600), 150*3600*6.0; got != want {
		t.Errorf("provisioned table consumed %v read units in 6h, want all %v", got, want)
	}
	if n := r.sum(t, "on-demand-over-quota", "ReadAccountLimitThrottleEvents", from, to, 3600); n == 0 {
		t.Error("no ReadAccountLimitThrottleEvents on the on-demand table above the quota")
	}
}

// WriteAccountLimitThrottleEvents is published with TableName only; the
// other cause metrics per GSI as well.
func TestWriteAccountLimitHasNoGSIDimension(t *testing.T) {
	r := newRig(t, builtin(t, "healthy"))
	var gsi string
	for _, tb := range r.eng.Scenario().Tables {
		if len(tb.GSIs) > 0 {
			gsi = tb.GSIs[0].Name
		}
	}
	if gsi == "" {
		t.Fatal("the healthy scenario has no GSI")
	}
	has := func(name string, withGSI bool) bool {
		for _, ref := range r.eng.series["us-east-1"] {
			if ref.metric.Name != name {
				continue
			}
			dimGSI := false
			for _, d := range ref.metric.Dimensions {
				dimGSI = dimGSI || d.Name == "GlobalSecondaryIndexName"
			}
			if dimGSI == withGSI {
				return true
			}
		}
		return false
	}
	if has("WriteAccountLimitThrottleEvents", true) {
		t.Error("WriteAccountLimitThrottleEvents is published with a GlobalSecondaryIndexName dimension")
	}
	for _, c := range []struct {
		name    string
		withGSI bool
	}{{"WriteAccountLimitThrottleEvents", false}, {"ReadAccountLimitThrottleEvents", true}, {"WriteProvisionedThroughputThrottleEvents", true}} {
		if !has(c.name, c.withGSI) {
			t.Errorf("%s (GSI dimension %v) is not published", c.name, c.withGSI)
		}
	}
}

// After a switch from provisioned, on-demand serves at once up to twice
// half the provisioned capacity: a table provisioned at 30,000 RCU and
// reading 25,000 keeps reading them on-demand (the new-table 12,000 would
// throttle half of them).
func TestSwitchToOnDemandKeepsPreviousPeak(t *testing.T) {
	r := rigYAML(t, `
name: switch-peak
history: 1d
tables:
  - name: big-switch
    capacity: {read: 30000, write: 100}
    traffic: {read: 25000, write: 50}
    billing_switches:
      - {at: -3h, mode: on_demand}
`)
	from, to := t0.Add(-3*time.Hour), t0
	for _, m := range []string{"ReadThrottleEvents", "ReadKeyRangeThroughputThrottleEvents"} {
		if n := r.sum(t, "big-switch", m, from, to, 60); n != 0 {
			t.Errorf("%s = %v after the switch, want none", m, n)
		}
	}
	if got, want := r.sum(t, "big-switch", "ConsumedReadCapacityUnits", from, to, 60), 25000*3600*3.0; got != want {
		t.Errorf("consumed %v read units in the 3 hours after the switch, want %v", got, want)
	}
}

// A flat 55 RCU on 100 RCU at a 70% target stays above target − 20 points
// (50%): the table never scales in (target × 0.8 = 56% would).
func TestNoScaleInAboveTargetMinus20(t *testing.T) {
	r := rigYAML(t, `
name: no-scale-in
history: 2d
tables:
  - name: steady-55
    capacity: {read: 100, write: 10}
    auto_scaling:
      read: {min: 1, max: 1000, target: 70}
    traffic: {read: 55, write: 1}
`)
	for _, ev := range r.eng.ScalingEvents("steady-55") {
		t.Errorf("scaling event %+v: 55%% utilization is not below 50%%", ev)
	}
	if c := r.describe(t, "steady-55").Table.ProvisionedThroughput.ReadCapacityUnits; *c != 100 {
		t.Errorf("read capacity %d, want 100", *c)
	}
}

// A refused decrease does not take a simultaneous increase of the other
// dimension with it: each dimension is its own scalable target.
func TestIncreaseSurvivesRefusedDecrease(t *testing.T) {
	r := rigYAML(t, `
name: mixed-change
history: 1d
tables:
  - name: mixed
    capacity: {read: 100, write: 100}
    auto_scaling:
      read: {min: 1, max: 1000}
      write: {min: 1, max: 1000}
    traffic: {read: 65, write: 65}
`)
	ts := r.eng.table("", "mixed")
	en := ts.ents[0]
	at := r.eng.Start().Add(time.Hour)
	m := at.Unix() / 60
	// Spend the day's free decreases in the last 10 minutes, then decide
	// a read increase and a write decrease due in the same minute.
	for i := range freeDecreasesPerDay {
		if err := r.srv.SetThroughput("us-east-1", "mixed", "", awssim.Capacity{Read: 100, Write: int64(99 - i)}, at.Add(time.Duration(i-10)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	en.dirs[1].cap = 96
	en.dirs[0].pending = []change{{decided: m - 6, effective: m, to: 150}}
	en.dirs[1].decrease = &change{decided: m - 1, effective: m, to: 90}
	ts.begin(m)
	var up, down *ScalingEvent
	for _, ev := range ts.scaling {
		if !ev.Effective.Equal(at) {
			continue
		}
		if ev.Read {
			up = &ev
		} else {
			down = &ev
		}
	}
	if down == nil || down.Refused == "" {
		t.Fatalf("write decrease %+v, want refused (fifth of the day within the hour)", down)
	}
	if up == nil || up.Refused != "" || en.dirs[0].cap != 150 {
		t.Fatalf("read increase %+v, capacity %v: want applied (150)", up, en.dirs[0].cap)
	}
	tb, _ := r.srv.Table("us-east-1", "mixed")
	if tb.Throughput.ReadCapacityUnits != 150 || tb.Throughput.WriteCapacityUnits != 96 {
		t.Fatalf("server capacity %d/%d, want 150/96", tb.Throughput.ReadCapacityUnits, tb.Throughput.WriteCapacityUnits)
	}
}
