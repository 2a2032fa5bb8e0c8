package report

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// TestCapacityReportAddsTheTeamsTime: with engineering hours set, every
// format shows the bill plus the team's time per mode, and says when the
// team's time reverses the mode the bill alone favours; without them, no
// format mentions it.
func TestCapacityReportAddsTheTeamsTime(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	ev := capacity.Evaluation{MonthlyOnDemand: 300, MonthlyProvisioned: 100, MonthlySaving: 200,
		Recommendation: capacity.Recommendation{Action: capacity.SwitchToProvisioned, Mode: capacity.Provisioned, Code: capacity.ReasonCheaper, Reason: "because"}}
	reports := []collectors.TableReport{{Account: "a", Region: "r", Table: "feeds", Mode: capacity.OnDemand,
		Traffic:     []collectors.TrafficFigures{{Index: ""}},
		Costs:       []collectors.WindowCost{{Window: "30d", Covered: 30 * 24 * time.Hour, Evaluation: ev}},
		Engineering: capacity.Engineering{HourlyRate: 100, OnDemandHours: 0.5, ProvisionedHours: 4}}}

	var js bytes.Buffer
	if err := CapacityJSON(&js, reports, now); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tables []struct {
			Costs []struct {
				WithEngineering *engineeringJ `json:"with_engineering"`
			} `json:"costs"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	x := doc.Tables[0].Costs[0].WithEngineering
	want := engineeringJ{HourlyRateUSD: 100, HoursOnDemand: 0.5, HoursProvisioned: 4, MonthlyOnDemandUSD: 350, MonthlyProvisionedUSD: 500,
		CheaperMode: string(capacity.OnDemand), Reverses: true}
	if x == nil || *x != want {
		t.Fatalf("with_engineering = %+v, want %+v", x, want)
	}
	for _, format := range []string{"table", "markdown", "html"} {
		var b bytes.Buffer
		if err := Capacity(&b, format, reports, now); err != nil {
			t.Fatal(err)
		}
		out := html.UnescapeString(b.String())
		for _, s := range []string{"team's time", "350", "500"} {
			if !strings.Contains(out, s) {
				t.Errorf("%s report lacks %q", format, s)
			}
		}
		if !strings.Contains(out, "yes") && !strings.Contains(out, "unlike the bill alone") {
			t.Errorf("%s report does not say the team's time reverses the bill's cheaper mode", format)
		}
	}

	reports[0].Engineering = capacity.Engineering{}
	for _, format := range []string{"json", "table", "markdown", "html"} {
		var b bytes.Buffer
		if err := Capacity(&b, format, reports, now); err != nil {
			t.Fatal(err)
		}
		if out := html.UnescapeString(b.String()); strings.Contains(out, "team's time") || strings.Contains(out, "with_engineering") {
			t.Errorf("%s report mentions the team's time without engineering settings", format)
		}
	}
}
