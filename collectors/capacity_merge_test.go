package collectors

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// mergeScenario is an account whose weekly baselines read the hours held
// merged: a 6x surge six weeks ago on an auto-scaled table (found in weeks
// older than the what-if's 31 days), and an on-demand table; both with a
// GSI, 90 days of history.
const mergeScenario = `name: merge
description: surge six weeks ago
history: 90d
account:
  regions: [us-east-1]
tables:
  - name: surge
    billing: provisioned
    capacity: {read: 150, write: 60}
    auto_scaling:
      read: {min: 50, max: 4000, target: 70}
      write: {min: 20, max: 2000, target: 70}
    traffic:
      read: 100
      write: 40
      daily: 0.3
      weekly: 0.2
      noise: 0.05
      events:
        - {type: surge, at: -6w, factor: 6, ramp: 6h, duration: 3d, decay: 5d, retain: 0.8}
    gsis:
      - {name: by-owner, capacity: {read: 100, write: 80}, share: {read: 0.3, write: 1}}
  - name: plain
    billing: on_demand
    traffic: {read: 70, write: 25, daily: 0.3, weekly: 0.2, noise: 0.05}
    gsis:
      - {name: by-date, share: {read: 0.3, write: 1}}
`

// TestMergedHoursKeepFigures: a collector that holds the hours only the
// baselines read as reads plus writes in the read series (mergeHours)
// derives the same figures, bit for bit, and the same charts as one that
// keeps every hour apart, run after run: while the boundary moves with the
// hours (and by a day at UTC midnight, with the what-if's start), after a
// table is re-created, after an outage longer than CloudWatch keeps
// minutes (every history fetched again), after a read series alone is
// fetched again, after a table's auto-scaling policy changes (its history
// fetched again). And the write series hold fewer hours.
func TestMergedHoursKeepFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 90 days of history for 8 series, twice")
	}
	start := time.Date(2026, 11, 20, 18, 30, 0, 0, time.UTC)
	a := newScenarioAccount(t, mergeScenario, start)
	merged, split := a.collector(), a.collector()
	split.keepSplit = true
	ctx := context.Background()
	var surges, writes int
	run := func(what string) {
		t.Helper()
		now := a.clk.Now()
		for _, c := range []*Capacity{merged, split} {
			if err := c.Run(ctx, now); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		got, want := metricLines(t, merged.Metrics()), metricLines(t, split.Metrics())
		if len(want) == 0 {
			t.Fatalf("%s: no figures", what)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d figures merged, %d apart; first difference: %s", what, len(got), len(want), firstLineDiff(got, want))
		}
		for _, l := range want {
			if strings.HasPrefix(l, "dynamodb_capacity_surge_retention_ratio") || strings.Contains(l, "window=surge") {
				surges++
			}
		}
		gr, wr := merged.Reports(), split.Reports()
		if len(gr) != len(wr) {
			t.Fatalf("%s: %d reports merged, %d apart", what, len(gr), len(wr))
		}
		for i := range wr {
			if len(wr[i].Hourly.ConsumedRead) == 0 {
				t.Errorf("%s: %s has no chart", what, wr[i].Table)
			}
			if !reflect.DeepEqual(gr[i].Hourly, wr[i].Hourly) {
				t.Errorf("%s: the chart of %s differs", what, wr[i].Table)
			}
		}
		st, ref := merged.state[a.target.Key()], split.state[a.target.Key()]
		for k, h := range st.hist {
			r := ref.hist[k]
			if r == nil {
				t.Fatalf("%s: %v held merged only", what, k)
			}
			if !k.write {
				continue
			}
			// A series younger than splitFrom has no hour to merge.
			if read := st.hist[historyKey{table: k.table, index: k.index, write: false}]; read.merged.After(r.h0) && h.hours.Len() >= r.hours.Len() {
				t.Errorf("%s: write series %v holds %d hours merged, %d apart", what, k, h.hours.Len(), r.hours.Len())
			} else if !read.merged.After(r.h0) && h.hours.Len() != r.hours.Len() {
				t.Errorf("%s: write series %v holds %d hours merged, %d apart, none merged", what, k, h.hours.Len(), r.hours.Len())
			}
			writes++
		}
	}
	series := func(write bool) *history {
		return merged.state[a.target.Key()].hist[historyKey{table: "surge", index: "", write: write}]
	}
	boundary := func() time.Time { return series(false).merged }
	// fetchedAgain runs the collectors and checks that surge's series were
	// fetched again (read, write or both), and no other.
	fetchedAgain := func(what string, read, write bool) {
		t.Helper()
		r, w := series(false), series(true)
		run(what)
		if (series(false) != r) != read || (series(true) != w) != write {
			t.Errorf("%s: read fetched again %v, write %v; want %v, %v", what, series(false) != r, series(true) != w, read, write)
		}
	}

	run("first run")
	first := boundary()
	if want := merged.splitFrom(boundsAt(merged.end(start), merged.settings.History)); !first.Equal(want) {
		t.Errorf("hours merged up to %v, want %v (splitFrom)", first, want)
	}
	for range 8 { // past UTC midnight: the what-if's start moves a day
		a.clk.Advance(time.Hour)
		run("hourly run at " + a.clk.Now().Format(time.RFC3339))
	}
	if moved := boundary(); !moved.After(first) {
		t.Errorf("the merged hours end at %v after 8 hours past midnight, at %v before", moved, first)
	}

	// plain is deleted and re-created (its history starts again).
	if !a.srv.DeleteTable("us-east-1", "plain") {
		t.Fatal("no table plain")
	}
	if err := a.srv.PutTable("us-east-1", awssim.Table{
		Name: "plain", BillingMode: awssim.BillingPayPerRequest, CreationDateTime: a.clk.Now().Add(-20 * day),
		GSIs: []awssim.GlobalSecondaryIndex{{IndexName: "by-date"}},
	}); err != nil {
		t.Fatal(err)
	}
	a.clk.Advance(time.Hour)
	a.refreshTables(t)
	run("after plain was re-created")

	// An outage longer than CloudWatch keeps minutes: every series is
	// fetched again.
	a.clk.Advance(16 * day)
	a.refreshTables(t)
	fetchedAgain("after a 16-day outage", true, true)
	a.clk.Advance(time.Hour)
	run("an hour after the outage")

	// surge's read series alone is too old to refresh (as if its refreshes
	// had failed for 16 days): it is fetched again, and so is its write
	// series, whose older hours it held.
	stale := func(write bool) {
		for _, c := range []*Capacity{merged, split} {
			h := c.state[a.target.Key()].hist[historyKey{table: "surge", index: "", write: write}]
			h.tail0, h.tail = h.tail0.Add(-16*day), h.tail[:0]
		}
		a.clk.Advance(time.Hour)
	}
	stale(false)
	fetchedAgain("after surge's read series was too old", true, true)
	a.clk.Advance(time.Hour)
	run("an hour after")
	// Its write series alone is too old: it alone is fetched again, and
	// holds again the hours merged in the read series until the merge.
	stale(true)
	fetchedAgain("after surge's write series was too old", false, true)
	a.clk.Advance(time.Hour)
	run("an hour after")

	// surge's read policy changes: its history is fetched again.
	if err := a.srv.PutScalingPolicy("us-east-1", awssim.ScalingPolicy{PolicyName: awssim.MetricReadUtilization + ":table/surge", ResourceID: "table/surge",
		ScalableDimension: awssim.DimTableRead, TargetValue: 50, PredefinedMetricType: awssim.MetricReadUtilization}); err != nil {
		t.Fatal(err)
	}
	a.clk.Advance(time.Hour)
	fetchedAgain("after surge's policy changed", true, true)
	a.clk.Advance(time.Hour)
	run("an hour after the policy change")

	if writes == 0 {
		t.Error("no write series checked")
	}
	if surges == 0 {
		t.Error("no surge figure: the baselines read no merged hour that matters, the test proves little")
	}
}

// metricLines renders metrics as sorted lines: name, labels and value.
func metricLines(t *testing.T, ms []prometheus.Metric) []string {
	t.Helper()
	var out []string
	for _, m := range ms {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		var lv []string
		for _, l := range pb.GetLabel() {
			lv = append(lv, l.GetName()+"="+l.GetValue())
		}
		name := m.Desc().String()
		name = name[strings.Index(name, `fqName: "`)+9:]
		name = name[:strings.Index(name, `"`)]
		out = append(out, fmt.Sprintf("%s{%s} %v", name, strings.Join(lv, ","), pb.GetGauge().GetValue()+pb.GetCounter().GetValue()))
	}
	sort.Strings(out)
	return out
}

func firstLineDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%q vs %q", a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}
