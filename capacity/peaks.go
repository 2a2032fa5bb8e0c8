package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Peaks, four ways (issue 22, after the capacity-mode decision's axis 4,
// "predictable peak vs flash sale"): a dimension's peaks are
//
//   - recurring: they start in the same hour of the UTC day on most days;
//     scheduled scaling serves them (raise MinCapacity before, lower it
//     after), and the what-if says what that saves;
//   - ramping: not recurring, but demand rises from base to peak over more
//     minutes than target tracking needs to react (ScaleOutPoints minutes
//     above target, then ScaleOutDelay): target tracking alone keeps up;
//   - flash: not recurring and faster than that: target tracking throttles
//     on each; capacity must be in place before (pre-warming, on-demand);
//   - steady: no day has a peak (the fourth way: nothing to do).
//
// The rules, on the last PeakRule.Days whole UTC days, all computable as
// the minutes arrive in fixed memory (PeakTracker; AnalyzePeaks runs the
// same tracker over a series):
//
//   - A day's base is the median of its 24 hourly mean rates; its peak is
//     its highest minute rate, and the day has a peak when that is at least
//     Factor × base and at least MinRise units per second above it.
//   - The peak's run is the contiguous run of minutes around the (first)
//     peak minute whose rate is above half the peak; its start is the run's
//     first minute (looked for at most PeakLookBack minutes back: a longer
//     rise counts as PeakLookBack), its end the last (it may run into the
//     next day); the ramp is the minutes from start to the peak minute, the
//     rise from half to full.
//   - A run still going at midnight is the day's it began in: the next
//     day's minutes above its threshold are its end, not the next day's
//     peak.
//   - Recurring: on at least MinDays of the Days, the day's peak starts
//     within one 60-minute window of the UTC day (the window starting at one
//     of those days' start; the one that holds most, then the earliest).
//     One peak per day is considered: a dimension with two daily peaks of
//     alternating size may be seen as neither.
//   - Weekly: not recurring daily, but on at least MinWeeks of the last
//     Weeks same weekdays (Mondays, ...) the day's peak starts within one
//     60-minute window (the weekday holding most, then the earliest): a
//     recurring peak on that weekday, its figures from those days.
//   - Otherwise, ramping when the highest peak's ramp is longer than the
//     reaction (ScaleOutPoints + ScaleOutDelay in minutes), flash otherwise.
//
// The proposal for a recurring peak: raise MinCapacity to ceil(highest
// peak of those days ÷ Target) (at most the policy's Max) at the earliest
// start minus the lead time, ScaleOutDelay + LeadMargin (the raise is in
// effect ScaleOutDelay after the action runs, see SimulateProvisioned; the
// margin absorbs a peak starting a few minutes early), and lower it back to
// the policy's Min the minute after the latest end; both daily, as cron in
// UTC. The what-if simulates the policy with its existing scheduled actions,
// without and with the two proposed, over the whole series.

// PeakKind is how a dimension's peaks are best served.
type PeakKind string

// Peak kinds.
const (
	// PeakUnknown: the series is too short (fewer whole days than
	// PeakRule.Days); Peaks.Reason says so.
	PeakUnknown PeakKind = "unknown"
	// PeakSteady: no day has a peak.
	PeakSteady PeakKind = "steady"
	// PeakRecurring: the peak starts in the same hour on most days.
	PeakRecurring PeakKind = "recurring"
	// PeakRamping: the peak rises slower than target tracking reacts.
	PeakRamping PeakKind = "ramping"
	// PeakFlash: the peak rises faster than target tracking reacts and
	// does not recur.
	PeakFlash PeakKind = "flash"
)

// PeakKinds returns the kinds in a fixed order.
func PeakKinds() []PeakKind {
	return []PeakKind{PeakUnknown, PeakSteady, PeakRecurring, PeakRamping, PeakFlash}
}

// PeakRule holds the thresholds of the peak classification.
type PeakRule struct {
	// Days is how many whole UTC days are examined (M).
	Days int
	// MinDays is on how many of them the peak must start in the same hour
	// to be recurring (N).
	MinDays int
	// Factor is how many times the day's median rate a peak reaches.
	Factor float64
	// MinRise is how many units per second a peak rises above the median.
	MinRise float64
	// LeadMargin is added to ScaleOutDelay to make the lead time of a
	// proposed raise.
	LeadMargin time.Duration
	// Weeks is how many of the same weekdays are examined for a weekly
	// peak (0: none), MinWeeks on how many the peak must start in the same
	// hour. The tracker then keeps 7 × Weeks days.
	Weeks, MinWeeks int
}

// DefaultPeakRule returns 5 of the last 7 days, a peak at twice the median
// and at least 1 unit per second above it, a 5-minute margin, and weekly
// peaks on 3 of the last 4 same weekdays.
func DefaultPeakRule() PeakRule {
	return PeakRule{Days: 7, MinDays: 5, Factor: 2, MinRise: 1, LeadMargin: 5 * time.Minute, Weeks: 4, MinWeeks: 3}
}

// keep returns how many whole days the tracker keeps.
func (r PeakRule) keep() int { return max(r.Days, 7*r.Weeks) }

// Validate reports the first invalid threshold.
func (r PeakRule) Validate() error {
	switch {
	case r.Days < 1 || r.Days > 62:
		return fmt.Errorf("capacity: PeakRule.Days %d must be within 1-62", r.Days)
	case r.MinDays < 1 || r.MinDays > r.Days:
		return fmt.Errorf("capacity: PeakRule.MinDays %d must be within 1-%d", r.MinDays, r.Days)
	case !(r.Factor > 1) || math.IsInf(r.Factor, 0):
		return fmt.Errorf("capacity: PeakRule.Factor %v must be a finite number above 1", r.Factor)
	case !(r.MinRise >= 0) || math.IsInf(r.MinRise, 0):
		return fmt.Errorf("capacity: PeakRule.MinRise %v must be a finite non-negative number", r.MinRise)
	case r.LeadMargin < 0:
		return fmt.Errorf("capacity: PeakRule.LeadMargin %v is negative", r.LeadMargin)
	case r.Weeks < 0 || r.Weeks > 8:
		return fmt.Errorf("capacity: PeakRule.Weeks %d must be within 0-8", r.Weeks)
	case r.Weeks > 0 && (r.MinWeeks < 1 || r.MinWeeks > r.Weeks):
		return fmt.Errorf("capacity: PeakRule.MinWeeks %d must be within 1-%d", r.MinWeeks, r.Weeks)
	}
	return nil
}

// Peaks is the classification of one dimension's peaks.
type Peaks struct {
	// Kind is how the peaks are best served.
	Kind PeakKind
	// Weekly is set for a peak that recurs on one weekday (Weekday), not
	// daily: Recurring then counts weeks, of Weeks.
	Weekly  bool
	Weekday time.Weekday
	Weeks   int
	// Reason says why Kind is PeakUnknown.
	Reason string
	// Days is how many whole days were examined, DaysWithPeak how many had
	// a peak and Recurring on how many the peak started in the recurring
	// hour (the evidence: Recurring of Days).
	Days, DaysWithPeak, Recurring int
	// StartMinute and EndMinute are, for a recurring peak, the earliest
	// start and the latest end (inclusive) as minutes of the UTC day; the
	// end may exceed 1,439 for a peak that crosses midnight.
	StartMinute, EndMinute int
	// BaseDemand is the median of the days' medians and PeakDemand the
	// highest peak (of the recurring days for a recurring peak), in units
	// per second.
	BaseDemand, PeakDemand float64
	// RampMinutes is the ramp of the highest peak; ReactionMinutes is
	// target tracking's reaction, ScaleOutPoints + ScaleOutDelay.
	RampMinutes, ReactionMinutes int
	// Proposal is the scheduled scaling of a recurring peak, with its
	// what-if; nil for the other kinds.
	Proposal *ScheduleProposal
	// NoPolicy is set by a caller for a dimension without an auto-scaling
	// policy (fixed provisioned capacity), which gets no Proposal.
	NoPolicy bool
}

// ScheduleProposal is a pair of scheduled actions covering a recurring
// peak, and the what-if of adding them.
type ScheduleProposal struct {
	// Raise sets MinCapacity to the peak's need before it; Lower sets it
	// back to the policy's Min after it.
	Raise, Lower ScheduledAction
	// LeadMinutes is how long before the peak's start Raise runs.
	LeadMinutes int
	// Without and With are the what-if of the policy (with its existing
	// scheduled actions) alone and with Raise and Lower.
	Without, With WhatIf
	// Covered is the span of minutes the what-if simulated.
	Covered time.Duration
	// Weekly is set for the actions of a weekly peak.
	Weekly bool
}

// WhatIf is one simulated run of a dimension.
type WhatIf struct {
	// ThrottledUnits is the simulated throttled demand, in units.
	ThrottledUnits float64
	// UnitHours is the provisioned capacity integrated over the series.
	UnitHours float64
	// MonthlyCost is the provisioned cost scaled to HoursPerMonth.
	MonthlyCost float64
	// SaturatedMinutes counts the minutes whose consumed demand reached
	// the simulated capacity (Saturated): where the series is a history
	// capped by real throttling, the throttling its Sums cannot show.
	// AnalyzePeaks leaves it zero (its series is the demand).
	SaturatedMinutes float64
}

// ThrottledUnitsAvoided is Without's throttled units less With's.
func (p ScheduleProposal) ThrottledUnitsAvoided() float64 {
	return p.Without.ThrottledUnits - p.With.ThrottledUnits
}

// SaturatedMinutesAvoided is Without's saturated minutes less With's.
func (p ScheduleProposal) SaturatedMinutesAvoided() float64 {
	return p.Without.SaturatedMinutes - p.With.SaturatedMinutes
}

// Worthwhile reports whether the proposal avoids at least half a unit of
// throttling, or at least a saturated minute a peak (a day, or a week for
// a weekly peak) of its what-if (on a history capped by real throttling,
// the throttled demand shows only as consumption held at the capacity): a
// dimension whose existing scheduled actions already cover the peak, or
// whose target tracking already serves it, gains nothing.
func (p ScheduleProposal) Worthwhile() bool {
	return p.ThrottledUnitsAvoided() >= 0.5 || p.SaturatedMinutesAvoided() >= MinSaturatedMinutes(p.Covered, p.Weekly)
}

// MinSaturatedMinutes is the least saturated minutes over span that show a
// recurring peak throttled: one a day (a week for a weekly peak), and at
// least one.
func MinSaturatedMinutes(span time.Duration, weekly bool) float64 {
	period := 24 * time.Hour
	if weekly {
		period *= 7
	}
	return math.Max(1, math.Floor(float64(span)/float64(period)))
}

// PeakLookBack is how many minutes before a peak minute the start of its
// rise is looked for.
const PeakLookBack = 60

// dayPeak is the peak of one whole day.
type dayPeak struct {
	day        int32   // days since the Unix epoch
	base, peak float32 // units per second
	start      int16   // minute of the day the run starts (negative: the day before)
	end        int16   // minute of the day the run ends (past 1,439: the next day)
	ramp       int16
	has        bool // last: 20 bytes, not 24 (a tracker keeps 28)
}

// PeakTracker classifies one dimension's peaks from its minutes as they
// arrive (Add), keeping about 1 KB: the last PeakLookBack minutes, the
// current day's 24 hourly sums and running peak, and a summary of each of
// the last PeakRule.Days (7 × PeakRule.Weeks) whole days. A collector can keep one per table or
// GSI dimension instead of the days of minutes the classification reads.
type PeakTracker struct {
	rule  PeakRule
	start time.Time
	n     int // minutes added
	ring  [PeakLookBack]float32
	// The current day: its UTC midnight, minutes seen, hourly sums and
	// running peak (peak, at, start, end, whether the run is still open).
	day     time.Time
	seen    int
	hours   [24]float32
	peak    float32
	at      int
	runFrom int
	runTo   int
	open    bool
	// cont is the threshold (a Sum) of the previous day's run when it was
	// still open at midnight; zero once it closed.
	cont float32
	// days are the summaries of the last whole days, oldest first.
	days []dayPeak
}

// NewPeakTracker returns a tracker whose first minute begins at start.
func NewPeakTracker(start time.Time, rule PeakRule) (*PeakTracker, error) {
	if err := rule.Validate(); err != nil {
		return nil, err
	}
	start = start.UTC().Truncate(time.Minute)
	return &PeakTracker{rule: rule, start: start, day: start.Truncate(24 * time.Hour), days: make([]dayPeak, 0, rule.keep())}, nil
}

// Clone returns an independent copy of the tracker.
func (t *PeakTracker) Clone() *PeakTracker {
	c := *t
	c.days = append(make([]dayPeak, 0, cap(t.days)), t.days...)
	return &c
}

// Add accounts the next minute, whose consumed Sum is sum (a Sum that is
// negative, NaN or infinite counts as zero).
func (t *PeakTracker) Add(sum float64) {
	sum = finiteSum(sum)
	at := t.start.Add(time.Duration(t.n) * time.Minute)
	if day := at.Truncate(24 * time.Hour); !day.Equal(t.day) {
		t.finishDay()
		t.day = day
	}
	m := int(at.Sub(t.day) / time.Minute)
	v := float32(sum)
	t.hours[m/60] += v
	t.seen++
	switch {
	case t.cont > 0 && v > t.cont:
		// The previous day's run goes on: its end, not this day's peak.
		if k := len(t.days) - 1; k >= 0 {
			t.days[k].end = int16(1440 + m)
		}
	case v > t.peak:
		t.cont = 0
		t.peak, t.at, t.runTo, t.open = v, m, m, true
		back := 0
		for back < PeakLookBack && back < t.n && t.ring[(t.n-1-back)%PeakLookBack] > v/2 {
			back++
		}
		t.runFrom = m - back
	default:
		t.cont = 0
		if t.open {
			if v > t.peak/2 {
				t.runTo = m
			} else {
				t.open = false
			}
		}
	}
	t.ring[t.n%PeakLookBack] = v
	t.n++
}

// finishDay closes the current day: a whole day joins the summaries.
func (t *PeakTracker) finishDay() {
	whole := t.seen == 1440
	var sum dayPeak
	if whole {
		var hours [24]float64
		for h, v := range t.hours {
			hours[h] = float64(v) / 3600
		}
		slices.Sort(hours[:])
		base, peak := median(hours[:]), float64(t.peak)/60
		sum = dayPeak{day: int32(t.day.Unix() / 86400), base: float32(base), peak: float32(peak)}
		if peak >= t.rule.Factor*base && peak-base >= t.rule.MinRise && t.peak > 0 {
			sum.has, sum.start, sum.end, sum.ramp = true, int16(t.runFrom), int16(t.runTo), int16(t.at-t.runFrom)
		}
		if len(t.days) == t.rule.keep() {
			t.days = append(t.days[:0], t.days[1:]...)
		}
		t.days = append(t.days, sum)
	}
	t.cont = 0
	if whole && sum.has && t.open {
		t.cont = t.peak / 2
	}
	t.seen, t.hours, t.peak, t.at, t.runFrom, t.runTo, t.open = 0, [24]float32{}, 0, 0, 0, 0, false
}

// Peaks classifies the peaks of the whole days added so far, with the
// reaction of the auto-scaling settings a; Proposal is left nil
// (AnalyzePeaks fills it).
func (t *PeakTracker) Peaks(a AutoScalingSettings) Peaks {
	out := Peaks{ReactionMinutes: ScaleOutPoints + ceilMinutes(a.ScaleOutDelay)}
	if len(t.days) < t.rule.Days {
		out.Kind = PeakUnknown
		out.Reason = fmt.Sprintf("the history holds %d whole days, the classification needs %d", len(t.days), t.rule.Days)
		return out
	}
	days := t.days[len(t.days)-t.rule.Days:]
	out.Days = len(days)
	bases := make([]float64, 0, len(days))
	top := -1
	for d, p := range days {
		bases = append(bases, float64(p.base))
		if p.has {
			out.DaysWithPeak++
			if top < 0 || p.peak > days[top].peak {
				top = d
			}
		}
	}
	slices.Sort(bases)
	out.BaseDemand = median(bases)
	if top < 0 {
		out.Kind = PeakSteady
		return out
	}
	out.PeakDemand, out.RampMinutes = float64(days[top].peak), int(days[top].ramp)
	if anchor, n := recurringWindow(days); n >= t.rule.MinDays {
		out.Kind, out.Recurring = PeakRecurring, n
		out.recurringFigures(days, anchor)
		return out
	}
	// A weekly peak: the weekday whose days' peaks start in one hour most
	// often over the last Weeks weeks.
	if w := t.rule.Weeks; w > 0 && len(t.days) >= 7*w {
		weeks := t.days[len(t.days)-7*w:]
		bestN, bestAnchor, bestDay := 0, 0, time.Weekday(0)
		for wd := time.Sunday; wd <= time.Saturday; wd++ {
			var same []dayPeak
			for _, p := range weeks {
				if weekdayOf(p.day) == wd {
					same = append(same, p)
				}
			}
			if anchor, n := recurringWindow(same); n > bestN {
				bestN, bestAnchor, bestDay = n, anchor, wd
			}
		}
		if bestN >= t.rule.MinWeeks {
			var same []dayPeak
			for _, p := range weeks {
				if weekdayOf(p.day) == bestDay {
					same = append(same, p)
				}
			}
			out.Kind, out.Recurring, out.Weekly, out.Weekday, out.Weeks = PeakRecurring, bestN, true, bestDay, w
			out.recurringFigures(same, bestAnchor)
			return out
		}
	}
	out.Kind = PeakFlash
	if out.RampMinutes > out.ReactionMinutes {
		out.Kind = PeakRamping
	}
	return out
}

// weekdayOf returns the weekday of a day counted since the Unix epoch (a
// Thursday).
func weekdayOf(day int32) time.Weekday { return time.Weekday((int(day)%7 + 7 + 4) % 7) }

// startOf returns the minute of the UTC day a day's peak run starts.
func startOf(p dayPeak) int { return (int(p.start)%1440 + 1440) % 1440 }

// recurringWindow returns the start (minute of the UTC day) of the
// 60-minute window, among those starting at one of the days' peak starts,
// that holds the most peak starts (then the earliest), and how many.
func recurringWindow(days []dayPeak) (anchor, n int) {
	best := -1
	for d, p := range days {
		if !p.has {
			continue
		}
		k := 0
		for _, q := range days {
			if q.has && (startOf(q)-startOf(p)+1440)%1440 < 60 {
				k++
			}
		}
		if k > n || (k == n && startOf(p) < startOf(days[best])) {
			best, n = d, k
		}
	}
	if best < 0 {
		return 0, 0
	}
	return startOf(days[best]), n
}

// recurringFigures sets the start, end, peak and ramp of a recurring peak
// from the days whose peak starts within 60 minutes of anchor.
func (out *Peaks) recurringFigures(days []dayPeak, anchor int) {
	out.StartMinute, out.EndMinute, out.PeakDemand, out.RampMinutes = anchor, -1, 0, 0
	for _, q := range days {
		if !q.has || (startOf(q)-anchor+1440)%1440 >= 60 {
			continue
		}
		// The end relative to the anchor's day.
		end := int(q.end) - int(q.start) + startOf(q)
		if startOf(q) < anchor {
			end += 1440
		}
		out.EndMinute = max(out.EndMinute, end)
		if float64(q.peak) > out.PeakDemand {
			out.PeakDemand, out.RampMinutes = float64(q.peak), int(q.ramp)
		}
	}
}

// AnalyzePeaks classifies the peaks of one dimension's series under its
// auto-scaling policy a (its existing Scheduled actions included) and, for
// a recurring peak, proposes scheduled actions and simulates them; unitHour
// is the price of one provisioned unit for an hour.
func AnalyzePeaks(s Series, a AutoScalingSettings, rule PeakRule, unitHour float64) (Peaks, error) {
	if err := s.Validate(); err != nil {
		return Peaks{}, err
	}
	if err := a.Validate(); err != nil {
		return Peaks{}, err
	}
	if !(unitHour >= 0) || math.IsInf(unitHour, 0) {
		return Peaks{}, fmt.Errorf("capacity: unit-hour price %v must be a finite non-negative number", unitHour)
	}
	t, err := NewPeakTracker(s.Start, rule)
	if err != nil {
		return Peaks{}, err
	}
	for _, v := range s.Sum {
		t.Add(v)
	}
	t.finishDay() // a series ending at midnight ends a whole day
	out := t.Peaks(a)
	if out.Kind != PeakRecurring {
		return out, nil
	}
	p, err := propose(s, a, rule, unitHour, out)
	if err != nil {
		return Peaks{}, err
	}
	out.Proposal = &p
	return out, nil
}

// ProposeSchedule returns the scheduled actions that serve the recurring
// peak pk under the policy a (the rule above the Peaks type), with no
// what-if: AnalyzePeaks simulates them over a series, a collector over the
// minutes as they arrive.
func ProposeSchedule(pk Peaks, a AutoScalingSettings, rule PeakRule) ScheduleProposal {
	lead := ceilMinutes(a.ScaleOutDelay) + ceilMinutes(rule.LeadMargin)
	raiseAt := pk.StartMinute - lead
	lowerAt := pk.EndMinute + 1
	need := math.Min(a.Max, math.Ceil(pk.PeakDemand/a.Target-1e-9))
	name := fmt.Sprintf("dynamodb-exporter-peak-%02d%02d", pk.StartMinute/60%24, pk.StartMinute%60)
	cron := dailyCron
	if pk.Weekly {
		name = fmt.Sprintf("dynamodb-exporter-peak-%s-%02d%02d", strings.ToLower(pk.Weekday.String()[:3]), pk.StartMinute/60%24, pk.StartMinute%60)
		cron = func(minute int) string { return weeklyCron(pk.Weekday, minute) }
	}
	return ScheduleProposal{
		Weekly:      pk.Weekly,
		LeadMinutes: lead,
		Raise:       ScheduledAction{Name: name + "-raise", Schedule: cron(raiseAt), Min: need},
		Lower:       ScheduledAction{Name: name + "-lower", Schedule: cron(lowerAt), Min: a.Min},
	}
}

// WithSchedule returns a copy of a with the proposal's two actions added
// to its scheduled actions.
func (p ScheduleProposal) WithSchedule(a AutoScalingSettings) AutoScalingSettings {
	a.Scheduled = append(slices.Clip(a.Scheduled), p.Raise, p.Lower)
	return a
}

// propose builds the scheduled actions of a recurring peak and simulates
// the policy without and with them.
func propose(s Series, a AutoScalingSettings, rule PeakRule, unitHour float64, pk Peaks) (ScheduleProposal, error) {
	p := ProposeSchedule(pk, a, rule)
	p.Covered = time.Duration(len(s.Sum)) * time.Minute
	hours := float64(len(s.Sum)) / 60
	run := func(a AutoScalingSettings) (WhatIf, error) {
		sim, err := SimulateProvisioned(s, a)
		if err != nil {
			return WhatIf{}, err
		}
		return WhatIf{ThrottledUnits: sim.ThrottledUnits, UnitHours: sim.UnitHours, MonthlyCost: Monthly(sim.UnitHours*unitHour, hours)}, nil
	}
	var err error
	if p.Without, err = run(a); err != nil {
		return ScheduleProposal{}, err
	}
	if p.With, err = run(p.WithSchedule(a)); err != nil {
		return ScheduleProposal{}, err
	}
	return p, nil
}

// dailyCron is the Application Auto Scaling cron expression running every
// day at a minute of the UTC day (taken modulo a day).
func dailyCron(minute int) string {
	minute = (minute%1440 + 1440) % 1440
	return fmt.Sprintf("cron(%d %d * * ? *)", minute%60, minute/60)
}

// weeklyCron is the Application Auto Scaling cron expression running every
// week at a minute of weekday wd's UTC day; a minute before it or past its
// end falls on the day before or after. Day of week 1-7 is SUN-SAT.
func weeklyCron(wd time.Weekday, minute int) string {
	day := (int(wd) + int(math.Floor(float64(minute)/1440))%7 + 7) % 7
	minute = (minute%1440 + 1440) % 1440
	return fmt.Sprintf("cron(%d %d ? * %d *)", minute%60, minute/60, day+1)
}
