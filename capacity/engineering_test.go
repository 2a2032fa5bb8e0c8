package capacity

import (
	"math"
	"strings"
	"testing"
)

// TestEngineeringTotalCanReverseTheCheaperMode: a table whose bill is
// $200 a month lower provisioned, where a provisioned table takes the team
// 4 hours a month and an on-demand one half an hour, at $100 an hour:
// provisioned costs $350 more in engineering, so on-demand is cheaper in
// total ($300 + $50 against $100 + $400).
func TestEngineeringTotalCanReverseTheCheaperMode(t *testing.T) {
	ev := Evaluation{MonthlyOnDemand: 300, MonthlyProvisioned: 100}
	e := Engineering{HourlyRate: 100, OnDemandHours: 0.5, ProvisionedHours: 4}
	got := e.Total(ev)
	if got.OnDemand != 350 || got.Provisioned != 500 || got.Cheaper != OnDemand {
		t.Errorf("Total = %+v, want on demand 350, provisioned 500, cheaper on demand", got)
	}
	// Hours that cost the same in both modes change no decision.
	even := Engineering{HourlyRate: 100, OnDemandHours: 2, ProvisionedHours: 2}
	if got := even.Total(ev); got.Cheaper != Provisioned || got.Provisioned-got.OnDemand != -200 {
		t.Errorf("equal hours: %+v, want provisioned cheaper by 200", got)
	}
	// Off (no rate, or no hours): the totals are the bill.
	for _, off := range []Engineering{{}, {HourlyRate: 100}, {OnDemandHours: 1, ProvisionedHours: 3}} {
		if off.On() {
			t.Errorf("%+v is on", off)
		}
		if got := off.Total(ev); got.OnDemand != 300 || got.Provisioned != 100 || got.Cheaper != Provisioned {
			t.Errorf("off %+v: %+v, want the bill", off, got)
		}
	}
	if got := (Engineering{HourlyRate: 100, OnDemandHours: 1}).Total(Evaluation{MonthlyOnDemand: 100, MonthlyProvisioned: 200}); got.Cheaper != "" {
		t.Errorf("equal totals: cheaper %q, want none", got.Cheaper)
	}
}

func TestEngineeringValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		e     Engineering
		field string
	}{
		{Engineering{HourlyRate: -1}, "HourlyRate"},
		{Engineering{OnDemandHours: math.NaN()}, "OnDemandHours"},
		{Engineering{ProvisionedHours: math.Inf(1)}, "ProvisionedHours"},
	} {
		err := c.e.Validate()
		if err == nil || !strings.Contains(err.Error(), "Engineering."+c.field) {
			t.Errorf("%+v: error %v, want one naming %s", c.e, err, c.field)
		}
	}
	if err := (Engineering{HourlyRate: 90, OnDemandHours: 1, ProvisionedHours: 6}).Validate(); err != nil {
		t.Errorf("valid settings refused: %v", err)
	}
}
