package collectors

import (
	"context"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// diagnosisFamilies are the families of the diagnosis.
var diagnosisFamilies = []string{catalogue.CapacityDiagnosisThrottled, catalogue.CapacityDiagnosisSaturated, catalogue.CapacityDiagnosisLastThrottled,
	catalogue.CapacitySimulatedScalingEvents, catalogue.CapacitySimulatedUtilization}

// sample is one exposed series: its family, labels and value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// samples parses metricLines.
func samples(t *testing.T, ms []prometheus.Metric) []sample {
	t.Helper()
	var out []sample
	for _, line := range metricLines(t, ms) {
		open, sp := strings.IndexByte(line, '{'), strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		s := sample{name: line[:open], labels: map[string]string{}, value: v}
		for _, kv := range strings.Split(line[open+1:sp-1], ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				s.labels[k] = v
			}
		}
		out = append(out, s)
	}
	return out
}

// find returns the samples of a family whose labels include want (k=v).
func find(ss []sample, name string, want ...string) []sample {
	var out []sample
next:
	for _, s := range ss {
		if s.name != name {
			continue
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if s.labels[k] != v {
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}

// diagnosisAccount is a simulated account with, created age before now, a
// provisioned table "prov" whose reads scale at a 90% target (max
// 1,000) and writes at 70% (max 20), with a GSI at a fixed capacity, and
// an on-demand table "ondemand" with the same traffic; and the collector on it.
// Over the last 3 days, every day at 10:00: reads rise from 100 to 200
// units/s for 40 minutes (a 70% target serves it, 90% throttles), writes
// from 10 to 60 for 20 minutes (above the maximum).
type diagnosisAccount struct {
	sim    *awssim.Server
	region string
	now    time.Time
	target *awsclient.Target
	c      *Capacity
	read   func(time.Time) float64 // consumed Sum of a minute
	write  func(time.Time) float64
}

func newDiagnosisAccount(t *testing.T, now time.Time, age time.Duration) *diagnosisAccount {
	t.Helper()
	return newDiagnosisAccountIn(t, now, age, "us-east-1")
}

func newDiagnosisAccountIn(t *testing.T, now time.Time, age time.Duration, region string) *diagnosisAccount {
	t.Helper()
	a := &diagnosisAccount{sim: awssim.New(), region: region, now: now}
	srv := httptest.NewServer(a.sim.Handler())
	t.Cleanup(srv.Close)
	key := []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}}
	attrs := []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}
	for _, tb := range []awssim.Table{
		{Name: "prov", BillingMode: awssim.BillingProvisioned, CreationDateTime: a.now.Add(-age),
			Throughput: awssim.Throughput{ReadCapacityUnits: 112, WriteCapacityUnits: 15}, KeySchema: key, AttributeDefinitions: attrs,
			GSIs: []awssim.GlobalSecondaryIndex{{IndexName: "by-x", KeySchema: key, Throughput: awssim.Throughput{ReadCapacityUnits: 10, WriteCapacityUnits: 10}}},
			TTL:  awssim.TimeToLive{Status: awssim.TTLDisabled}},
		{Name: "ondemand", BillingMode: awssim.BillingPayPerRequest, CreationDateTime: a.now.Add(-age), KeySchema: key, AttributeDefinitions: attrs,
			TTL: awssim.TimeToLive{Status: awssim.TTLDisabled}},
	} {
		if err := a.sim.PutTable(a.region, tb); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct {
		dim, metric string
		min, max    int32
		target      float64
	}{{awssim.DimTableRead, awssim.MetricReadUtilization, 10, 1000, 90}, {awssim.DimTableWrite, awssim.MetricWriteUtilization, 1, 20, 70}} {
		if err := a.sim.PutScalableTarget(a.region, awssim.ScalableTarget{ResourceID: "table/prov", ScalableDimension: p.dim, MinCapacity: p.min, MaxCapacity: p.max}); err != nil {
			t.Fatal(err)
		}
		a.policy(t, p.dim, p.metric, p.target)
	}
	rush := func(base, peak float64, minutes int) func(time.Time) float64 {
		return func(m time.Time) float64 {
			if m.Before(now.Add(-3*day)) || !m.Before(now.Add(time.Hour)) {
				return 0
			}
			if s := m.Sub(m.Truncate(day)); s >= 10*time.Hour && s < 10*time.Hour+time.Duration(minutes)*time.Minute {
				return peak * 60
			}
			return base * 60
		}
	}
	a.read, a.write = rush(100, 200, 40), rush(10, 60, 20)
	for _, table := range []string{"prov", "ondemand"} {
		for name, f := range map[string]func(time.Time) float64{"ConsumedReadCapacityUnits": a.read, "ConsumedWriteCapacityUnits": a.write} {
			m := awssim.Metric{Namespace: CloudWatchNamespace, Name: name, Dimensions: []awssim.Dimension{{Name: "TableName", Value: table}}}
			for at := a.now.Add(-3 * day); at.Before(a.now.Add(time.Hour)); at = at.Add(time.Minute) {
				v := f(at)
				a.sim.Metrics().Put(a.region, m, awssim.Datapoint{Time: at, Sum: v, SampleCount: 1, Minimum: v, Maximum: v})
			}
		}
	}
	cfg := testtools.AWSConfig(srv.URL)
	cfg.Region = a.region
	a.target = &awsclient.Target{Account: "acct", Region: a.region, DynamoDB: dynamodb.NewFromConfig(cfg),
		CloudWatch: cloudwatch.NewFromConfig(cfg), AutoScaling: applicationautoscaling.NewFromConfig(cfg)}
	inv := NewInventory()
	var tables []*Table
	for _, name := range []string{"prov", "ondemand"} {
		desc, err := a.target.DynamoDB.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: &name})
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, &Table{Name: name, Description: desc.Table})
	}
	inv.SetTables(a.target.Key(), tables)
	a.c = NewCapacity(Deps{Targets: []*awsclient.Target{a.target}, Inventory: inv, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		CapacitySettings{Delay: 3 * time.Minute, History: 90 * day, ScaleOutDelay: 5 * time.Minute})
	return a
}

