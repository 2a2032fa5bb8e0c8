package capacity

import (
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// evening builds days × 1440 minutes from midnight UTC at base units per
// second, with peak units per second from 19:30 to 20:29 on the days listed.
func evening(days int, base, peak float64, on ...int) Series {
	s := Series{Start: utc(2026, 11, 23, 0, 0), Sum: perMinute(days*1440, flat(base))}
	for _, d := range on {
		for m := 19*60 + 30; m < 20*60+30; m++ {
			s.Sum[d*1440+m] = peak * 60
		}
	}
	return s
}

// The brief's known answer: a 6x peak at 19:30 on 6 of 7 days. By hand,
// with a 70% target, Min 5, Max 1,000 and a 5-minute scale-out delay:
//
//   - base 10 units/s is served at ceil(10/0.7) = 15 units; the peak needs
//     ceil(60/0.7) = 86;
//   - target tracking alone: 19:30 and 19:31 are above target, the
//     scale-out decided at the end of 19:31 is in effect at 19:37. At 15
//     units a minute serves 900 of the 3,600 demanded; the burst bank
//     (300 s × 15 = 4,500) covers 19:30's 2,700 and 1,800 of 19:31's, so
//     19:31 throttles 900 and 19:32-19:36 2,700 each: 14,400 a peak day,
//     86,400 over the 6. Capacity is 86 from 19:37 to 20:44 (scale-in after
//     15 minutes below 50%, from 20:30): 68 minutes a peak day.
//   - with the proposal, raise at 19:30 − (5 + 5) = 19:20 to 86, in effect
//     from 19:20: nothing throttles (60/86 < 70% too, no scale-out). Lowered
//     at 20:30: 86 from 19:20 to 20:44 on peak days (85 minutes), and to
//     20:30 on the quiet day (scale-in at its end: 71 minutes).
func TestAnalyzePeaksRecurringKnownAnswer(t *testing.T) {
	s := evening(7, 10, 60, 0, 1, 2, 4, 5, 6)
	a := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute}
	const price = 0.00065
	p, err := AnalyzePeaks(s, a, DefaultPeakRule(), price)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakRecurring || p.Days != 7 || p.DaysWithPeak != 6 || p.Recurring != 6 {
		t.Fatalf("kind %s, %d of %d days (%d with a peak), want recurring 6 of 7", p.Kind, p.Recurring, p.Days, p.DaysWithPeak)
	}
	if p.StartMinute != 1170 || p.EndMinute != 1229 || p.BaseDemand != 10 || p.PeakDemand != 60 || p.RampMinutes != 0 || p.ReactionMinutes != 7 {
		t.Errorf("peak %+v", p)
	}
	pr := p.Proposal
	if pr == nil {
		t.Fatal("no proposal")
	}
	if pr.Raise.Schedule != "cron(20 19 * * ? *)" || pr.Raise.Min != 86 || pr.Lower.Schedule != "cron(30 20 * * ? *)" || pr.Lower.Min != 5 || pr.LeadMinutes != 10 {
		t.Errorf("proposal %+v %+v lead %d", pr.Raise, pr.Lower, pr.LeadMinutes)
	}
	if pr.Raise.Name != "dynamodb-exporter-peak-1930-raise" || pr.Lower.Name != "dynamodb-exporter-peak-1930-lower" {
		t.Errorf("names %q %q", pr.Raise.Name, pr.Lower.Name)
	}
	if pr.Without.ThrottledUnits != 86400 || pr.With.ThrottledUnits != 0 || pr.ThrottledUnitsAvoided() != 86400 || !pr.Worthwhile() {
		t.Errorf("throttled without %v, with %v", pr.Without.ThrottledUnits, pr.With.ThrottledUnits)
	}
	wantWithout := 7*24*15 + 6*71*68/60.0
	wantWith := 7*24*15 + 6*71*85/60.0 + 71*71/60.0
	if math.Abs(pr.Without.UnitHours-wantWithout) > 1e-6 || math.Abs(pr.With.UnitHours-wantWith) > 1e-6 {
		t.Errorf("unit-hours %v and %v, want %v and %v", pr.Without.UnitHours, pr.With.UnitHours, wantWithout, wantWith)
	}
	if want := wantWith * price * HoursPerMonth / 168; math.Abs(pr.With.MonthlyCost-want) > 1e-9 {
		t.Errorf("monthly cost with %v, want %v", pr.With.MonthlyCost, want)
	}

	// Existing scheduled actions that already cover the peak: the what-if
	// includes them in both runs, and the proposal gains nothing.
	a.Scheduled = []ScheduledAction{
		{Name: "evening-up", Schedule: "cron(15 19 * * ? *)", Min: 100},
		{Name: "evening-down", Schedule: "cron(45 20 * * ? *)", Min: 5},
	}
	p, err = AnalyzePeaks(s, a, DefaultPeakRule(), price)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakRecurring || p.Proposal == nil || p.Proposal.Without.ThrottledUnits != 0 || p.Proposal.Worthwhile() {
		t.Errorf("covered by existing actions: kind %s, proposal %+v", p.Kind, p.Proposal)
	}
}

