package systemtest

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// TestProvisionedSavingHoldsOnSwitchingScenarios runs the exporter on the
// two built-in scenarios whose table switches billing mode back and forth
// (billing-switch-churn: switches at +3h and +6h; billing-switch-schedule:
// to on-demand every 4 hours, back 2 hours later) for 8 simulated hours.
// The switch saving is relative to the current mode and changes sign with
// the mode; the provisioned saving (on-demand minus provisioned, 7-day
// window) must keep one sign over every capacity run and move by at most 5%
// from one run to the next, switch or not: the window's consumption moves
// by 15 minutes of 7 days between runs.
func TestProvisionedSavingHoldsOnSwitchingScenarios(t *testing.T) {
	for _, c := range []struct{ scenario, table string }{
		{"billing-switch-churn", "reports-churn"},
		{"billing-switch-schedule", "reports-schedule"},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
			run := harnesstest.Run(t, c.scenario, start, harness.RunOptions{Collectors: harness.DemoCollectors})
			var pts []savingPoint
			for at := start; !at.After(start.Add(8 * time.Hour)); at = at.Add(15 * time.Minute) {
				harnesstest.Advance(t, run, at)
				p, ok := modeAndSavings(t, gatherText(t, run.App), c.table)
				if ok {
					pts = append(pts, p)
				}
			}
			if len(pts) < 20 {
				t.Fatalf("%d capacity runs with figures in 8 hours, want about 32", len(pts))
			}
			modes, switchSigns := map[string]bool{}, map[bool]bool{}
			for i, p := range pts {
				modes[p.mode] = true
				switchSigns[p.switched > 0] = true
				if i == 0 {
					continue
				}
				prev := pts[i-1]
				if (p.saving > 0) != (pts[0].saving > 0) {
					t.Errorf("run %d (%s): provisioned saving $%.2f/month, sign differs from the first run's $%.2f", i, p.mode, p.saving, pts[0].saving)
				}
				if d := math.Abs(p.saving - prev.saving); d > 0.05*math.Abs(prev.saving) {
					t.Errorf("run %d (%s after %s): provisioned saving $%.2f/month, $%.2f the run before", i, p.mode, prev.mode, p.saving, prev.saving)
				}
			}
			t.Logf("%d runs, modes %v: provisioned saving $%.2f to $%.2f/month; switch saving took signs %v",
				len(pts), modes, minOf(pts, func(p savingPoint) float64 { return p.saving }), maxOf(pts, func(p savingPoint) float64 { return p.saving }), switchSigns)
			if len(modes) < 2 || len(switchSigns) < 2 {
				t.Errorf("the table did not switch (modes %v) or the switch saving kept one sign (%v): the scenario no longer shows the problem", modes, switchSigns)
			}
		})
	}
}

// savingPoint is one capacity run's billing mode and 7-day savings.
type savingPoint struct {
	mode             string
	saving, switched float64
}

// modeAndSavings reads the table's billing mode and its 7-day savings.
func modeAndSavings(t *testing.T, scrape, table string) (p savingPoint, ok bool) {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(scrape))
	if err != nil {
		t.Fatal(err)
	}
	find := func(name string, want map[string]string) (float64, map[string]string, bool) {
		f := fams[name]
		if f == nil {
			return 0, nil, false
		}
	metrics:
		for _, m := range f.GetMetric() {
			ls := map[string]string{}
			for _, l := range m.GetLabel() {
				ls[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if ls[k] != v {
					continue metrics
				}
			}
			return m.GetGauge().GetValue(), ls, true
		}
		return 0, nil, false
	}
	_, info, ok1 := find(catalogue.TableInfo, map[string]string{"table": table})
	s, _, ok2 := find(catalogue.CapacityProvisionedSaving, map[string]string{"table": table, "window": "7d"})
	w, _, ok3 := find(catalogue.CapacityMonthlySwitchSaving, map[string]string{"table": table, "window": "7d"})
	if !ok1 || !ok2 || !ok3 {
		return p, false
	}
	p.mode, p.saving, p.switched = info["billing_mode"], s, w
	return p, true
}

func minOf[T any](xs []T, f func(T) float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, f(x))
	}
	return m
}

func maxOf[T any](xs []T, f func(T) float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, f(x))
	}
	return m
}