func (a *diagnosisAccount) policy(t *testing.T, dim, metric string, target float64) {
	t.Helper()
	if err := a.sim.PutScalingPolicy(a.region, awssim.ScalingPolicy{PolicyName: dim, ResourceID: "table/prov", ScalableDimension: dim,
		TargetValue: target, PredefinedMetricType: metric}); err != nil {
		t.Fatal(err)
	}
}

func (a *diagnosisAccount) run(t *testing.T, at time.Time) []sample {
	t.Helper()
	if err := a.c.Run(context.Background(), at); err != nil {
		t.Fatal(err)
	}
	return samples(t, a.c.Metrics())
}

// TestDiagnosisOfAProvisionedAutoScaledTable: the diagnosis families
// appear for the dimensions a provisioned table's own policy scales, with
// the figures capacity.DiagnoseTable gives for the same minutes from the
// what-if's start, and for nothing else: not for the GSI at a fixed
// capacity, not for the on-demand table, not for a cause without units.
// When the policy changes, the next cycle judges the whole window with
// the new one.
// TestDiagnosisInARegionWithoutPrices: the throttles a policy lets through
// need no price, so a region without list prices (no override) keeps the
// diagnosis families, the same as in a priced region, and publishes no cost
// figure.
func TestDiagnosisInARegionWithoutPrices(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	priced := newDiagnosisAccount(t, now, 40*day).run(t, now)
	unpriced := newDiagnosisAccountIn(t, now, 40*day, "eu-west-3").run(t, now)
	for _, f := range diagnosisFamilies {
		want, got := find(priced, f, "table=prov"), find(unpriced, f, "table=prov")
		if len(got) != len(want) {
			t.Errorf("%s: %d series without prices, %d with", f, len(got), len(want))
		}
	}
	if n := len(find(priced, catalogue.CapacityDiagnosisThrottled, "table=prov")); n == 0 {
		t.Fatal("the reference table throttles nothing: the test proves nothing")
	}
	for _, f := range []string{catalogue.CapacityCostDollars, catalogue.CapacityRecommendationInfo} {
		if got := find(unpriced, f); len(got) != 0 {
			t.Errorf("%s: %d series without prices, want none", f, len(got))
		}
	}
}