// 4 of 7 days is not 5 of 7; a peak whose start moves by less than an hour
// still recurs; one past midnight wraps.
func TestAnalyzePeaksRecurrenceRule(t *testing.T) {
	a := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute}
	p, err := AnalyzePeaks(evening(7, 10, 60, 0, 2, 4, 6), a, DefaultPeakRule(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakFlash || p.DaysWithPeak != 4 || p.Proposal != nil {
		t.Errorf("4 of 7: kind %s (%d days with a peak), want flash without a proposal", p.Kind, p.DaysWithPeak)
	}
	// Peaks of 20 minutes starting at 23:40 on day 1, 23:50 on day 2, 00:05
	// on day 4 (day 3's, late past midnight), 23:45 on day 5, 23:40 on day
	// 6, 23:55 on day 7 (8 days from midnight: days 1-7 are the last 7
	// whole days). Day 3 has no peak of its own: its first minutes continue
	// day 2's, which is not counted twice.
	// Windows of 60 minutes, circularly: from 23:40 they hold 23:40 ×2,
	// 23:45, 23:50, 23:55 and 00:05: 6 of 7.
	s := Series{Start: utc(2026, 11, 22, 0, 0), Sum: perMinute(8*1440, flat(10))}
	for _, at := range []int{1*1440 + 23*60 + 40, 2*1440 + 23*60 + 50, 4*1440 + 5, 5*1440 + 23*60 + 45, 6*1440 + 23*60 + 40, 7*1440 + 23*60 + 55} {
		for m := at; m < at+20 && m < len(s.Sum); m++ {
			s.Sum[m] = 60 * 60
		}
	}
	p, err = AnalyzePeaks(s, a, DefaultPeakRule(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakRecurring || p.Recurring != 6 || p.DaysWithPeak != 6 || p.StartMinute != 23*60+40 || p.Proposal.Raise.Schedule != "cron(30 23 * * ? *)" {
		t.Errorf("kind %s, %d of %d with a peak, start %d, raise %s", p.Kind, p.Recurring, p.DaysWithPeak, p.StartMinute, p.Proposal.Raise.Schedule)
	}
	// The latest end: day 4's run 00:05-00:24, 1,464 minutes from the
	// anchor's midnight (day 2's 23:50-00:09 ends at 1,449); the lowering
	// runs at 00:25.
	if p.EndMinute != 1464 || p.Proposal.Lower.Schedule != "cron(25 0 * * ? *)" {
		t.Errorf("end %d, lower %s", p.EndMinute, p.Proposal.Lower.Schedule)
	}
}

func TestAnalyzePeaksKinds(t *testing.T) {
	a := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute}
	// Six whole days: unknown, with the reason.
	p, err := AnalyzePeaks(evening(6, 10, 60, 0, 1, 2, 3, 4, 5), a, DefaultPeakRule(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakUnknown || !strings.Contains(p.Reason, "6 whole days") {
		t.Errorf("6 days: %s %q", p.Kind, p.Reason)
	}
	// Flat: steady.
	if p, _ = AnalyzePeaks(evening(7, 10, 60), a, DefaultPeakRule(), 1); p.Kind != PeakSteady {
		t.Errorf("flat: %s", p.Kind)
	}
	// One ramp over 60 minutes (a rise of 1 unit/s a minute from 10 to 70):
	// ramping. The run starts at the first rate above half the peak, 35
	// (36, at minute 26): 34 minutes to the peak.
	s := evening(7, 10, 0)
	for m := range 61 {
		s.Sum[3*1440+600+m] = (10 + float64(m)) * 60
	}
	p, err = AnalyzePeaks(s, a, DefaultPeakRule(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakRamping || p.RampMinutes != 34 || p.PeakDemand != 70 {
		t.Errorf("ramp: kind %s, ramp %d, peak %v", p.Kind, p.RampMinutes, p.PeakDemand)
	}
	// One step: flash.
	if p, _ = AnalyzePeaks(evening(7, 10, 60, 3), a, DefaultPeakRule(), 1); p.Kind != PeakFlash || p.RampMinutes != 0 {
		t.Errorf("step: kind %s ramp %d", p.Kind, p.RampMinutes)
	}
	if _, err := AnalyzePeaks(evening(7, 10, 60), a, PeakRule{Days: 7, MinDays: 8, Factor: 2}, 1); err == nil {
		t.Error("MinDays above Days accepted")
	}
	for _, r := range []PeakRule{{Days: 7, MinDays: 5, Factor: 2, Weeks: 9, MinWeeks: 3}, {Days: 7, MinDays: 5, Factor: 2, Weeks: 4, MinWeeks: 5}, {Days: 7, MinDays: 5, Factor: 2, Weeks: 4}} {
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "Weeks") {
			t.Errorf("%+v: error %v, want one naming Weeks or MinWeeks", r, err)
		}
	}
}

func TestPeakAdviceAndCommand(t *testing.T) {
	a := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute}
	p, err := AnalyzePeaks(evening(7, 10, 60, 0, 1, 2, 4, 5, 6), a, DefaultPeakRule(), 0.00065)
	if err != nil {
		t.Fatal(err)
	}
	adv := p.Advice()
	if adv.Action != PeakActionAddScheduledScaling || adv.Code != PeakReasonRecurring ||
		!strings.Contains(adv.Reason, "starts at about 19:30 UTC on 6 of the last 7 days") || !strings.Contains(adv.Reason, "avoids 86400 of 86400 throttled units") {
		t.Errorf("advice %+v", adv)
	}
	got := PutScheduledActionCommand("orders", "", Write, p.Proposal.Raise)
	want := `aws application-autoscaling put-scheduled-action --service-namespace dynamodb --resource-id table/orders --scalable-dimension dynamodb:table:WriteCapacityUnits --scheduled-action-name dynamodb-exporter-peak-1930-raise --schedule "cron(20 19 * * ? *)" --scalable-target-action MinCapacity=86`
	if got != want {
		t.Errorf("command\n%s\nwant\n%s", got, want)
	}
	if got := PutScheduledActionCommand("orders", "by-day", Read, p.Proposal.Lower); !strings.Contains(got, "--resource-id table/orders/index/by-day --scalable-dimension dynamodb:index:ReadCapacityUnits") ||
		!strings.HasSuffix(got, `--schedule "cron(30 20 * * ? *)" --scalable-target-action MinCapacity=5`) {
		t.Errorf("index command %s", got)
	}
	for _, c := range []struct {
		s    Series
		want PeakReason
	}{
		{evening(6, 10, 60, 1), PeakReasonShortHistory},
		{evening(7, 10, 60), PeakReasonSteady},
		{evening(7, 10, 60, 3), PeakReasonFlash},
	} {
		p, err := AnalyzePeaks(c.s, a, DefaultPeakRule(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Advice(); got.Code != c.want || got.Reason == "" {
			t.Errorf("%s: advice %+v, want %s", p.Kind, got, c.want)
		}
	}
	a.Scheduled = []ScheduledAction{{Name: "up", Schedule: "cron(15 19 * * ? *)", Min: 100}, {Name: "down", Schedule: "cron(45 20 * * ? *)", Min: 5}}
	p, _ = AnalyzePeaks(evening(7, 10, 60, 0, 1, 2, 4, 5, 6), a, DefaultPeakRule(), 1)
	if got := p.Advice(); got.Action != PeakActionTargetTracking || got.Code != PeakReasonRecurringServed {
		t.Errorf("covered: %+v", got)
	}
}

// The tracker keeps fixed state: about 1 KB for 28 days, nothing
// allocated per minute, and it answers at any time from the whole days
// seen so far.
func TestPeakTrackerState(t *testing.T) {
	rule := DefaultPeakRule()
	size := unsafe.Sizeof(PeakTracker{}) + uintptr(rule.keep())*unsafe.Sizeof(dayPeak{})
	if size > 1200 {
		t.Errorf("tracker state %d bytes, want at most 1,200", size)
	}
	s := evening(9, 10, 60, 0, 1, 2, 3, 4, 5, 6, 7, 8)
	tr, err := NewPeakTracker(s.Start.Add(13*time.Hour), rule) // the first day is partial
	if err != nil {
		t.Fatal(err)
	}
	a := DefaultAutoScaling()
	for i, v := range s.Sum[13*60:] {
		tr.Add(v)
		if i == 11*60+7*1440 { // the first minute of the 8th day: days 1-7 are whole
			if p := tr.Peaks(a); p.Kind != PeakRecurring || p.Recurring != 7 {
				t.Fatalf("after 7 whole days: %s %d", p.Kind, p.Recurring)
			}
		}
	}
	// A clone advances on its own.
	c := tr.Clone()
	for range 2 * 1440 {
		c.Add(0)
	}
	if len(c.days) == len(tr.days) && c.days[len(c.days)-1] == tr.days[len(tr.days)-1] {
		t.Error("the clone's days did not move")
	}
	if p := tr.Peaks(a); p.Kind != PeakRecurring {
		t.Errorf("the original moved with its clone: %s", p.Kind)
	}
	if n := testing.AllocsPerRun(1000, func() { tr.Add(600) }); n > 0.01 {
		t.Errorf("%v allocations per minute", n)
	}
}

// mondays builds weeks × 7 days from Monday 2026-11-02, midnight UTC, at
// base units per second, with peak units per second for two hours from
// minute at of the Mondays listed (0 the first).
func mondays(weeks int, base, peak float64, at int, on ...int) Series {
	s := Series{Start: utc(2026, 11, 2, 0, 0), Sum: perMinute(weeks*7*1440, flat(base))}
	for _, w := range on {
		for m := at; m < at+120; m++ {
			s.Sum[w*7*1440+m] = peak * 60
		}
	}
	return s
}

// A weekly peak: Mondays at 06:00 for two hours on 3 or 4 of the last 4
// Mondays recur (a weekly proposal on day of week 2, MON); on 2 of 4 they
// do not. A peak daily on most days stays daily. One starting at 00:05 on
// Mondays is raised on Sundays at 23:55.
func TestAnalyzePeaksWeekly(t *testing.T) {
	a := AutoScalingSettings{Target: 0.7, Min: 5, Max: 1000, ScaleOutDelay: 5 * time.Minute}
	for _, on := range [][]int{{0, 1, 2, 3}, {0, 2, 3}} {
		p, err := AnalyzePeaks(mondays(4, 10, 60, 6*60, on...), a, DefaultPeakRule(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != PeakRecurring || !p.Weekly || p.Weekday != time.Monday || p.Recurring != len(on) || p.Weeks != 4 || p.StartMinute != 360 || p.EndMinute != 479 {
			t.Fatalf("Mondays %v: %+v, want weekly on %d of 4 Mondays from 06:00 to 07:59", on, p, len(on))
		}
		pr := p.Proposal
		if pr.Raise.Schedule != "cron(50 5 ? * 2 *)" || pr.Lower.Schedule != "cron(0 8 ? * 2 *)" || pr.Raise.Min != 86 || pr.Raise.Name != "dynamodb-exporter-peak-mon-0600-raise" {
			t.Errorf("Mondays %v: proposal %+v %+v", on, pr.Raise, pr.Lower)
		}
		if !pr.Worthwhile() || pr.With.ThrottledUnits != 0 || pr.Without.ThrottledUnits == 0 {
			t.Errorf("Mondays %v: throttled without %v, with %v", on, pr.Without.ThrottledUnits, pr.With.ThrottledUnits)
		}
		if got := p.Advice(); got.Action != PeakActionAddScheduledScaling || !strings.Contains(got.Reason, "of the last 4 Mondays") {
			t.Errorf("Mondays %v: advice %+v", on, got)
		}
	}
	p, err := AnalyzePeaks(mondays(4, 10, 60, 6*60, 0, 3), a, DefaultPeakRule(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != PeakFlash || p.Weekly {
		t.Errorf("2 of 4 Mondays: %s (weekly %v), want flash", p.Kind, p.Weekly)
	}
	p, err = AnalyzePeaks(mondays(4, 10, 60, 5, 0, 1, 2, 3), a, DefaultPeakRule(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Weekly || p.Proposal.Raise.Schedule != "cron(55 23 ? * 1 *)" || p.Proposal.Lower.Schedule != "cron(5 2 ? * 2 *)" {
		t.Errorf("Mondays at 00:05: weekly %v, raise %s, lower %s, want Sunday 23:55 and Monday 02:05", p.Weekly, p.Proposal.Raise.Schedule, p.Proposal.Lower.Schedule)
	}
	// Without weeks in the rule, the same Mondays are a flash peak.
	rule := DefaultPeakRule()
	rule.Weeks = 0
	if p, _ := AnalyzePeaks(mondays(4, 10, 60, 6*60, 0, 1, 2, 3), a, rule, 1); p.Kind != PeakFlash {
		t.Errorf("Weeks 0: %s, want flash", p.Kind)
	}
	// A daily evening peak within the 4 weeks stays daily.
	if p, _ := AnalyzePeaks(evening(28, 10, 60, 20, 21, 22, 23, 24, 25, 26), a, DefaultPeakRule(), 1); p.Kind != PeakRecurring || p.Weekly {
		t.Errorf("daily peak over 4 weeks: %s weekly %v", p.Kind, p.Weekly)
	}
}
