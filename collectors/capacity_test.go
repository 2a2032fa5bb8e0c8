package collectors

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// TestCapacityUnknownBillingModeIsCounted: a billing mode the exporter does
// not know (awssim refuses to hold one, so the description is built here)
// must not skip the what-if silently. The run returns an error for it every
// time (counted by dynamodb_exporter_collector_errors_total, shown by
// capacity report), the traffic figures are still derived, and the warning
// is logged once.
func TestCapacityUnknownBillingModeIsCounted(t *testing.T) {
	end := time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)
	b := boundsAt(end, 90*day)
	var logs bytes.Buffer
	c := NewCapacity(Deps{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, CapacitySettings{})
	target := &awsclient.Target{Account: "acct", Region: "us-east-1"}
	st := &capacityState{hist: map[historyKey]*history{}, warned: map[string]bool{}}
	table := func(name string, mode types.BillingMode) *Table {
		return &Table{Name: name, Description: &types.TableDescription{
			TableName:          aws.String(name),
			CreationDateTime:   aws.Time(end.Add(-60 * day)),
			BillingModeSummary: &types.BillingModeSummary{BillingMode: mode},
		}}
	}
	for _, tb := range []*Table{table("future", "PAY_PER_SECOND"), table("known", types.BillingModePayPerRequest)} {
		for _, k := range historyKeys(tb) {
			h := newHistory(b)
			w := fetchWindow{time.Minute, b.b1, b.end}
			h.apply(w, pts([]time.Time{b.end.Add(-time.Hour)}, []float64{6000}))
			h.finish(b)
			st.hist[k] = h
		}
	}
	for run := range 2 {
		r, err := c.report(target, st, table("future", "PAY_PER_SECOND"), b)
		if err == nil || !strings.Contains(err.Error(), "table future") || !strings.Contains(err.Error(), `"PAY_PER_SECOND"`) {
			t.Fatalf("run %d: err = %v, want one naming the table and the mode", run, err)
		}
		if r == nil || r.Err == nil || len(r.Costs) != 0 || len(r.Traffic) != 1 {
			t.Fatalf("run %d: report %+v, want Err set, no costs, the traffic figures", run, r)
		}
		known, err := c.report(target, st, table("known", types.BillingModePayPerRequest), b)
		if err != nil || len(known.Costs) != len(CostWindows) {
			t.Fatalf("run %d: known mode: err %v, %d windows", run, err, len(known.Costs))
		}
	}
	if n := strings.Count(logs.String(), "unknown billing mode"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
}

// TestCapacityRegionWithoutPricesIsAGapNotAFailure: a table in a region
// without list prices (and no override) keeps its traffic figures and the
// simulation's windows (its diagnosis) and gets no cost figure; the run does not fail (a failing collector would raise
// DynamoDBExporterCollectorFailing for good over a configuration gap), the
// report says why, and the gap is logged once per region, naming the
// setting that closes it. With an override the what-if runs.
func TestCapacityRegionWithoutPricesIsAGapNotAFailure(t *testing.T) {
	end := time.Date(2026, 11, 20, 11, 57, 0, 0, time.UTC)
	b := boundsAt(end, 90*day)
	var logs bytes.Buffer
	table := &Table{Name: "orders", Description: &types.TableDescription{
		TableName:          aws.String("orders"),
		CreationDateTime:   aws.Time(end.Add(-60 * day)),
		BillingModeSummary: &types.BillingModeSummary{BillingMode: types.BillingModePayPerRequest},
	}}
	history := func() *capacityState {
		st := &capacityState{hist: map[historyKey]*history{}, whatIf: map[historyKey]*whatIf{}, warned: map[string]bool{}}
		for _, k := range historyKeys(table) {
			h := newHistory(b)
			h.apply(fetchWindow{time.Minute, b.b1, b.end}, pts([]time.Time{b.end.Add(-time.Hour)}, []float64{6000}))
			h.finish(b)
			st.hist[k] = h
		}
		return st
	}
	unpriced := &awsclient.Target{Account: "acct", Region: "eu-west-3"}
	c := NewCapacity(Deps{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, CapacitySettings{})
	st := history()
	for run := range 2 {
		r, err := c.report(unpriced, st, table, b)
		if err != nil {
			t.Fatalf("run %d: err = %v, want none (a gap, not a failure)", run, err)
		}
		if r == nil || r.Err == nil || !strings.Contains(r.Err.Error(), "eu-west-3") || len(r.Costs) != len(CostWindows) || len(r.Traffic) != 1 {
			t.Fatalf("run %d: report %+v, want Err naming the region, the simulation's windows, the traffic figures", run, r)
		}
		for _, w := range r.Costs {
			if !w.Unpriced || w.Evaluation.MonthlyOnDemand != 0 || w.Evaluation.Recommendation.Action != "" {
				t.Errorf("run %d: window %s %+v, want unpriced, without cost nor recommendation", run, w.Window, w)
			}
		}
		st.reports = []TableReport{*r}
		for _, m := range st.metrics() {
			for _, f := range []string{catalogue.CapacityCostDollars, catalogue.CapacityRecommendationInfo, catalogue.CapacityMonthlySwitchSaving, catalogue.CapacitySimulatedThrottled} {
				if strings.Contains(m.Desc().String(), `"`+f+`"`) {
					t.Errorf("run %d: %s published without prices", run, f)
				}
			}
		}
	}
	if n := strings.Count(logs.String(), "no list price for the region"); n != 1 || !strings.Contains(logs.String(), "collectors.capacity.prices") {
		t.Errorf("logged %d times (want once, naming collectors.capacity.prices):\n%s", n, logs.String())
	}
	priced := NewCapacity(Deps{Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))}, CapacitySettings{Prices: []capacity.PriceOverride{{Region: "eu-west-3",
		Prices: capacity.Prices{OnDemandReadPerMillion: 0.15, OnDemandWritePerMillion: 0.75, ProvisionedRCUHour: 0.00015, ProvisionedWCUHour: 0.00075}}}})
	r, err := priced.report(unpriced, history(), table, b)
	if err != nil || r.Err != nil || len(r.Costs) != len(CostWindows) {
		t.Fatalf("with an override: err %v, report err %v, %d windows; want the what-if", err, r.Err, len(r.Costs))
	}
}
