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

// TestCapacityReportWarmThroughput: the sudden peak and its headroom in
// every view; a table whose answer has no WarmThroughput says so (null in
// JSON, "not reported" elsewhere) and still has its sudden peak.
func TestCapacityReportWarmThroughput(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	nan := math.NaN()
	reports := []collectors.TableReport{
		{Account: "a", Region: "us-east-1", Table: "shop", Mode: capacity.OnDemand, Warm: []collectors.WarmFigures{
			{Warm: [2]float64{30000, 10000}, WarmStatus: "ACTIVE", Peak30d: [2]float64{9000, 1000}, SuddenPeak: [2]float64{30000, 10000}}}},
		{Account: "a", Region: "us-east-1", Table: "legacy", Mode: capacity.OnDemand, Warm: []collectors.WarmFigures{
			{Warm: [2]float64{nan, nan}, Peak30d: [2]float64{3000, nan}, SuddenPeak: [2]float64{12000, 4000}}}},
	}
	var md, html, js, txt bytes.Buffer
	for _, f := range []func() error{
		func() error { return CapacityMarkdown(&md, reports, now) },
		func() error { return CapacityHTML(&html, reports, now) },
		func() error { return CapacityJSON(&js, reports, now) },
		func() error { CapacityText(&txt, reports); return nil },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{
		"| shop | (table) | 30000 / 10000 ACTIVE | 9000 | 1000 | 30000 (×3.33) | 10000 (×10) |",
		"| legacy | (table) | - (not reported) | 3000 | - | 12000 (×4) | 4000 |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(html.String(), "takes a sudden peak of 30000 (×3.33) read, 10000 (×10) write units/s") {
		t.Errorf("HTML lacks the sudden peak:\n%s", html.String())
	}
	if !strings.Contains(txt.String(), "30000 (×3.33)") {
		t.Errorf("text lacks the sudden peak:\n%s", txt.String())
	}
	var doc struct {
		Tables []struct {
			Warm []map[string]any `json:"warm_throughput"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	shop, legacy := doc.Tables[0].Warm[0], doc.Tables[1].Warm[0]
	if shop["sudden_peak_read_units_per_second"] != 30000.0 || shop["headroom_read"] != 3.333 || shop["warm_status"] != "ACTIVE" {
		t.Errorf("shop: %v", shop)
	}
	if legacy["warm_read_units_per_second"] != nil || legacy["headroom_write"] != nil || legacy["sudden_peak_write_units_per_second"] != 4000.0 {
		t.Errorf("legacy: %v", legacy)
	}
}

func TestLandingSuddenPeak(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: now, Reports: []collectors.TableReport{
		{Account: "a", Region: "us-east-1", Table: "shop", Mode: capacity.OnDemand, Warm: []collectors.WarmFigures{
			{Warm: [2]float64{30000, 10000}, WarmStatus: "ACTIVE", Peak30d: [2]float64{9000, 1000}, SuddenPeak: [2]float64{30000, 10000}}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if want := `<td class="n">30000 (×3.33) / 10000 (×10)</td>`; !strings.Contains(b.String(), want) {
		t.Errorf("landing page lacks %s:\n%s", want, b.String())
	}
}
