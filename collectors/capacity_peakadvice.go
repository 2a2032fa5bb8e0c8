// Serving a peak, four ways (issue 22, part 1; the rules are in
// capacity/peaks.go): for every table and GSI, read and write, how its
// peaks are best served, from its own minutes:
//
//   - the classification (recurring, ramping, flash, steady, or unknown
//     while the history holds fewer whole days than the rule needs) comes
//     from a capacity.PeakTracker each history keeps (about 1 KB),
//     built from the first fetch's minutes and fed every settled minute
//     after it;
//   - a recurring peak that the dimension's policy (its own, or the
//     default one for an on-demand table) throttles or saturates in the
//     cost what-if's simulation gets the scheduled actions that serve it
//     (capacity.ProposeSchedule) and their what-if: that simulation
//     without the actions, and one with them (peakRun), over the same
//     minutes. The run starts 7 days back on the first fetch (its minutes
//     are at hand) and at the current minute when a proposal appears or
//     changes later (the history then holds hours only), so that the
//     what-if covers at most the last 7 days and, for a new proposal, the
//     minutes since it stands: the advice waits until it covers
//     capacity.MinScheduleWhatIf.
//
// A proposal stands while the dimension stays recurring, its raise starts
// within proposalSlack of the standing one and its MinCapacity is within
// 10%: a day's peak a little higher or earlier does not restart the
// what-if.

package collectors

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// peakRule is the rule of the peak classification.
var peakRule = capacity.DefaultPeakRule()

// proposalSlack is how far the start of a new proposal may move from the
// standing one's and still be the same proposal.
const proposalSlack = 15

// PeakFigures are how the peaks of a table (Index "") or GSI are best
// served, read then write.
type PeakFigures struct {
	Index string
	// Peaks is the classification; its Proposal, for a recurring peak on a
	// dimension with a policy, holds the scheduled actions and their
	// what-if over Proposal.Covered. Peaks[k].Advice() is what to do
	// (computed when asked: its sentences are not kept).
	Peaks [2]capacity.Peaks
}

// peakRun is the what-if of the proposals of one table or GSI: its
// policies with the proposed scheduled actions, simulated minute by minute
// (peakSim). Without them is the cost what-if's own simulation (whatIf),
// read over the same minutes.
type peakRun struct {
	// base is the table's settings the run was started for.
	base      capacity.Settings
	proposals [2]*capacity.ScheduleProposal
	// from is the run's first minute.
	from    time.Time
	withRun peakSim
}

// peakDays is how many UTC days a peakSim keeps: the 7 whole days of the
// what-if and the current one.
const peakDays = 8

// peakSim is one simulation of a peakRun: the stream's state (about 1.4
// KB with the proposed schedules) and, for each of the last peakDays UTC
// days, what it did (224 bytes, where a cost what-if keeps its hours for
// 30 days).
type peakSim struct {
	stream *capacity.DiagnosisStream
	days   [peakDays]peakDay
}

// peakDay is what a peakSim did in one UTC day, read then write (float32:
// a day's unit-minutes are whole units, exact to 16.7 million).
type peakDay struct {
	day                               int32 // days since the Unix epoch; 0 while unused
	throttled, saturated, unitMinutes [2]float32
}

// step simulates minute m (minutes since the Unix epoch).
func (p *peakSim) step(m int32, read, write float64) {
	out := p.stream.Step(read, write)
	d := p.dayOf(m / 1440)
	for k, o := range out {
		d.throttled[k] += float32(o.Throttled)
		d.unitMinutes[k] += float32(o.Capacity)
		if o.Saturated {
			d.saturated[k]++
		}
	}
}

// dayOf returns the record of day (days since the Unix epoch), reusing
// the oldest's.
func (p *peakSim) dayOf(day int32) *peakDay {
	d := &p.days[int(day)%peakDays]
	if d.day != day {
		*d = peakDay{day: day}
	}
	return d
}

// advance simulates the minutes from the stream's next to to.
func (p *peakSim) advance(read, write *history, to time.Time) {
	eachMinute(read, write, p.stream.Next(), to, p.step)
}

// whatIf sums dimension k over the days from (days since the Unix epoch)
// on.
func (p *peakSim) whatIf(k int, from int32) capacity.WhatIf {
	var w capacity.WhatIf
	for _, d := range p.days {
		if d.day != 0 && d.day >= from {
			w.ThrottledUnits += float64(d.throttled[k])
			w.SaturatedMinutes += float64(d.saturated[k])
			w.UnitHours += float64(d.unitMinutes[k]) / 60
		}
	}
	return w
}

