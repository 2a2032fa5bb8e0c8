package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// TestCapacityReportProjectionGrowing runs capacity report on the
// growing-on-demand scenario (traffic +8% a month, compound, for 90 days):
// the trend is growing, about 1.08^12 − 1 = 151.8% a year; on-demand is the
// cheaper mode today and provisioned at 24 months, so the report names a
// crossover month; every format shows it and the JSON keys are documented.
func TestCapacityReportProjectionGrowing(t *testing.T) {
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	run := harnesstest.Run(t, "growing-on-demand", start, harness.RunOptions{Collectors: harness.DemoCollectors})
	out := map[string]string{}
	for _, format := range []string{"json", "markdown", "html", "table"} {
		var b bytes.Buffer
		if err := capacityReport(context.Background(), run.App, "signups-growing", format, slog.New(slog.DiscardHandler), &b); err != nil {
			t.Fatal(err)
		}
		out[format] = b.String()
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	tb := doc["tables"].([]any)[0].(map[string]any)
	p, _ := tb["projection"].(map[string]any)
	if p == nil {
		t.Fatalf("no projection in %v", tb)
	}
	growth, _ := p["yearly_growth"].(float64)
	if p["trend"] != "growing" || math.Abs(growth-1.518) > 0.1 || p["applied_yearly_growth"] != p["yearly_growth"] {
		t.Errorf("trend %v, growth %v (applied %v), want growing near 1.518", p["trend"], p["yearly_growth"], p["applied_yearly_growth"])
	}
	months := p["months"].([]any)
	if len(months) != 3 {
		t.Fatalf("months %v, want today, 12 and 24", months)
	}
	today, at24 := months[0].(map[string]any), months[2].(map[string]any)
	if today["cheaper_mode"] != "PAY_PER_REQUEST" || at24["cheaper_mode"] != "PROVISIONED" {
		t.Errorf("cheaper today %v, at 24 months %v: want on-demand then provisioned", today["cheaper_mode"], at24["cheaper_mode"])
	}
	m, _ := p["crossover_month"].(float64)
	if !(m >= 1 && m <= 24) || p["crossover_to"] != "PROVISIONED" {
		t.Errorf("crossover %v to %v, want a month within 24 to PROVISIONED", p["crossover_month"], p["crossover_to"])
	}
	t.Logf("markdown:\n%s", out["markdown"])
	for format, want := range map[string]string{"markdown": "## A year or two ahead", "html": "Projected monthly cost (USD)", "table": "A year or two ahead"} {
		if !strings.Contains(out[format], want) || !strings.Contains(out[format], "becomes cheaper") {
			t.Errorf("%s report lacks %q or the crossover", format, want)
		}
	}
	checkDocumented(t, doc, filepath.Join("..", "docs", "capacity-report.md"))
}