func TestDiagnosisOfAProvisionedAutoScaledTable(t *testing.T) {
	a := newDiagnosisAccount(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), 40*day)
	ss := a.run(t, a.now)

	for _, f := range diagnosisFamilies {
		if got := find(ss, f, "table=ondemand"); len(got) != 0 {
			t.Errorf("on-demand table: %d series of %s, want none", len(got), f)
		}
		if got := find(ss, f, "table=prov", "index=by-x"); len(got) != 0 {
			t.Errorf("GSI at a fixed capacity: %d series of %s, want none", len(got), f)
		}
	}
	// The reference: one batch simulation of the minutes from the
	// what-if's start to the history's end. The account's data begin 3
	// days back on a 40-day-old table: the what-if starts at its first
	// minute with consumption (firstActive), not at its minimum in the
	// minutes before.
	end := a.c.end(a.now)
	from := whatIfStart(end)
	for a.read(from) == 0 && a.write(from) == 0 {
		from = from.Add(time.Minute)
	}
	if !from.Equal(a.now.Add(-3 * day)) {
		t.Fatalf("the reference starts at %v, want the first minute of data %v", from, a.now.Add(-3*day))
	}
	tr := capacity.Trace{Start: from}
	for m := from; m.Before(end); m = m.Add(time.Minute) {
		tr.Read, tr.Write = append(tr.Read, a.read(m)), append(tr.Write, a.write(m))
	}
	st := a.c.state[a.target.Key()]
	var tb *Table
	for _, x := range a.c.tables(a.target) {
		if x.Name == "prov" {
			tb = x
		}
	}
	s := settingsFor(tb, "", st.scaling, 5*time.Minute)
	if s.Read.AutoScaling == nil || s.Read.AutoScaling.Target != 0.9 || s.Write.AutoScaling == nil || s.Write.AutoScaling.Max != 20 {
		t.Fatalf("settings %+v %+v", s.Read.AutoScaling, s.Write.AutoScaling)
	}
	want, err := capacity.DiagnoseTable(tr, s, capacity.DefaultAutoScaling(), []time.Duration{7 * day, 30 * day})
	if err != nil {
		t.Fatal(err)
	}
	for j, window := range []string{"7d", "30d"} {
		for k, dim := range []string{"read", "write"} {
			w := []capacity.Diagnosis{want[j].Read, want[j].Write}[k]
			for _, cause := range capacity.Causes() {
				lv := []string{"table=prov", "index=", "window=" + window, "dimension=" + dim, "cause=" + cause.String()}
				units, minutes, last := find(ss, catalogue.CapacityDiagnosisThrottled, lv...), find(ss, catalogue.CapacityDiagnosisSaturated, lv...),
					find(ss, catalogue.CapacityDiagnosisLastThrottled, lv...)
				if (len(units) == 1) != (w.Throttled[cause] > 0) || len(units) > 1 {
					t.Errorf("%s %s %s: %v, reference %v units (a series only with units)", window, dim, cause, units, w.Throttled[cause])
				}
				if (len(minutes) == 1) != (w.SaturatedMinutes[cause] > 0) || len(minutes) > 1 {
					t.Errorf("%s %s %s: %v, reference %v saturated minutes (a series only with minutes)", window, dim, cause, minutes, w.SaturatedMinutes[cause])
				}
				if w.Throttled[cause] == 0 && w.SaturatedMinutes[cause] == 0 {
					if len(last) != 0 {
						t.Errorf("%s %s %s: %v, want no series (no units, no saturated minutes)", window, dim, cause, last)
					}
					continue
				}
				if len(last) != 1 {
					t.Fatalf("%s %s %s: %d last series, want one (reference %v units, %v saturated minutes)", window, dim, cause, len(last), w.Throttled[cause], w.SaturatedMinutes[cause])
				}
				if len(units) == 1 && math.Abs(units[0].value-w.Throttled[cause]) > 1e-6*w.Throttled[cause] {
					t.Errorf("%s %s %s: %v units; DiagnoseTable %v", window, dim, cause, units[0].value, w.Throttled[cause])
				}
				if len(minutes) == 1 && minutes[0].value != 60*w.SaturatedMinutes[cause] {
					t.Errorf("%s %s %s: %v seconds saturated; DiagnoseTable %v minutes", window, dim, cause, minutes[0].value, w.SaturatedMinutes[cause])
				}
				if last[0].value != float64(w.Last[cause].Unix()) {
					t.Errorf("%s %s %s: last %v; DiagnoseTable %v", window, dim, cause, time.Unix(int64(last[0].value), 0).UTC(), w.Last[cause])
				}
			}
			scaling, util := find(ss, catalogue.CapacitySimulatedScalingEvents, "table=prov", "index=", "dimension="+dim, "window="+window),
				find(ss, catalogue.CapacitySimulatedUtilization, "table=prov", "index=", "dimension="+dim, "window="+window)
			if window != "7d" {
				if len(scaling)+len(util) != 0 {
					t.Errorf("%s %s: scaling and utilization series outside the 7-day window", window, dim)
				}
				continue
			}
			if len(scaling) != 1 || len(util) != 1 {
				t.Fatalf("%s %s: %d scaling and %d utilization series, want one each", window, dim, len(scaling), len(util))
			}
			if math.Abs(scaling[0].value-w.ScalingDecisionsPerDay()) > 1e-9*w.ScalingDecisionsPerDay() || math.Abs(util[0].value-w.Utilization()) > 1e-6*w.Utilization() {
				t.Errorf("%s %s: %v decisions a day, utilization %v; DiagnoseTable %v, %v", window, dim, scaling[0].value, util[0].value, w.ScalingDecisionsPerDay(), w.Utilization())
			}
		}
	}
	// What the traffic was built to show. Its history is the demand, not
	// capped: the read rise to 200 throttles at 90% (the target's units),
	// while at 70% (143) the burst saved over the base serves it until the
	// scale-out: no read minute is saturated by reaction. (A run started
	// at the policy's minimum in the 37 days without data saturated the
	// first minutes of data by reaction: firstActive.)
	for _, c := range []struct {
		family, dim, cause string
		want               bool
	}{
		{catalogue.CapacityDiagnosisThrottled, "read", "target", true}, {catalogue.CapacityDiagnosisThrottled, "read", "at_max", false},
		{catalogue.CapacityDiagnosisThrottled, "write", "at_max", true}, {catalogue.CapacityDiagnosisThrottled, "write", "reaction", true},
		{catalogue.CapacityDiagnosisThrottled, "write", "target", false},
		{catalogue.CapacityDiagnosisSaturated, "read", "reaction", false}, {catalogue.CapacityDiagnosisSaturated, "read", "at_max", false},
		{catalogue.CapacityDiagnosisSaturated, "write", "at_max", true}, {catalogue.CapacityDiagnosisSaturated, "write", "reaction", true},
		{catalogue.CapacityDiagnosisSaturated, "write", "target", false},
	} {
		got := find(ss, c.family, "table=prov", "index=", "window=7d", "dimension="+c.dim, "cause="+c.cause)
		if (len(got) == 1) != c.want {
			t.Errorf("7d %s %s %s: %v, want a series: %v", c.family, c.dim, c.cause, got, c.want)
		}
	}
	last := find(ss, catalogue.CapacityDiagnosisLastThrottled, "table=prov", "window=7d", "dimension=read", "cause=target")
	if len(last) != 1 || time.Unix(int64(last[0].value), 0).UTC().Format("15:04") < "10:00" || time.Unix(int64(last[0].value), 0).UTC().Format("15:04") > "10:40" ||
		time.Unix(int64(last[0].value), 0).Before(a.now.Add(-day)) {
		t.Errorf("last read throttled by the target at %v, want during the last 10:00 rush", last)
	}

	// The read target lowered to 70%: the next cycle fetches the history
	// again and judges the whole window with the new policy.
	a.policy(t, awssim.DimTableRead, awssim.MetricReadUtilization, 70)
	ss = a.run(t, a.now.Add(time.Hour))
	if got := find(ss, catalogue.CapacityDiagnosisThrottled, "table=prov", "dimension=read", "cause=target"); len(got) != 0 {
		t.Errorf("after the target went to 70%%: %v, want no target units in either window", got)
	}
	if w := st.whatIf[historyKey{table: "prov", index: "", write: false}]; w == nil || w.stream.Compared() != [2]bool{} {
		t.Error("a 70% policy still runs the comparison")
	}
}

