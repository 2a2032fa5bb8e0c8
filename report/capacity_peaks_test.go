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

// TestCapacityReportPeaks: a recurring write peak with a worthwhile
// proposal shows in every view with its put-scheduled-action commands; a
// steady read dimension is listed but gets no command.
func TestCapacityReportPeaks(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	prop := capacity.ScheduleProposal{
		Raise:       capacity.ScheduledAction{Name: "dynamodb-exporter-peak-1937-raise", Schedule: "cron(27 19 * * ? *)", Min: 530},
		Lower:       capacity.ScheduledAction{Name: "dynamodb-exporter-peak-1937-lower", Schedule: "cron(30 20 * * ? *)", Min: 50},
		LeadMinutes: 10, Covered: 7 * 24 * time.Hour,
		Without: capacity.WhatIf{SaturatedMinutes: 36, MonthlyCost: 51.75}, With: capacity.WhatIf{MonthlyCost: 53.52},
	}
	write := capacity.Peaks{Kind: capacity.PeakRecurring, Days: 7, Recurring: 7, StartMinute: 19*60 + 37, EndMinute: 20*60 + 29, PeakDemand: 371, Proposal: &prop}
	read := capacity.Peaks{Kind: capacity.PeakSteady, Days: 7}
	f := collectors.PeakFigures{Peaks: [2]capacity.Peaks{read, write}}
	if f.Peaks[1].Advice().Action != capacity.PeakActionAddScheduledScaling {
		t.Fatalf("advice %+v, want add_scheduled_scaling", f.Peaks[1].Advice())
	}
	reports := []collectors.TableReport{{Account: "a", Region: "us-east-1", Table: "orders", Mode: capacity.Provisioned, Peaks: []collectors.PeakFigures{f}}}
	var md, html, js, txt bytes.Buffer
	for _, fn := range []func() error{
		func() error { return CapacityMarkdown(&md, reports, now) },
		func() error { return CapacityHTML(&html, reports, now) },
		func() error { return CapacityJSON(&js, reports, now) },
		func() error { CapacityText(&txt, reports); return nil },
	} {
		if err := fn(); err != nil {
			t.Fatal(err)
		}
	}
	raise := `aws application-autoscaling put-scheduled-action --service-namespace dynamodb --resource-id table/orders --scalable-dimension dynamodb:table:WriteCapacityUnits --scheduled-action-name dynamodb-exporter-peak-1937-raise --schedule "cron(27 19 * * ? *)"`
	// The HTML view escapes the quotes; each view is checked against its
	// own form of the command (maps iterate in any order).
	for name, view := range map[string]struct{ out, raise string }{
		"markdown": {md.String(), raise},
		"html":     {html.String(), strings.ReplaceAll(raise, `"`, "&#34;")},
	} {
		if !strings.Contains(view.out, view.raise) {
			t.Errorf("%s: no raise command %q in:\n%s", name, view.raise, view.out)
		}
	}
	if !strings.Contains(md.String(), "| orders | (table) | read | steady | none (steady) |") || !strings.Contains(md.String(), "| orders | (table) | write | recurring | add_scheduled_scaling (recurring_peak) |") {
		t.Errorf("markdown peaks table missing rows:\n%s", md.String())
	}
	if !strings.Contains(txt.String(), "add_scheduled_scaling (recurring_peak)  cron(27 19 * * ? *) MinCapacity=530, cron(30 20 * * ? *) MinCapacity=50") {
		t.Errorf("text view misses the proposal:\n%s", txt.String())
	}
	var doc struct {
		Tables []struct {
			Peaks []peakJ `json:"peaks"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	ps := doc.Tables[0].Peaks
	if len(ps) != 2 || ps[0].Schedule != nil || ps[1].Schedule == nil || ps[1].Schedule.RaiseMinCapacity != 530 || ps[1].Schedule.Without.SaturatedMinutes != 36 ||
		len(ps[1].Schedule.Commands) != 2 || ps[1].Schedule.With.MonthlyUSD == nil || *ps[1].Schedule.With.MonthlyUSD != 53.52 {
		t.Errorf("JSON peaks %+v", ps)
	}
}
