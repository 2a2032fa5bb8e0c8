package capacity

import (
	"math"
	"time"
)

// SimulateProvisioned simulates target-tracking auto-scaling of one dimension
// alone (its decreases counted against a budget of its own; SimulateTable
// shares the budget between read and write, as DynamoDB does). The rules
// follow DynamoDB auto-scaling and AWS's capacity-mode evaluator, with a
// scale-out delay:
//
//   - Utilization of a minute is its demand (Sum ÷ 60) over the capacity in
//     effect during that minute.
//   - Scale-out: at the end of a minute that makes ScaleOutPoints (2)
//     consecutive minutes above Target, capacity is set to demand ÷ Target
//     (rounded up, at most Max) if that exceeds the capacity in effect and any
//     pending scale-out, and ScaleOutCooldown has passed since the previous
//     scale-out decision. The new capacity serves minutes from ScaleOutDelay
//     after the decision (the next minute when the delay is zero).
//   - Scale-in: at the end of a minute that makes ScaleInPoints (15)
//     consecutive minutes at the same capacity with utilization below
//     Target − ScaleInMargin (50% at a 70% target), with no scale-out
//     pending, scale-in enabled and ScaleInCooldown passed since the previous
//     scale-in, capacity is set for the next minute to the highest demand of
//     those 15 minutes ÷ Target (rounded up, at least Min), if that is lower
//     and DynamoDB allows a decrease: FreeDecreasesPerDay per UTC day at any
//     time, then one when there was none in the preceding hour. The level is
//     the one of AWS's capacity-mode evaluator (awslabs/amazon-dynamodb-tools,
//     capacity-mode-evaluator: the maximum consumed of the last 15 minutes
//     divided by the target utilization).
//   - Scheduled actions (AutoScalingSettings.Scheduled) run at the start of
//     the minute their schedule names (ParseSchedule): the scalable target's
//     Min and/or Max become the action's ("At the scheduled time, if the
//     current capacity is below the minimum capacity, Application Auto
//     Scaling scales out to the minimum capacity. If the current capacity is
//     above the maximum capacity, Application Auto Scaling scales in to the
//     maximum capacity": AWS CloudFormation, AWS::ApplicationAutoScaling::
//     ScalableTarget ScalableTargetAction; Application Auto Scaling user
//     guide, "Scheduled scaling"). The raise to Min is in effect from the
//     action's own minute: no CloudWatch datapoint nor alarm stands between
//     the schedule and the UpdateTable, which serves the new capacity within
//     seconds to minutes (as the simulator states it too); a proposed
//     action's lead time (ScaleOutDelay plus a margin) covers a slower one.
//     The fall
//     to Max is a decrease, taken at the end of the action's minute like a
//     scale-in: it counts against the decrease budget and, when DynamoDB
//     allows none, is tried again each minute. An action whose Min
//     exceeds the Max in effect raises Max to it. Target tracking then acts
//     within the new bounds; a lowered Min lowers nothing by itself.
//   - Demand above capacity, after BurstSeconds of banked unused capacity,
//     is throttled. Decisions use the trace's demand, not the throttled
//     consumption CloudWatch would show, as AWS's evaluator does.
func SimulateProvisioned(s Series, a AutoScalingSettings) (Simulation, error) {
	if err := s.Validate(); err != nil {
		return Simulation{}, err
	}
	if err := a.Validate(); err != nil {
		return Simulation{}, err
	}
	sim := newSimulation(s)
	d := newScaler(s.Sum[0], a, &sim)
	simulate(s.Start, [][]float64{s.Sum}, d)
	return sim, nil
}

// TableSimulation is the provisioned simulation of both dimensions of one
// table or GSI.
type TableSimulation struct {
	// Read and Write are the simulations of each dimension.
	Read, Write Simulation
	// ReadMethod and WriteMethod say how each was modelled.
	ReadMethod, WriteMethod Method
}

// SimulateTable simulates the provisioned capacity of one table or GSI as
// its Settings say (a dimension without auto-scaling nor fixed capacity
// takes defaults). Both dimensions run minute by minute together because
// DynamoDB's decrease limits (FreeDecreasesPerDay, then one an hour) count
// per table or GSI: a decrease of read, write or both in the same minute
// counts once, and a read decrease uses up the budget of the write.
func SimulateTable(t Trace, s Settings, defaults AutoScalingSettings) (TableSimulation, error) {
	if err := t.Validate(); err != nil {
		return TableSimulation{}, err
	}
	var out TableSimulation
	var dims [2]*scaler
	var sums [2][]float64
	var sims [2]Simulation
	for k, dim := range []struct {
		p      Provisioning
		field  string
		method *Method
	}{{s.Read, "Settings.Read", &out.ReadMethod}, {s.Write, "Settings.Write", &out.WriteMethod}} {
		if err := dim.p.validate(dim.field); err != nil {
			return TableSimulation{}, err
		}
		series := t.Series(Dimension(k))
		sums[k], sims[k] = series.Sum, newSimulation(series)
		d, method, err := dimension(dim.p, defaults, series.Sum[0], &sims[k])
		if err != nil {
			return TableSimulation{}, err
		}
		dims[k], *dim.method = d, method
	}
	simulate(t.Start, sums[:], dims[0], dims[1])
	out.Read, out.Write = sims[0], sims[1]
	return out, nil
}

