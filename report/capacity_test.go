package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// diagnosedReports are two tables: "carts", provisioned, whose base table
// reads scale at 90% (target units and saturated minutes on a rush, at
// 10:39) and writes at 70% (no units, saturated minutes by reaction at
// 10:45: a capped history), its GSI at a fixed capacity (not diagnosed);
// and "ondemand".
func diagnosedReports() []collectors.TableReport {
	last := time.Date(2026, 11, 19, 10, 39, 0, 0, time.UTC)
	read := capacity.Diagnosis{Minutes: 7 * 1440, Compared: true, ScalingDecisions: 14, Demand: 0.8 * 3600 * 100, UnitHours: 100}
	read.Throttled[capacity.CauseTarget], read.Last[capacity.CauseTarget] = 10080, last
	read.Throttled[capacity.CauseReaction], read.Last[capacity.CauseReaction] = 0.25, last.Add(-time.Minute)
	read.SaturatedMinutes[capacity.CauseTarget] = 10
	write := capacity.Diagnosis{Minutes: 7 * 1440, ScalingDecisions: 7, Demand: 0.5 * 3600 * 10, UnitHours: 10}
	write.SaturatedMinutes[capacity.CauseReaction], write.Last[capacity.CauseReaction] = 35, last.Add(6*time.Minute)
	month := read
	month.Minutes, month.ScalingDecisions = 30*1440, math.NaN()
	diag := func(r capacity.Diagnosis) []collectors.IndexDiagnosis {
		return []collectors.IndexDiagnosis{
			{Index: "", TableDiagnosis: capacity.TableDiagnosis{Read: r, Write: write, ReadMethod: capacity.MethodAutoScaling, WriteMethod: capacity.MethodAutoScaling}},
			{Index: "by-day", TableDiagnosis: capacity.TableDiagnosis{Read: r, Write: r, ReadMethod: capacity.MethodFixed, WriteMethod: capacity.MethodFixed}},
		}
	}
	e := capacity.Evaluation{Recommendation: capacity.Recommendation{Action: capacity.Keep, Code: capacity.ReasonCheaper, Reason: "because"}}
	return []collectors.TableReport{
		{Account: "a", Region: "r", Table: "carts", Mode: capacity.Provisioned,
			Traffic: []collectors.TrafficFigures{{Index: ""}, {Index: "by-day"}},
			Costs: []collectors.WindowCost{
				{Window: "7d", Covered: 7 * 24 * time.Hour, Evaluation: e, Diagnosis: diag(read)},
				{Window: "30d", Covered: 30 * 24 * time.Hour, Evaluation: e, Diagnosis: diag(month)},
			}},
		{Account: "a", Region: "r", Table: "ondemand", Mode: capacity.OnDemand, Traffic: []collectors.TrafficFigures{{Index: ""}},
			Costs: []collectors.WindowCost{{Window: "7d", Covered: 7 * 24 * time.Hour, Evaluation: e}}},
	}
}

// TestCapacityReportDiagnosis: every format shows, per table or GSI,
// window and dimension its own policy scales, the units and saturated
// minutes of each cause and when; a dimension at a fixed capacity and an
// on-demand table show none.
func TestCapacityReportDiagnosis(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var js bytes.Buffer
	if err := CapacityJSON(&js, diagnosedReports(), now); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Table     string       `json:"table"`
			Diagnosis []diagnosisJ `json:"diagnosis"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	carts, od := doc.Tables[0].Diagnosis, doc.Tables[1].Diagnosis
	if od == nil || len(od) != 0 {
		t.Errorf("on-demand table: diagnosis %v, want an empty array", od)
	}
	if len(carts) != 4 {
		t.Fatalf("carts: %d rows, want 4 (base table, 2 windows, read and write; the fixed GSI none): %+v", len(carts), carts)
	}
	r7 := carts[0]
	if r7.Window != "7d" || r7.Dimension != "read" || !r7.TargetCompared || len(r7.Causes) != 2 ||
		r7.Causes[0] != (causeJ{Cause: "target", ThrottledUnits: 10080, SaturatedMinutes: 10, LastThrottled: time.Date(2026, 11, 19, 10, 39, 0, 0, time.UTC)}) ||
		r7.Causes[1].Cause != "reaction" || *r7.ScalingPerDay != 2 || *r7.Utilization != 0.8 {
		t.Errorf("7d read: %+v", r7)
	}
	if w7 := carts[1]; w7.Dimension != "write" || w7.TargetCompared || len(w7.Causes) != 1 || *w7.ScalingPerDay != 1 ||
		w7.Causes[0] != (causeJ{Cause: "reaction", SaturatedMinutes: 35, LastThrottled: time.Date(2026, 11, 19, 10, 45, 0, 0, time.UTC)}) {
		t.Errorf("7d write: %+v", w7)
	}
	if r30 := carts[2]; r30.Window != "30d" || r30.ScalingPerDay != nil || r30.Utilization == nil {
		t.Errorf("30d read: %+v, want no scaling figure beyond 7 days", r30)
	}

	var md, html bytes.Buffer
	if err := CapacityMarkdown(&md, diagnosedReports(), now); err != nil {
		t.Fatal(err)
	}
	if err := CapacityHTML(&html, diagnosedReports(), now); err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	CapacityText(&text, diagnosedReports())
	for name, out := range map[string]string{"markdown": md.String(), "html": html.String(), "text": text.String()} {
		for _, want := range []string{"Diagnosis", "10080 units, 10 saturated minutes, last 2026-11-19 10:39 UTC", "0.25 units, last 2026-11-19 10:38 UTC",
			"35 saturated minutes, last 2026-11-19 10:45 UTC", "(target ≤ 70%)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
		if n := strings.Count(out, "by-day"); n != 1 {
			t.Errorf("%s names the GSI at a fixed capacity %d times, want once (its traffic row, no diagnosis):\n%s", name, n, out)
		}
	}
	if !strings.Contains(md.String(), "| carts | (table) | 7d | read | - | 10080 units, 10 saturated minutes, last 2026-11-19 10:39 UTC | 0.25 units, last 2026-11-19 10:38 UTC | 2 | 0.8 |") ||
		!strings.Contains(md.String(), "| carts | (table) | 7d | write | - | (target ≤ 70%) | 35 saturated minutes, last 2026-11-19 10:45 UTC | 1 | 0.5 |") {
		t.Errorf("markdown diagnosis row:\n%s", md.String())
	}
	if strings.Count(html.String(), "<h3>Diagnosis</h3>") != 1 {
		t.Errorf("the HTML report has %d diagnosis parts, want one (carts)", strings.Count(html.String(), "<h3>Diagnosis</h3>"))
	}
}