// TestDiagnosisOfAYoungTable: a table younger than the windows is
// diagnosed over the history it has, both windows alike, as long as
// dynamodb_capacity_cost_trace_seconds says; younger than an hour, not at
// all.
func TestDiagnosisOfAYoungTable(t *testing.T) {
	for _, c := range []struct {
		age     time.Duration
		windows int
	}{{6 * time.Hour, 2}, {30 * time.Minute, 0}} {
		// The history ends at 10:47, after the last write rush.
		a := newDiagnosisAccount(t, time.Date(2026, 11, 20, 10, 50, 0, 0, time.UTC), c.age)
		ss := a.run(t, a.now)
		trace := find(ss, catalogue.CapacityTraceSeconds, "table=prov")
		if len(trace) != c.windows {
			t.Fatalf("%v old: %d windows, want %d", c.age, len(trace), c.windows)
		}
		units := find(ss, catalogue.CapacityDiagnosisThrottled, "table=prov", "index=", "dimension=write", "cause=at_max")
		if len(units) != c.windows {
			t.Fatalf("%v old: %d at_max series, want %d: %v", c.age, len(units), c.windows, units)
		}
		if c.windows == 0 {
			for _, f := range diagnosisFamilies {
				if got := find(ss, f); len(got) != 0 {
					t.Errorf("%v old: %v", c.age, got)
				}
			}
			continue
		}
		if units[0].value != units[1].value || trace[0].value != trace[1].value || trace[0].value > c.age.Seconds() {
			t.Errorf("%v old: at_max units %v and %v, trace %v and %v seconds; want both windows alike, at most the table's age", c.age, units[0].value, units[1].value, trace[0].value, trace[1].value)
		}
	}
}

