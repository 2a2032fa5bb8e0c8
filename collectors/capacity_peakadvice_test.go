package collectors

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// peakFiguresOf returns the peak figures of a table's base (index "") from
// the collector's reports.
func peakFiguresOf(t *testing.T, c *Capacity, table string) PeakFigures {
	t.Helper()
	for _, r := range c.ReportFigures() {
		if r.Table != table {
			continue
		}
		for _, p := range r.Peaks {
			if p.Index == "" {
				return p
			}
		}
		t.Fatalf("%s: no peak figures for the base table in %+v", table, r.Peaks)
	}
	t.Fatalf("no report for %s", table)
	return PeakFigures{}
}

// TestPeakAdviceRecurringEveningPeak replays the built-in scenario of a
// 6x write peak every evening at 19:30 UTC on two provisioned tables, one
// without scheduled actions and one whose actions already raise the
// write minimum to 600 from 19:15 to 20:45. From the first cycle, on the
// first fetch's minutes: both writes are recurring, starting near 19:30 on
// every one of the last 7 days; the table without actions is told to add
// them (its simulation saturates every evening, the proposal's does not),
// with a raise before 19:30 and a lower after 20:30; the table with actions
// is told its actions serve it, with no proposal. Reads stay steady. Two days of hourly
// cycles later, on the minutes fed one cycle after another, the advice
// holds and the what-if still covers the last 7 days.
func TestPeakAdviceRecurringEveningPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("a 90-day scenario and 2 days of hourly cycles")
	}
	sc, err := sim.Builtin("recurring-evening-peak")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	a := newSimulatedAccount(t, sc, start)
	c := a.collector()
	check := func(when string) {
		t.Helper()
		peak, served := peakFiguresOf(t, c, "orders-evening-peak"), peakFiguresOf(t, c, "orders-evening-scheduled")
		for _, f := range []PeakFigures{peak, served} {
			if k := f.Peaks[0].Kind; k != capacity.PeakSteady {
				t.Errorf("%s: reads are %s, want steady (%+v)", when, k, f.Peaks[0])
			}
			w := f.Peaks[1]
			if w.Kind != capacity.PeakRecurring || w.Recurring != 7 || w.Days != 7 {
				t.Fatalf("%s: writes %+v, want recurring on 7 of 7 days", when, w)
			}
			// Consumed capacity is capped by the real capacity while it
			// throttles: the run above half the peak starts when
			// auto-scaling catches up, minutes after the onset.
			if w.StartMinute < 19*60+25 || w.StartMinute > 19*60+40 || w.EndMinute < 20*60+25 || w.EndMinute > 20*60+40 {
				t.Errorf("%s: recurring peak from minute %d to %d, want about 19:30 to 20:30", when, w.StartMinute, w.EndMinute)
			}
		}
		// The policy with its own actions neither throttles nor saturates:
		// nothing to propose, no simulation kept.
		if p := served.Peaks[1].Proposal; p != nil {
			t.Errorf("%s: orders-evening-scheduled has a proposal %+v, want none", when, *p)
		}
		if w := peak.Peaks[1]; w.Proposal == nil || w.Proposal.Covered < 7*day-2*time.Hour {
			t.Fatalf("%s: orders-evening-peak proposal %+v, want one with a what-if of about 7 days", when, w.Proposal)
		}
		p := peak.Peaks[1].Proposal
		t.Logf("%s: orders-evening-peak writes: %s", when, peak.Peaks[1].Advice().Reason)
		t.Logf("%s: orders-evening-scheduled writes: %s", when, served.Peaks[1].Advice().Reason)
		if got := peak.Peaks[1].Advice(); got.Action != capacity.PeakActionAddScheduledScaling || got.Code != capacity.PeakReasonRecurring {
			t.Errorf("%s: orders-evening-peak advice %+v, want add_scheduled_scaling (recurring_peak)", when, got)
		}
		// The history is capped by the real throttling: the policy's
		// simulation shows it as minutes at capacity every evening, the
		// proposal's as (almost) none.
		if p.Without.SaturatedMinutes < 7 || p.With.SaturatedMinutes > p.Without.SaturatedMinutes/4 || p.With.ThrottledUnits > p.Without.ThrottledUnits {
			t.Errorf("%s: saturated minutes without %v, with %v; throttled units without %.0f, with %.0f: want the evenings at capacity without, not with",
				when, p.Without.SaturatedMinutes, p.With.SaturatedMinutes, p.Without.ThrottledUnits, p.With.ThrottledUnits)
		}
		if raise := cronMinute(p.Raise.Schedule); raise < 19*60 || raise >= 19*60+30 || cronMinute(p.Lower.Schedule) < 20*60+25 || p.Raise.Min < 360/0.7 || p.Lower.Min != 50 {
			t.Errorf("%s: proposal raise %s to %g, lower %s to %g: want a raise before 19:30 to serve 360 units at 70%%, a lower after 20:30 to 50",
				when, p.Raise.Schedule, p.Raise.Min, p.Lower.Schedule, p.Lower.Min)
		}
		if !(p.With.MonthlyCost > p.Without.MonthlyCost) {
			t.Errorf("%s: monthly cost with %v, without %v: holding the raised minimum an hour a day costs more", when, p.With.MonthlyCost, p.Without.MonthlyCost)
		}
		if got := served.Peaks[1].Advice(); got.Action != capacity.PeakActionTargetTracking || got.Code != capacity.PeakReasonRecurringServed {
			t.Errorf("%s: orders-evening-scheduled advice %+v, want target_tracking (recurring_peak_served)", when, got)
		}
	}
	a.clk.Set(start)
	if err := c.Run(context.Background(), start); err != nil {
		t.Fatal(err)
	}
	check("first cycle")
	for h := 1; h <= 48; h++ {
		now := start.Add(time.Duration(h) * time.Hour)
		a.clk.Set(now)
		if err := c.Run(context.Background(), now); err != nil {
			t.Fatal(err)
		}
	}
	check("after 2 days of hourly cycles")
	var info []string
	for _, m := range c.Metrics() {
		if d := m.Desc().String(); strings.Contains(d, "dynamodb_capacity_peak_advice_info") {
			info = append(info, d)
		}
	}
	if len(info) == 0 {
		t.Error("no dynamodb_capacity_peak_advice_info series published")
	}
}