// dimension returns the scaler of one dimension as its provisioning says,
// starting from the demand of its first minute, recording into sim (nil:
// a stream, which records nothing).
func dimension(p Provisioning, defaults AutoScalingSettings, first float64, sim *Simulation) (*scaler, Method, error) {
	switch {
	case p.AutoScaling != nil:
		return newScaler(first, *p.AutoScaling, sim), MethodAutoScaling, nil
	case p.Fixed > 0:
		return newFixed(p.Fixed, sim), MethodFixed, nil
	}
	if err := defaults.Validate(); err != nil {
		return nil, "", err
	}
	return newScaler(first, defaults, sim), MethodDefaultAutoScaling, nil
}

// scaler is the state of one dimension during a simulation.
type scaler struct {
	a       AutoScalingSettings
	scaling bool // false: a fixed capacity
	delay   int
	outCool int
	inCool  int
	c       float64
	burst   burstBucket
	pending []ScalingEvent // decided scale-outs, not yet in effect
	above   int            // consecutive minutes above target
	below   int            // consecutive minutes below the scale-in threshold
	lastOut int
	lastIn  int
	// recent holds the demand (Sum) of the last ScaleInPoints minutes, minute
	// i at i mod ScaleInPoints.
	recent [ScaleInPoints]float64
	// sim records every minute (a batch simulation); nil in a stream.
	sim *Simulation
	// out is the outcome of the latest minute.
	out MinuteOutcome
	// sched are the parsed schedules of a.Scheduled, in the same order.
	sched []*Schedule
}

func newScaler(first float64, a AutoScalingSettings, sim *Simulation) *scaler {
	c := a.clamp(a.Initial)
	if a.Initial == 0 {
		c = a.desired(first / 60)
	}
	d := &scaler{
		a: a, scaling: true, c: c, burst: fullBurst(c), sim: sim,
		delay: ceilMinutes(a.ScaleOutDelay), outCool: ceilMinutes(a.ScaleOutCooldown), inCool: ceilMinutes(a.ScaleInCooldown),
		lastOut: math.MinInt32, lastIn: math.MinInt32,
	}
	for _, act := range a.Scheduled {
		// a was validated: every schedule parses.
		if sc, err := act.ParseSchedule(); err == nil {
			d.sched = append(d.sched, sc)
		}
	}
	return d
}

func newFixed(capacity float64, sim *Simulation) *scaler {
	return &scaler{c: capacity, burst: fullBurst(capacity), sim: sim}
}

// simulate runs the dimensions of one table or GSI over the minutes of
// sums (one series per dimension) from start, with one decrease budget for
// all of them.
func simulate(start time.Time, sums [][]float64, dims ...*scaler) {
	t := tableStep{start: start, dims: dims, sums: make([]float64, len(dims))}
	t.scheduled = t.hasSchedules()
	for i := range len(sums[0]) {
		for k := range dims {
			t.sums[k] = sums[k][i]
		}
		t.minute(i)
	}
	for _, d := range dims {
		d.sim.finish()
	}
}

// tableStep advances the dimensions of one table or GSI a minute at a time,
// with one decrease budget for all of them.
type tableStep struct {
	start  time.Time
	budget decreaseBudget
	dims   []*scaler
	// sums holds the demand of each dimension for the next minute.
	sums  []float64
	ins   []*scaler
	wants []float64
	// scheduled is true when a dimension has scheduled actions.
	scheduled bool
}

func (t *tableStep) hasSchedules() bool {
	for _, d := range t.dims {
		if len(d.sched) > 0 {
			return true
		}
	}
	return false
}

// minute serves minute i (demand in t.sums) and takes the decisions at its
// end.
func (t *tableStep) minute(i int) {
	ins, wants := t.ins[:0], t.wants[:0]
	for k, d := range t.dims {
		if t.scheduled && len(d.sched) > 0 {
			d.runScheduled(i, t.start.Add(time.Duration(i)*time.Minute))
		}
		d.step(i, t.sums[k])
		if want, ok := d.scaleIn(i); ok {
			ins, wants = append(ins, d), append(wants, want)
		}
	}
	t.ins, t.wants = ins, wants
	if len(ins) == 0 {
		return
	}
	// Decided at the end of minute i, effective from the next one.
	at := t.start.Add(time.Duration(i+1) * time.Minute)
	if !t.budget.allow(at) {
		return
	}
	t.budget.record(at)
	for k, d := range ins {
		if d.sim != nil {
			d.sim.Events = append(d.sim.Events, ScalingEvent{Minute: i, Effective: i + 1, From: d.c, To: wants[k]})
			d.sim.ScaleIns++
		}
		d.out.ScaleIn = true
		d.c, d.below, d.lastIn = wants[k], 0, i
	}
}