// peakTracker returns the history's peak tracker fed with the minutes
// settled at end, building it on a first fetch from the staged minutes
// of the days it keeps and one more (29: 4 weeks for a weekly peak; the
// minutes of days 16 on are the 5-minute tier's, spread evenly); nil when it cannot be built (no staged
// minutes) or lost a minute.
func (h *history) peakTracker(end time.Time) *capacity.PeakTracker {
	settled := settledAt(end)
	if h.tracker == nil && h.staged != nil {
		from := settled.Add(-time.Duration(max(peakRule.Days, 7*peakRule.Weeks)+1) * day).Truncate(day)
		if s := h.staged.hour.start; from.Before(s) {
			from = s
		}
		if !from.Before(settled) {
			return nil
		}
		t, err := capacity.NewPeakTracker(from, peakRule)
		if err != nil {
			return nil
		}
		for _, v := range h.staged.perMinute(from, settled) {
			t.Add(v)
		}
		h.tracker, h.trackNext = t, settled
	}
	h.feedTracker(settled)
	return h.tracker
}

// feedTracker gives the tracker of a compact history its minutes up to
// settled; a minute the history no longer holds (older than its tail)
// loses the tracker, which the next fetch of the whole history rebuilds.
func (h *history) feedTracker(settled time.Time) {
	if h.tracker == nil || h.staged != nil {
		return
	}
	if h.trackNext.Before(h.tail0) {
		h.tracker = nil
		return
	}
	for ; h.trackNext.Before(settled) && h.trackNext.Before(h.end()); h.trackNext = h.trackNext.Add(time.Minute) {
		h.tracker.Add(float64(h.tail[int(h.trackNext.Sub(h.tail0)/time.Minute)]))
	}
}

// policyOf returns the auto-scaling policy a dimension is simulated with:
// its own, the defaults for a dimension without provisioning (an
// on-demand table), or nil for a fixed provisioned capacity.
func (c *Capacity) policyOf(p capacity.Provisioning) *capacity.AutoScalingSettings {
	switch {
	case p.AutoScaling != nil:
		return p.AutoScaling
	case p.Fixed > 0:
		return nil
	case c.settings.Options.DefaultAutoScaling != nil:
		return c.settings.Options.DefaultAutoScaling
	}
	d := capacity.DefaultAutoScaling()
	return &d
}

// sameProposal reports whether the new proposal q is the standing one p
// (proposalSlack and 10% of MinCapacity apart at most, on the same days).
func sameProposal(p, q *capacity.ScheduleProposal) bool {
	if p == nil || q == nil {
		return p == q
	}
	start := func(x *capacity.ScheduleProposal) int { return cronMinute(x.Raise.Schedule) }
	days := func(x *capacity.ScheduleProposal) string {
		if f := strings.Fields(x.Raise.Schedule); len(f) > 2 {
			return strings.Join(f[2:], " ")
		}
		return ""
	}
	d := (start(p) - start(q) + 1440) % 1440
	return min(d, 1440-d) <= proposalSlack && days(p) == days(q) && math.Abs(p.Raise.Min-q.Raise.Min) <= 0.1*p.Raise.Min && p.Lower.Min == q.Lower.Min
}

// cronMinute is the minute of the UTC day of a daily cron of
// capacity.ProposeSchedule ("cron(M H * * ? *)"), -1 for another form.
func cronMinute(s string) int {
	var m, h int
	if n, _ := fmt.Sscanf(s, "cron(%d %d", &m, &h); n < 2 {
		return -1
	}
	return h*60 + m
}

// peakFigures derives how the peaks of a table and its GSIs are best
// served, advancing their proposals' what-ifs to end.
func (c *Capacity) peakFigures(st *capacityState, tb *Table, prices *capacity.Prices, end time.Time) []PeakFigures {
	if st.peakRuns == nil {
		st.peakRuns = map[historyKey]*peakRun{}
	}
	var out []PeakFigures
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		rk, wk := historyKey{table: tb.Name, index: idx}, historyKey{table: tb.Name, index: idx, write: true}
		read, write := st.hist[rk], st.hist[wk]
		if read == nil || write == nil {
			continue
		}
		e := end
		for _, h := range []*history{read, write} {
			if he := h.end(); he.Before(e) {
				e = he
			}
		}
		base := settingsFor(tb, idx, st.scaling, c.settings.ScaleOutDelay)
		with := base
		f := PeakFigures{Index: idx}
		// The cost what-if's simulation of the policy alone, advanced to
		// the same settled minute, over the last 7 days.
		w := st.whatIf[rk]
		settled := settledAt(e)
		if w != nil && !w.stream.Next().Equal(settled) {
			w = nil
		}
		lo, hi := minuteIndex(settled.Truncate(day).Add(-scalingWindow)), minuteIndex(settled)
		var proposals [2]*capacity.ScheduleProposal
		for k, h := range []*history{read, write} {
			prov := &with.Read
			if k == 1 {
				prov = &with.Write
			}
			policy := c.policyOf(*prov)
			pk := capacity.Peaks{Kind: capacity.PeakUnknown, Reason: "the history's minutes are not held (a refresh lost one): it is fetched again"}
			if t := h.peakTracker(e); t != nil {
				a := capacity.DefaultAutoScaling()
				if policy != nil {
					a = *policy
				}
				pk = t.Peaks(a)
			}
			f.Peaks[k] = pk
			if pk.Kind != capacity.PeakRecurring {
				continue
			}
			if policy == nil {
				f.Peaks[k].NoPolicy = true
				continue
			}
			p := capacity.ProposeSchedule(pk, *policy, peakRule)
			switch {
			case w == nil:
				// No what-if of the policy to compare with (an unknown
				// billing mode, a history shorter than a cost window):
				// the proposal is unjudged.
				f.Peaks[k].Proposal = &p
			case !needsSchedule(w, k, lo, hi, pk.Weekly):
				// The policy alone neither throttles nor saturates over
				// the 7 days: nothing for a proposal to avoid (served),
				// and no simulation to keep.
			default:
				proposals[k] = &p
				a := p.WithSchedule(*policy)
				prov.AutoScaling = &a
			}
		}
		run := st.peakRuns[rk]
		if proposals[0] == nil && proposals[1] == nil {
			delete(st.peakRuns, rk)
		} else {
			if run == nil || !sameSettings(run.base, base) || !sameProposal(run.proposals[0], proposals[0]) || !sameProposal(run.proposals[1], proposals[1]) {
				run = c.startPeakRun(read, write, base, with, proposals, e)
				if run == nil {
					delete(st.peakRuns, rk)
				} else {
					st.peakRuns[rk] = run
				}
			}
			if run != nil {
				c.judgePeakRun(run, w, read, write, prices, e, &f)
			}
		}
		out = append(out, f)
	}
	return out
}