// TestPeakAdviceShortHistory: a table whose minutes cover fewer whole days
// than the rule needs is unknown, with the reason, and told nothing.
func TestPeakAdviceShortHistory(t *testing.T) {
	a := newDiagnosisAccount(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), 3*day)
	a.run(t, a.now)
	f := peakFiguresOf(t, a.c, "prov")
	for k := range 2 {
		if f.Peaks[k].Kind != capacity.PeakUnknown || !strings.Contains(f.Peaks[k].Reason, "whole days") {
			t.Errorf("dimension %d: %+v, want unknown for a short history", k, f.Peaks[k])
		}
		if a := f.Peaks[k].Advice(); a.Action != capacity.PeakActionNone || a.Code != capacity.PeakReasonShortHistory {
			t.Errorf("dimension %d: advice %+v, want none (short_history)", k, a)
		}
	}
}

// TestPeakAdviceWeeklyPeak: a 6x write peak on Thursday evenings (UTC)
// for two hours, on a provisioned table whose policy throttles it, is
// recurring on Thursdays from the first cycle: the tracker is built from 29
// days of the first fetch, the older ones from the 5-minute tier. The
// proposal runs on Thursdays (cron day of week 5).
func TestPeakAdviceWeeklyPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("a 35-day scenario")
	}
	sc, err := sim.LoadScenario([]byte(`name: weekly-peak
history: 35d
tables:
  - name: route-uploads
    billing: provisioned
    capacity: {read: 50, write: 100}
    auto_scaling:
      write: {min: 50, max: 2000, target: 70}
    traffic:
      read: 20
      write: 60
      noise: 0.03
      events:
        - {type: spike, at: -35d, at_utc: "19:00", every: 1w, duration: 2h, factor: 6, ramp: 3m, direction: write}
`))
	if err != nil {
		t.Fatal(err)
	}
	// Thursday noon: the peaks start on Thursdays (35 days back).
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a := newSimulatedAccount(t, sc, start)
	c := a.collector()
	a.clk.Set(start)
	if err := c.Run(context.Background(), start); err != nil {
		t.Fatal(err)
	}
	w := peakFiguresOf(t, c, "route-uploads").Peaks[1]
	if w.Kind != capacity.PeakRecurring || !w.Weekly || w.Weekday != time.Thursday || w.Recurring != 4 {
		t.Fatalf("writes %+v, want recurring on 4 of 4 Thursdays", w)
	}
	if w.Proposal == nil || !strings.HasSuffix(w.Proposal.Raise.Schedule, " ? * 5 *)") || w.Advice().Action != capacity.PeakActionAddScheduledScaling {
		t.Fatalf("proposal %+v, advice %+v: want scheduled scaling on Thursdays", w.Proposal, w.Advice())
	}
	t.Logf("route-uploads writes: %s", w.Advice().Reason)
}