// TestDiagnosisOfTheDemo runs the capacity collector once on the built-in
// demo account, whose simulated tables throttle as their policies say: the
// consumed history it reads is capped by that throttling, as CloudWatch's
// is. The simulation of the same policies over it throttles (almost)
// nothing; the saturated minutes find the failures the demo stages:
// carts-target90 (a 90% target, a daily 2.5x rush) saturates by its
// target, tickets-spike (10x and 50x spikes above its maximum) at the
// maximum; the healthy control table not at all.
func TestDiagnosisOfTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates the demo account's 90 days")
	}
	sc, err := sim.Builtin("demo")
	if err != nil {
		t.Fatal(err)
	}
	// The start of the alert pack's replays.
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	a := newSimulatedAccount(t, sc, start)
	c := a.collector()
	if err := c.Run(context.Background(), start); err != nil {
		t.Fatal(err)
	}
	ss := samples(t, c.Metrics())
	for _, f := range []string{catalogue.CapacityDiagnosisThrottled, catalogue.CapacityDiagnosisSaturated} {
		for _, s := range find(ss, f) {
			t.Logf("%s %s %s %s %s %s: %v", strings.TrimPrefix(f, "dynamodb_capacity_diagnosis_"), s.labels["table"], s.labels["index"], s.labels["window"],
				s.labels["dimension"], s.labels["cause"], s.value)
		}
	}
	for _, c := range []struct {
		table, window, cause string
	}{
		{"carts-target90", "30d", "target"}, {"carts-target90", "7d", "target"},
		{"tickets-spike", "30d", "at_max"}, {"tickets-spike", "7d", "at_max"},
	} {
		got := find(ss, catalogue.CapacityDiagnosisSaturated, "table="+c.table, "index=", "window="+c.window, "dimension=read", "cause="+c.cause)
		if len(got) != 1 || !(got[0].value > 0) {
			t.Errorf("%s %s read: %v, want %s saturated minutes", c.table, c.window, got, c.cause)
		}
		last := find(ss, catalogue.CapacityDiagnosisLastThrottled, "table="+c.table, "index=", "window="+c.window, "dimension=read", "cause="+c.cause)
		if len(last) != 1 || time.Unix(int64(last[0].value), 0).Before(start.Add(-7*day)) || !time.Unix(int64(last[0].value), 0).Before(start) {
			t.Errorf("%s %s read: last %v, want within the last 7 days", c.table, c.window, last)
		}
	}
	for _, f := range diagnosisFamilies[:3] {
		if got := find(ss, f, "table=catalog-healthy"); len(got) != 0 {
			t.Errorf("the healthy table: %v", got)
		}
	}
}