// needsSchedule reports whether the cost what-if w of the policy alone
// throttles at least half a unit or saturates at least a minute a peak
// (capacity.MinSaturatedMinutes) of dimension k over minutes [lo, hi):
// only then can a proposal avoid anything (ScheduleProposal.Worthwhile).
func needsSchedule(w *whatIf, k int, lo, hi int32, weekly bool) bool {
	if w.dims[k].window(lo, hi).ThrottledUnits >= 0.5 {
		return true
	}
	return w.dims[k].diagnosed && w.dims[k].diagnosis(lo, hi).SaturatedMinutes.Total() >= capacity.MinSaturatedMinutes(time.Duration(hi-lo)*time.Minute, weekly)
}

// startPeakRun starts the what-if of proposals: 7 days back while the
// history holds its minutes (a first fetch), else at the settled end.
func (c *Capacity) startPeakRun(read, write *history, base, with capacity.Settings, proposals [2]*capacity.ScheduleProposal, end time.Time) *peakRun {
	settled := settledAt(end)
	from := settled
	if read.staged != nil && write.staged != nil {
		from = firstActive(read, write, settled.Add(-scalingWindow).Truncate(day), settled)
	}
	first := capacity.ReadWrite{Read: read.perMinute(from, from.Add(time.Minute))[0], Write: write.perMinute(from, from.Add(time.Minute))[0]}
	st, err := capacity.NewDiagnosisStream(from, with, c.settings.Options.DefaultAutoScaling, first, false)
	if err != nil {
		return nil
	}
	return &peakRun{base: base, proposals: proposals, from: from, withRun: peakSim{stream: st}}
}

// judgePeakRun advances the run to end and fills the proposals' what-ifs
// into f: the standing proposals (which may differ from the day's within
// sameProposal) over the minutes the run simulated from the start of the
// UTC day 7 days back, without them read off the cost what-if w (advanced
// to the same settled minute); nothing without w.
func (c *Capacity) judgePeakRun(run *peakRun, w *whatIf, read, write *history, prices *capacity.Prices, end time.Time, f *PeakFigures) {
	settled := settledAt(end)
	run.withRun.advance(read, write, settled)
	if w == nil || !w.stream.Next().Equal(settled) {
		return
	}
	from := settled.Truncate(day).Add(-scalingWindow)
	if run.from.After(from) {
		from = run.from
	}
	covered := max(0, settled.Sub(from))
	lo, hi := minuteIndex(from), minuteIndex(settled)
	for k, p := range run.proposals {
		if p == nil || f.Peaks[k].Kind != capacity.PeakRecurring {
			continue
		}
		q := *p
		q.Covered = covered
		unitHour := math.NaN()
		if prices != nil {
			unitHour = prices.ProvisionedRCUHour
			if k == 1 {
				unitHour = prices.ProvisionedWCUHour
			}
		}
		sim := w.dims[k].window(lo, hi)
		q.Without = capacity.WhatIf{ThrottledUnits: sim.ThrottledUnits, UnitHours: sim.UnitHours}
		if w.dims[k].diagnosed {
			q.Without.SaturatedMinutes = w.dims[k].diagnosis(lo, hi).SaturatedMinutes.Total()
		}
		q.With = run.withRun.whatIf(k, int32(from.Unix()/86400))
		for _, x := range []*capacity.WhatIf{&q.Without, &q.With} {
			x.MonthlyCost = capacity.Monthly(x.UnitHours*unitHour, covered.Hours())
		}
		f.Peaks[k].Proposal = &q
	}
}