// runScheduled applies the scheduled actions that run in minute i, which
// begins at at: their Min and Max become the bounds, and a capacity below
// the new Min is raised to it from minute i.
func (d *scaler) runScheduled(i int, at time.Time) {
	fired := false
	for k, sc := range d.sched {
		if !sc.Fires(at) {
			continue
		}
		act := d.a.Scheduled[k]
		if act.Min > 0 {
			d.a.Min = act.Min
		}
		if act.Max > 0 {
			d.a.Max = act.Max
		}
		d.a.Max = math.Max(d.a.Max, d.a.Min)
		fired = true
	}
	if !fired {
		return
	}
	top := d.c
	if len(d.pending) > 0 {
		top = math.Max(top, d.pending[len(d.pending)-1].To)
	}
	if d.a.Min > top {
		// In effect from the action's own minute: every pending scale-out
		// takes effect at i or later, so the raise goes first.
		ev := ScalingEvent{Minute: i, Effective: i, From: d.c, To: d.a.Min, Scheduled: true}
		d.pending = append(d.pending, ScalingEvent{})
		copy(d.pending[1:], d.pending)
		d.pending[0] = ev
		if d.sim != nil {
			d.sim.Events = append(d.sim.Events, ev) // not a policy decision: not in ScaleOuts
		}
	}
}

// step serves minute i, whose demand is sum, at the capacity in effect and
// takes the scale-out decision at its end.
func (d *scaler) step(i int, sum float64) {
	for len(d.pending) > 0 && d.pending[0].Effective <= i {
		// A scheduled action may have lowered Max since the decision.
		if to := math.Min(d.pending[0].To, d.a.Max); to > d.c {
			d.c, d.below = to, 0
		}
		d.pending = d.pending[1:]
	}
	d.recent[i%ScaleInPoints] = sum
	d.out = MinuteOutcome{Capacity: d.c, Throttled: d.burst.serve(sum, d.c)}
	d.out.BurstSpent = d.burst.spent(d.c)
	if d.sim != nil {
		d.sim.account(i, d.c, d.out.Throttled, d.out.BurstSpent)
	}
	if !d.scaling {
		return
	}
	a := d.a
	u := sum / 60
	// c > Max only in the minutes before a scheduled action's lowered Max
	// is applied; at c == Max this is u > Target × Max.
	if d.c >= a.Max && u > a.Target*d.c {
		d.out.AtMax = true
		if d.sim != nil {
			d.sim.MinutesAtMax++
			d.sim.atMax[i] = true
		}
	}
	d.above, d.below = countRun(d.above, u > a.Target*d.c), countRun(d.below, u < a.scaleInBelow()*d.c)
	if d.above < ScaleOutPoints || i-d.lastOut < d.outCool {
		return
	}
	top := d.c
	if len(d.pending) > 0 {
		top = d.pending[len(d.pending)-1].To
	}
	if want := a.desired(u); want > top {
		ev := ScalingEvent{Minute: i, Effective: i + 1 + d.delay, From: d.c, To: want}
		d.pending = append(d.pending, ev)
		if d.sim != nil {
			d.sim.Events = append(d.sim.Events, ev)
			d.sim.ScaleOuts++
		}
		d.out.ScaleOut = true
		d.lastOut = i
	}
}

// scaleIn returns the capacity a scale-in decided at the end of minute i
// would set, if the policy wants one: the highest demand of the last
// ScaleInPoints minutes ÷ Target.
func (d *scaler) scaleIn(i int) (float64, bool) {
	if d.scaling && d.c > d.a.Max { // a scheduled action lowered Max
		return d.a.Max, true
	}
	if !d.scaling || d.a.DisableScaleIn || len(d.pending) > 0 || d.below < ScaleInPoints || i-d.lastIn < d.inCool {
		return 0, false
	}
	var peak float64
	for _, v := range d.recent {
		peak = math.Max(peak, v/60)
	}
	want := d.a.desired(peak)
	return want, want < d.c
}

// countRun extends a run of consecutive minutes or resets it.
func countRun(run int, hit bool) int {
	if hit {
		return run + 1
	}
	return 0
}

// ceilMinutes converts a duration to whole minutes, rounding up.
func ceilMinutes(d time.Duration) int {
	return int((d + time.Minute - 1) / time.Minute)
}

// decreaseBudget enforces DynamoDB's limit on capacity decreases for one
// table or GSI: FreeDecreasesPerDay per UTC day at any time, then one per
// hour when none happened in the preceding hour.
type decreaseBudget struct {
	day   time.Time // UTC midnight of the day being counted
	count int       // decreases so far that day
	last  time.Time // time of the latest decrease
}

// allow reports whether a decrease is allowed at t.
func (b *decreaseBudget) allow(t time.Time) bool {
	t = t.UTC()
	if day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC); !day.Equal(b.day) {
		b.day, b.count = day, 0
	}
	return b.count < FreeDecreasesPerDay || t.Sub(b.last) >= time.Hour
}

// record counts a decrease at t; allow(t) must have been called first.
func (b *decreaseBudget) record(t time.Time) {
	b.count++
	b.last = t
}
