package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

func TestCapacityReportTableClass(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	std := capacity.ClassCost{Class: capacity.Standard, Throughput: 100, Storage: 150}
	ia := capacity.ClassCost{Class: capacity.StandardIA, Throughput: 125, Storage: 60}
	advice, err := capacity.CompareClasses(capacity.ClassInput{Current: capacity.Standard, Standard: std, StandardIA: ia, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	reports := []collectors.TableReport{
		{Account: "a", Region: "us-east-1", Table: "archive", Mode: capacity.OnDemand, Class: &collectors.ClassFigures{
			Class: capacity.Standard, Storage: []collectors.IndexStorage{{Bytes: 600 << 30, Monthly: 150}},
			Window: "30d", Standard: std, StandardIA: ia, Advice: advice}},
		{Account: "a", Region: "eu-west-3", Table: "old", Mode: capacity.OnDemand, Class: &collectors.ClassFigures{Missing: collectors.ClassNotReported}},
	}
	var md, html, js bytes.Buffer
	if err := CapacityMarkdown(&md, reports, now); err != nil {
		t.Fatal(err)
	}
	if err := CapacityHTML(&html, reports, now); err != nil {
		t.Fatal(err)
	}
	if err := CapacityJSON(&js, reports, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| archive | STANDARD | $150.00 | $250.00 | $185.00 | 60.0% (29.4%) | $65.00 | switch_to_standard_ia (cheaper) |",
		"| old |  | - | - | - | - | - | none (class_not_reported) |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(html.String(), "switch_to_standard_ia (cheaper), saving $65.00 a month if switched.") {
		t.Errorf("HTML lacks the class sentence")
	}
	var doc struct {
		Tables []struct {
			Class struct {
				Recommendation string   `json:"recommendation"`
				Saving         *float64 `json:"monthly_saving_usd"`
			} `json:"table_class"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Tables[0].Class; c.Recommendation != "switch_to_standard_ia" || c.Saving == nil || *c.Saving != 65 {
		t.Errorf("JSON table_class %+v, want switch_to_standard_ia saving 65", c)
	}
	if c := doc.Tables[1].Class; c.Recommendation != "none" || c.Saving != nil {
		t.Errorf("JSON table_class of a table without a class %+v, want none without a saving", c)
	}
}

func TestLandingTableClass(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	std := capacity.ClassCost{Class: capacity.Standard, Throughput: 100, Storage: 150}
	ia := capacity.ClassCost{Class: capacity.StandardIA, Throughput: 125, Storage: 60}
	advice, _ := capacity.CompareClasses(capacity.ClassInput{Current: capacity.Standard, Standard: std, StandardIA: ia, Now: now})
	var b bytes.Buffer
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: now, Reports: []collectors.TableReport{
		{Account: "a", Region: "us-east-1", Table: "archive", Mode: capacity.OnDemand, Class: &collectors.ClassFigures{
			Class: capacity.Standard, Storage: []collectors.IndexStorage{{Bytes: 600 << 30, Monthly: 150}},
			Window: "30d", Standard: std, StandardIA: ia, Advice: advice}},
	}}); err != nil {
		t.Fatal(err)
	}
	if want := `<td class="n">$150.00</td><td>STANDARD: switch_to_standard_ia (cheaper; $65.00 a month if switched)</td>`; !strings.Contains(b.String(), want) {
		t.Errorf("landing page lacks %s:\n%s", want, b.String())
	}
}
