package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

func tableWithSaving(name string, saving float64) collectors.TableReport {
	e := capacity.Evaluation{MonthlySaving: saving, Recommendation: capacity.Recommendation{Action: "keep", Code: "cheaper", Reason: "because"}}
	return collectors.TableReport{Account: "a", Region: "r", Table: name, Mode: "PROVISIONED",
		Costs: []collectors.WindowCost{{Window: "30d", Covered: 30 * 24 * time.Hour, Evaluation: e}}}
}

// TestLandingOrdersBySaving: the tables that waste most come first, tables
// without a what-if last; the page says when there are no figures yet.
func TestLandingOrdersBySaving(t *testing.T) {
	var b bytes.Buffer
	err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: time.Now(), Reports: []collectors.TableReport{
		tableWithSaving("small", 3), {Account: "a", Region: "r", Table: "young", Mode: "PROVISIONED"}, tableWithSaving("big", 120), tableWithSaving("negative", -8),
	}})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	order := []int{strings.Index(page, "<td>big</td>"), strings.Index(page, "<td>small</td>"), strings.Index(page, "<td>negative</td>"), strings.Index(page, "<td>young</td>")}
	for i := 1; i < len(order); i++ {
		if order[i-1] < 0 || order[i] < order[i-1] {
			t.Fatalf("rows not in saving order big, small, negative, young: %v\n%s", order, page)
		}
	}
	if !strings.Contains(page, `<td class="n neg">-$8.00</td>`) || !strings.Contains(page, "no cost what-if yet") {
		t.Errorf("negative saving or missing what-if not shown:\n%s", page)
	}
	b.Reset()
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No capacity figures yet") || !strings.Contains(b.String(), `<a href="/metrics">Metrics</a>`) {
		t.Errorf("empty landing page:\n%s", b.String())
	}
}

// TestLandingProjection: the landing page shows the cost 24 months ahead
// with the trend and the crossover month, and why there is none.
func TestLandingProjection(t *testing.T) {
	grow := tableWithSaving("growing", 1)
	grow.Projection = &collectors.ProjectionFigures{
		Trend:  capacity.Trend{Status: capacity.TrendGrowing, Days: 84, Slope: math.Log(1.08) / capacity.DaysPerMonth, Lower: 0.002, Upper: 0.003},
		Window: "30d", Today: collectors.ProjectedCost{OnDemand: 1.07, Provisioned: 2.85, Factor: 1},
		At:        []collectors.ProjectedCost{{Months: 12, Factor: 2.52, OnDemand: 2.7, Provisioned: 2.85}, {Months: 24, Factor: 6.34, OnDemand: 6.88, Provisioned: 3.47}},
		Crossover: 13, CrossoverTo: capacity.Provisioned,
	}
	young := tableWithSaving("young", 0)
	young.Projection = &collectors.ProjectionFigures{Trend: capacity.FitTrend(nil)}
	var b bytes.Buffer
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: time.Now(), Reports: []collectors.TableReport{grow, young}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"$6.88 / $3.47 (trend growing, &#43;152% a year); provisioned cheaper from month 13", "history_too_short: no projection"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("landing page lacks %q:\n%s", want, b.String())
		}
	}
}

// TestLandingPeaks: the landing page names the kind of the base table's
// peaks, read / write, with what serves a kind that asks for something.
func TestLandingPeaks(t *testing.T) {
	tb := tableWithSaving("orders", 1)
	read, write := capacity.Peaks{Kind: capacity.PeakSteady, Days: 7}, capacity.Peaks{Kind: capacity.PeakFlash, Days: 7, DaysWithPeak: 1, PeakDemand: 900, BaseDemand: 30, RampMinutes: 2, ReactionMinutes: 7}
	gsi := capacity.Peaks{Kind: capacity.PeakRamping, Days: 7, RampMinutes: 40, ReactionMinutes: 7}
	tb.Peaks = []collectors.PeakFigures{
		{Peaks: [2]capacity.Peaks{read, write}},
		{Index: "by-day", Peaks: [2]capacity.Peaks{gsi, gsi}},
	}
	var b bytes.Buffer
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: time.Now(), Reports: []collectors.TableReport{tb}}); err != nil {
		t.Fatal(err)
	}
	if want := "<td>steady / flash (pre_warm_before_events)</td>"; !strings.Contains(b.String(), want) {
		t.Errorf("landing page lacks %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "ramping") {
		t.Errorf("landing page shows the GSI's peaks, want the base table's only:\n%s", b.String())
	}
}
