package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// TestGlobalTableShownAsOneDecision: each replica of a global table shows
// "part of global table X" with the global table's recommendation (its
// own would be "keep"), in the landing page, the Markdown and JSON views
// and the text report's global section; a global table missing a replica
// shows no recommendation and names the region.
func TestGlobalTableShownAsOneDecision(t *testing.T) {
	replica := func(region string, g *collectors.GlobalDecision) collectors.TableReport {
		e := capacity.Evaluation{MonthlySaving: 10, Recommendation: capacity.Recommendation{Action: capacity.Keep, Code: capacity.ReasonSavingBelowMinimum, Reason: "below the minimum"}}
		return collectors.TableReport{Account: "a", Region: region, Table: "carts", Mode: capacity.OnDemand, Replicas: []string{"x"}, Global: g,
			Costs: []collectors.WindowCost{{Window: "30d", Covered: 30 * 24 * time.Hour, Evaluation: e}}}
	}
	ge := capacity.Evaluation{MonthlyOnDemand: 90, MonthlyProvisioned: 70, MonthlySaving: 20,
		Recommendation: capacity.Recommendation{Action: capacity.SwitchToProvisioned, Mode: capacity.Provisioned, Code: capacity.ReasonCheaper, Reason: "provisioned would save $20.00"}}
	g := &collectors.GlobalDecision{Account: "a", Table: "carts", Regions: []string{"eu-west-1", "us-east-1"},
		Costs: []collectors.WindowCost{{Window: "30d", Covered: 30 * 24 * time.Hour, Evaluation: ge}}}
	reports := []collectors.TableReport{replica("us-east-1", g), replica("eu-west-1", g)}

	var b bytes.Buffer
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: time.Now(), Reports: reports}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "part of global table carts (eu-west-1, us-east-1)"); n != 2 || strings.Count(page, "switch_to_provisioned") != 2 {
		t.Errorf("landing: %d replica rows say they are part of the global table, want 2, each with its recommendation:\n%s", n, page)
	}
	b.Reset()
	if err := CapacityMarkdown(&b, reports, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "$20.00 a month if switched, all replicas") {
		t.Errorf("markdown lacks the global saving:\n%s", b.String())
	}
	b.Reset()
	if err := CapacityJSON(&b, reports, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"global_table": {`) || !strings.Contains(b.String(), `"recommendation": "switch_to_provisioned"`) {
		t.Errorf("JSON lacks the global table:\n%s", b.String())
	}
	b.Reset()
	CapacityText(&b, reports)
	if !strings.Contains(b.String(), "Global tables") || strings.Count(b.String(), "switch_to_provisioned") != 1 {
		t.Errorf("text report: want one global row:\n%s", b.String())
	}

	// A replica this exporter has no figures of: undecided, the region
	// named.
	g2 := &collectors.GlobalDecision{Account: "a", Table: "carts", Regions: []string{"ap-south-1", "us-east-1"}, Missing: []string{"ap-south-1"}}
	b.Reset()
	if err := LandingHTML(&b, Landing{MetricsPath: "/metrics", CapacityEnabled: true, Now: time.Now(), Reports: []collectors.TableReport{replica("us-east-1", g2)}}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, GlobalUndecided) || !strings.Contains(page, "replica in ap-south-1") || strings.Contains(page, ">keep (") {
		t.Errorf("landing of a partial global table:\n%s", page)
	}
}
