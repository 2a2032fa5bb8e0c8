package systemtest

import (
	"context"
	"math"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// tiersRun is the exporter with the default CloudWatch cadences (the
// capacity history and the TTL sampler left out: neither is a CloudWatch
// tier) against a simulated account on a manual clock.
type tiersRun struct {
	clk *clock.Manual
	srv *awssim.Server
	eng *sim.Engine
	app *exporter.App
}

func startTiersRun(t *testing.T, scenario string, start time.Time) *tiersRun {
	t.Helper()
	sc, err := sim.LoadScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("accounts: [{name: tiers, regions: [us-east-1]}]\ncollectors: {capacity: {enabled: false}, ttl: {enabled: false}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	run := harnesstest.RunScenario(t, sc, start, harness.RunOptions{Config: cfg})
	return &tiersRun{clk: run.Clock, srv: run.Account.Server, eng: run.Account.Engine, app: run.App}
}

// at moves the clock and the simulation to at and runs the due collectors.
func (r *tiersRun) at(t *testing.T, at time.Time) {
	t.Helper()
	r.clk.Set(at)
	if err := r.eng.AdvanceTo(at); err != nil {
		t.Fatal(err)
	}
	r.app.Scheduler.RunDue(context.Background())
}

// samples returns the samples of family whose labels include want.
func (r *tiersRun) samples(t *testing.T, family string, want map[string]string) []*dto.Metric {
	t.Helper()
	fams, err := r.app.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []*dto.Metric
	for _, f := range fams {
		if f.GetName() != family {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for k, v := range want {
				found := false
				for _, lp := range m.GetLabel() {
					if lp.GetName() == k {
						found = lp.GetValue() == v
					}
				}
				if !found {
					continue next
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// value is the one sample of family with labels want.
func (r *tiersRun) value(t *testing.T, family string, want map[string]string) float64 {
	t.Helper()
	ms := r.samples(t, family, want)
	if len(ms) != 1 {
		t.Fatalf("%s%v: %d samples, want 1", family, want, len(ms))
	}
	if c := ms[0].GetCounter(); c != nil {
		return c.GetValue()
	}
	return ms[0].GetGauge().GetValue()
}

// queries is the GetMetricData queries (metrics requested, as CloudWatch
// bills them) the simulated account answered since its log was reset.
func (r *tiersRun) queries() int {
	n := 0
	for _, q := range r.srv.Requests() {
		if q.Service == awssim.ServiceCloudWatch && q.Operation == "GetMetricData" {
			n += q.Queries
		}
	}
	return n
}

// tiersScenario is three typical active tables with 2 GSIs each, as in the
// bench: provisioned, provisioned with auto-scaling, on-demand; traffic well
// under capacity, so no event series is listed.
const tiersScenario = `
name: tiers
description: typical active tables with 2 GSIs
history: 1d
tables:
  - name: plain
    billing: provisioned
    capacity: {read: 200, write: 80}
    traffic: {read: 90, write: 35, daily: 0.3, noise: 0.05}
    gsis:
      - {name: by-owner, capacity: {read: 100, write: 80}, share: {read: 0.3, write: 1}}
      - {name: by-date, capacity: {read: 100, write: 80}, share: {read: 0.3, write: 1}}
  - name: scaled
    billing: provisioned
    capacity: {read: 200, write: 80}
    auto_scaling:
      read: {min: 10, max: 2000, target: 70}
      write: {min: 5, max: 1000, target: 70}
    traffic: {read: 60, write: 20, daily: 0.3, noise: 0.05}
    gsis:
      - {name: by-owner, capacity: {read: 100, write: 80}, share: {read: 0.3, write: 1}}
      - {name: by-date, capacity: {read: 100, write: 80}, share: {read: 0.3, write: 1}}
  - name: elastic
    billing: on_demand
    traffic: {read: 120, write: 40, daily: 0.3, noise: 0.05}
    gsis:
      - {name: by-owner, share: {read: 0.3, write: 1}}
      - {name: by-date, share: {read: 0.3, write: 1}}
`

// TestCloudWatchBillPerTableHourAndLosslessSlowTier: at the default
// configuration, an hour of collection requests at most 150 CloudWatch
// metrics per typical active table with 2 GSIs (counted by the simulated
// account, as CloudWatch bills them), and the consumed-capacity counters,
// fetched by the slow tier every 10 minutes, equal the simulator's truth
// minute for minute. Every cycle requested every listed series before the
// tiers: 14 per table a minute, 840 an hour.
func TestCloudWatchBillPerTableHourAndLosslessSlowTier(t *testing.T) {
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	r := startTiersRun(t, tiersScenario, start)
	delay := r.app.Config.Collectors.CloudWatch.Delay.D()
	endOf := func(at time.Time) time.Time { return at.Add(-delay).Truncate(time.Minute) }
	type key struct{ table, index string }
	var keys []key
	for _, tb := range []string{"plain", "scaled", "elastic"} {
		for _, idx := range []string{"", "by-owner", "by-date"} {
			keys = append(keys, key{tb, idx})
		}
	}
	consumed := func() map[key][2]float64 {
		out := map[key][2]float64{}
		for _, k := range keys {
			l := map[string]string{catalogue.LabelTable: k.table, catalogue.LabelIndex: k.index}
			out[k] = [2]float64{r.value(t, catalogue.ConsumedReadCapacityUnitsTotal, l), r.value(t, catalogue.ConsumedWriteCapacityUnitsTotal, l)}
		}
		return out
	}

	// The first cycle fetches every tier; the slow tier is due again 10
	// minutes later. The hour measured starts after that second fetch.
	at := start
	for ; !at.After(start.Add(10 * time.Minute)); at = at.Add(time.Minute) {
		r.at(t, at)
	}
	from := at.Add(-time.Minute)
	before := consumed()
	r.srv.ResetRequests()
	for ; !at.After(from.Add(time.Hour)); at = at.Add(time.Minute) {
		r.at(t, at)
	}
	to := at.Add(-time.Minute)
	perTableHour := float64(r.queries()) / 3
	t.Logf("CloudWatch metrics requested per table-hour: %.0f", perTableHour)
	if perTableHour > 150 {
		t.Errorf("%.0f CloudWatch metrics requested per table-hour, want at most 150", perTableHour)
	}
	if perTableHour == 0 {
		t.Fatal("no GetMetricData query in the hour")
	}

	after := consumed()
	for _, k := range keys {
		ms, err := r.eng.Truth("us-east-1", k.table, k.index, endOf(from), endOf(to))
		if err != nil {
			t.Fatal(err)
		}
		var want [2]float64
		for _, m := range ms {
			want[0] += m.ReadConsumed
			want[1] += m.WriteConsumed
		}
		if want[0] == 0 || want[1] == 0 {
			t.Fatalf("%v: the simulator served nothing (%v): the scenario is not active", k, want)
		}
		for d, name := range []string{"read", "write"} {
			got := after[k][d] - before[k][d]
			if math.Abs(got-want[d]) > 1e-6*want[d] {
				t.Errorf("%s/%s consumed %s over the hour: exporter +%.3f, simulator %.3f", k.table, k.index, name, got, want[d])
			}
		}
	}
	// The latency gauges are fetched by the slow tier too: present.
	if ms := r.samples(t, catalogue.SuccessfulRequestLatencyP99, map[string]string{catalogue.LabelTable: "plain"}); len(ms) == 0 {
		t.Error("no p99 latency for plain")
	}
}

// switchScenario: "switching" is provisioned and under-provisioned for a
// 5-minute spike that ends as it switches to on-demand; "elastic" is
// on-demand throughout.
const switchScenario = `
name: mode-switch
description: provisioned throttles just before a switch to on-demand
history: 1d
tables:
  - name: switching
    billing: provisioned
    capacity: {read: 100, write: 40}
    traffic:
      read: 40
      write: 15
      noise: 0.05
      events:
        - {type: spike, at: 20m, duration: 5m, factor: 10, ramp: 0s}
    billing_switches:
      - {at: 25m, mode: on_demand}
  - name: elastic
    billing: on_demand
    traffic: {read: 40, write: 15, noise: 0.05}
`

// TestThrottleCausesFollowTheBillingMode: no series (and no query) for a
// throttle cause the table's billing mode rules out, and a switch loses no
// event: the provisioned-throughput throttles of the minutes just before a
// switch to on-demand, which ListMetrics lists 15 minutes late, are all
// counted, the counter equal to the simulator's truth.
func TestThrottleCausesFollowTheBillingMode(t *testing.T) {
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	r := startTiersRun(t, switchScenario, start)
	r.srv.SetListMetricsDelay(15 * time.Minute)
	cause := func(table, c string) []*dto.Metric {
		return r.samples(t, catalogue.ThrottleEventsByCauseTotal, map[string]string{catalogue.LabelTable: table, catalogue.LabelCause: c})
	}
	for at := start; !at.After(start.Add(15 * time.Minute)); at = at.Add(time.Minute) {
		r.at(t, at)
	}
	for _, c := range []string{"max_on_demand_throughput", "account_limit"} {
		if ms := cause("switching", c); len(ms) != 0 {
			t.Errorf("provisioned table: %d series of cause %s, which only on-demand tables have", len(ms), c)
		}
		if ms := cause("elastic", c); len(ms) != 2 {
			t.Errorf("on-demand table: %d series of cause %s, want 2 (read, write)", len(ms), c)
		}
	}
	if ms := cause("switching", "provisioned_throughput"); len(ms) != 2 {
		t.Errorf("provisioned table: %d series of cause provisioned_throughput, want 2", len(ms))
	}
	end := start.Add(70 * time.Minute)
	for at := start.Add(16 * time.Minute); !at.After(end); at = at.Add(time.Minute) {
		r.at(t, at)
		if ms := cause("elastic", "provisioned_throughput"); len(ms) != 0 {
			t.Fatalf("%s: on-demand table has a provisioned_throughput series", at.Format("15:04"))
		}
	}
	// After the switch, the on-demand causes are planned for "switching".
	if ms := cause("switching", "max_on_demand_throughput"); len(ms) != 2 {
		t.Errorf("after the switch to on-demand: %d series of cause max_on_demand_throughput, want 2", len(ms))
	}
	// Every provisioned-throughput throttle of the spike is counted.
	delay := r.app.Config.Collectors.CloudWatch.Delay.D()
	ms, err := r.eng.Truth("us-east-1", "switching", "", start.Add(-time.Hour), end.Add(-delay).Truncate(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var want [2]float64
	for _, m := range ms {
		want[0] += m.ReadEvents[1] // Truth's cause order: key range, provisioned, max on-demand, account limit
		want[1] += m.WriteEvents[1]
	}
	if want[0] == 0 {
		t.Fatal("setup: the spike caused no provisioned-throughput read throttle")
	}
	for d, kind := range []string{"read", "write"} {
		got := r.value(t, catalogue.ThrottleEventsByCauseTotal, map[string]string{catalogue.LabelTable: "switching", catalogue.LabelIndex: "", catalogue.LabelKind: kind, catalogue.LabelCause: "provisioned_throughput"})
		if math.Abs(got-want[d]) > 1e-6*math.Max(1, want[d]) {
			t.Errorf("switching %s provisioned_throughput throttles = %.0f, simulator %.0f: events before the switch were lost", kind, got, want[d])
		}
	}
}
