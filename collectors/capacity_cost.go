// Cost what-if of the capacity collector: the table's real auto-scaling
// settings (Application Auto Scaling), its provisioning, and the capacity
// model's evaluation of a window of consumed history in both billing modes.
package collectors

import (
	"math"
	"math/bits"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/packedsums"
)

// CostWindows are the windows of the cost what-if, by label value.
var CostWindows = []struct {
	Label string
	D     time.Duration
}{{"7d", 7 * day}, {"30d", 30 * day}}

// whatIfWarmup is how much history before the longest window the what-if
// simulates only to warm its state up (capacity, burst credit, the day's
// decreases).
const whatIfWarmup = day

// whatIfStart returns where the what-if's simulation starts when it starts
// (the first run, or after a change of settings) for history ending at end:
// the UTC midnight at least whatIfWarmup before the longest window. Every
// window is read off that one run, which then runs on (whatIf), so a window
// does not start cold at whatever minute it happens to begin. Starting at
// midnight also starts DynamoDB's daily decrease count where it starts.
func whatIfStart(end time.Time) time.Time {
	longest := CostWindows[0].D
	for _, w := range CostWindows {
		longest = max(longest, w.D)
	}
	return end.Add(-longest - whatIfWarmup).UTC().Truncate(day)
}

// provisioning returns how one dimension of a table or GSI is modelled in
// provisioned mode: its own target-tracking policy when it has one (with the
// configured scale-out delay), else its fixed provisioned capacity when the
// table is provisioned, else the default auto-scaling (zero Provisioning).
// An on-demand table keeps its policy's target and cooldowns but not its
// minimum and maximum: those were sized for the traffic before the switch
// (a table moved to on-demand after a surge would otherwise be simulated
// against its old, far too low maximum); the defaults apply instead.
func provisioning(p scalingPolicy, havePolicy bool, provisioned bool, fixed int64, delay time.Duration) capacity.Provisioning {
	if havePolicy && p.hasPolicy && p.hasTarget {
		a := capacity.AutoScalingSettings{
			Target: p.target, Min: max(1, p.min), Max: max(1, p.min, p.max),
			ScaleInCooldown: p.in, ScaleOutCooldown: p.out, DisableScaleIn: p.noScaleIn,
			ScaleOutDelay: delay,
		}
		if !provisioned {
			d := capacity.DefaultAutoScaling()
			a.Min, a.Max = d.Min, d.Max
		} else {
			// The scheduled actions move the bounds the table has: the
			// what-if includes them (an on-demand table's were sized, as
			// its bounds, for the traffic before the switch).
			a.Scheduled = p.scheduled
		}
		if a.Validate() == nil {
			return capacity.Provisioning{AutoScaling: &a}
		}
	}
	if provisioned && fixed > 0 {
		return capacity.Provisioning{Fixed: float64(fixed)}
	}
	return capacity.Provisioning{}
}

// settingsFor returns the provisioning of a table (index "") or GSI.
func settingsFor(tb *Table, index string, scaling map[ScalingResource]scalingPolicy, delay time.Duration) capacity.Settings {
	provisioned := tb.BillingMode() == string(capacity.Provisioned)
	var rcu, wcu int64
	if d := tb.Description; d != nil {
		if index == "" && d.ProvisionedThroughput != nil {
			rcu, wcu = aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits)
		}
		for _, g := range d.GlobalSecondaryIndexes {
			if index != "" && aws.ToString(g.IndexName) == index && g.ProvisionedThroughput != nil {
				rcu, wcu = aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits)
			}
		}
	}
	rp, rok := scaling[ScalingResource{Table: tb.Name, Index: index, Dimension: "read"}]
	wp, wok := scaling[ScalingResource{Table: tb.Name, Index: index, Dimension: "write"}]
	return capacity.Settings{
		Read:  provisioning(rp, rok, provisioned, rcu, delay),
		Write: provisioning(wp, wok, provisioned, wcu, delay),
	}
}

// tableClass returns the table's class (STANDARD when not reported).
func tableClass(tb *Table) capacity.TableClass {
	if d := tb.Description; d != nil && d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
		return capacity.TableClass(d.TableClassSummary.TableClass)
	}
	return capacity.Standard
}

// WindowCost is the cost what-if of one table over one window.
type WindowCost struct {
	// Window is the label value: 7d or 30d.
	Window string
	// Covered is the history the trace covers (shorter than the window for a
	// young table).
	Covered time.Duration
	// Evaluation is the capacity model's verdict. Its workloads'
	// simulations hold the window's totals only (UnitHours, Demand,
	// ThrottledUnits, ThrottledMinutes, MinutesAtMax): no per-minute arrays,
	// HourlyMean, PeakDemand nor scaling decisions (the running what-if does
	// not keep them).
	Evaluation capacity.Evaluation
	// Unpriced is true in a region without prices (no list price and no
	// override): Evaluation is then empty and no cost figure is published,
	// but the simulation ran and Diagnosis holds what it saw.
	Unpriced bool
	// Diagnosis holds, for a provisioned table, the diagnosis of the base
	// table then of each GSI over the window (as Traffic); nil for an
	// on-demand table. ScalingDecisions is NaN in a window longer than
	// scalingWindow (the what-if keeps its decisions for that long only).
	Diagnosis []IndexDiagnosis
}

// minTrace is the shortest history the cost model evaluates.
const minTrace = time.Hour

// scalingWindow is the window of the simulated scaling decisions and
// utilization (scalingWindowLabel); the what-if keeps its decisions per
// hour for that long only.
const (
	scalingWindow      = 7 * day
	scalingWindowLabel = "7d"
)

// IndexDiagnosis is the diagnosis of the simulated throttling of the base
// table (Index "") or a GSI over a window (capacity.DiagnoseTable): the
// throttled units of the current policy by cause, the latest minute of
// each, and the scaling decisions, demand and capacity of the simulation.
// A dimension speaks of the table's own policy only when its method is
// capacity.MethodAutoScaling.
type IndexDiagnosis struct {
	Index string
	capacity.TableDiagnosis
}

// whatIf is the running auto-scaling what-if of one table or GSI: the
// capacity model's simulation (capacity.DiagnosisStream) advanced with each
// settled minute, and of its outcomes only what the cost windows, the
// diagnosis and the chart read (simRecord): about 3 KB per dimension for
// 31 days, instead of the 30 days of per-minute arrays re-simulated every
// cycle.
//
// On a provisioned table, the dimensions its own policy scales are
// diagnosed (capacity.Attribute, capacity.SaturationCause): the throttled
// hours whose causes their simHour cannot tell keep a causeSplit, the
// quarters of an hour with saturated minutes a satQuarter, the last 7 days
// the scaling decisions of each hour, and a dimension whose target is
// above 70% runs a second simulation at 70% beside the first (its state
// only, a few hundred bytes). An on-demand table records none of it.
//
// The simulation starts where the what-if's first run starts (whatIfStart)
// and then runs on: the windows are read off one continuous run, so a
// figure does not move when the start of the run would (once a UTC day).
// A change of the table's provisioning settings (its policy, its mode)
// fetches the table's history again and starts a new run, as the first
// one. The minutes after the settled ones (which CloudWatch may revise)
// are simulated on a copy each cycle.
type whatIf struct {
	// from is where the run was asked to start (whatIfStart, or the
	// table's data); the simulation starts at the first minute with
	// consumption from there on (firstActive).
	from        time.Time
	settings    capacity.Settings
	provisioned bool
	stream      *capacity.DiagnosisStream
	dims        [2]simRecord
}

// runs reports whether the what-if runs the settings s of a table in the
// mode provisioned says.
func (w *whatIf) runs(s capacity.Settings, provisioned bool) bool {
	return sameSettings(w.settings, s) && w.provisioned == provisioned
}

// simRecord is what a dimension's simulation did, hour by hour (hour
// index: minuteIndex / 60): the capacity summed over the simulated minutes
// of each hour (unit-minutes, float32: exact for whole capacities below
// 16.7 million unit-minutes an hour) and, for the hours with any, the
// throttled units and which minutes throttled or were held at the maximum.
//
// The unit-minutes of the hours before the last are packed (a capacity
// changes a few times a day: about 1 byte an hour instead of 4), the last
// hour's, which the next minutes add to, is lastUnits.
type simRecord struct {
	first, next int32 // minuteIndex of the first minute simulated and of the next one
	h0          int32 // hour of the first unit-minutes held
	// started: a minute was recorded, so that the hours [h0, h0+hours())
	// are held: units, then lastUnits.
	started   bool
	units     packedsums.Sums
	lastUnits float32
	events    []simHour
	// diagnosed records what the diagnosis reads: splits, saturated
	// minutes, and the scaling decisions of each hour from s0 (the last
	// scalingWindow).
	diagnosed bool
	splits    []causeSplit
	sats      []satQuarter
	s0        int32
	scalings  []uint8
}

// simHour is an hour with throttling or minutes at the maximum (bit i:
// minute i of the hour).
type simHour struct {
	h          int32
	throttled  float64
	thr, atMax uint64
}

// causeSplit splits the throttled units of an hour of a diagnosed
// dimension by cause where its simHour cannot say it: an hour with units
// of the target cause, or with throttled minutes both at the maximum and
// not. Every other throttled hour is all at_max (its throttled minutes
// are at the maximum) or all reaction (none is), which costs nothing more:
// a policy at 70% or less that throttles on its rises keeps no split. The
// at_max units of a split hour are the rest, throttled − target −
// reaction, over its throttled minutes at the maximum.
type causeSplit struct {
	h                int32
	target, reaction float64
	tgt, rea         uint64 // minutes with units of each (bit i: minute i)
}

// satQuarter is a quarter of an hour of a diagnosed dimension with
// saturated minutes (capacity.Saturated): quarter q holds minutes 15q to
// 15q+14, bit i minute 15q+i. It has all of them, and those of the target
// cause; the others are at_max where the hour's simHour has them at the
// maximum (a minute at the maximum always has a simHour), reaction
// otherwise. 8 bytes a quarter with any: a rise saturates a few minutes,
// one or two quarters; a healthy table keeps none.
type satQuarter struct {
	q        int32
	sat, tgt uint16
}

// quarterBits returns the minutes of quarter q among those of its hour
// (bit i: minute i of the hour), as the quarter's bits.
func quarterBits(q int32, hour uint64) uint16 {
	return uint16(hour>>uint(q%4*15)) & (1<<15 - 1)
}

// hours returns how many hours of unit-minutes r holds.
func (r *simRecord) hours() int {
	if !r.started {
		return 0
	}
	return r.units.Len() + 1
}

// eachHour calls f with the index (from h0) and unit-minutes of each hour
// held from index from on, in order, until f returns false.
func (r *simRecord) eachHour(from int, f func(i int, units float32) bool) {
	r.eachHourWith(nil, from, f)
}

// eachHourWith is eachHour reading the packed hours with c (nil: a cursor
// of its own), which must be at from or before it.
func (r *simRecord) eachHourWith(c *packedsums.Cursor, from int, f func(i int, units float32) bool) {
	if !r.started || from > r.units.Len() {
		return
	}
	from = max(from, 0)
	if c == nil {
		c = new(packedsums.Cursor)
	}
	r.units.Seek(c, from)
	for c.Index() < r.units.Len() {
		// The hour f stops at is not consumed: the next call starts there.
		next := *c
		if i := c.Index(); !f(i, next.Next()) {
			return
		}
		*c = next
	}
	f(r.units.Len(), r.lastUnits)
}

func (r *simRecord) record(m int32, o capacity.DiagnosedMinute) {
	h := m / 60
	if !r.started {
		r.first, r.h0, r.s0 = m, h, h
		r.started, r.lastUnits = true, 0
	}
	r.next = m + 1
	for int(h-r.h0) > r.units.Len() {
		r.units.Append(r.lastUnits)
		r.lastUnits = 0
	}
	r.lastUnits += float32(o.Capacity)
	if r.diagnosed && (o.ScaleOut || o.ScaleIn) {
		for int(h-r.s0) >= len(r.scalings) {
			r.scalings = append(r.scalings, 0)
		}
		r.scalings[h-r.s0]++ // at most one decision a minute
	}
	if r.diagnosed && o.Saturated {
		q := m / 15
		if n := len(r.sats); n == 0 || r.sats[n-1].q != q {
			r.sats = append(r.sats, satQuarter{q: q})
		}
		x, bit := &r.sats[len(r.sats)-1], uint16(1)<<uint(m-q*15)
		x.sat |= bit
		if o.SaturatedCause == capacity.CauseTarget {
			x.tgt |= bit
		}
	}
	if o.Throttled <= 0 && !o.AtMax {
		return
	}
	if n := len(r.events); n == 0 || r.events[n-1].h != h {
		r.events = append(r.events, simHour{h: h})
	}
	x := &r.events[len(r.events)-1]
	bit := uint64(1) << uint(m-h*60)
	if r.diagnosed && o.Throttled > 0 {
		r.split(x, bit, o)
	}
	if o.Throttled > 0 {
		x.throttled += o.Throttled
		x.thr |= bit
	}
	if o.AtMax {
		x.atMax |= bit
	}
}

// split records the causes of the throttled minute bit of the hour x (not
// yet counted in x) when the hour needs a causeSplit.
func (r *simRecord) split(x *simHour, bit uint64, o capacity.DiagnosedMinute) {
	if n := len(r.splits); n == 0 || r.splits[n-1].h != x.h {
		atMax, other := x.thr&x.atMax != 0, x.thr&^x.atMax != 0
		if o.Causes[capacity.CauseTarget] == 0 && !(o.AtMax && other) && !(!o.AtMax && atMax) {
			return // the hour stays all at_max or all reaction
		}
		// The hour's minutes so far were all at_max or all reaction.
		sp := causeSplit{h: x.h}
		if other {
			sp.reaction, sp.rea = x.throttled, x.thr
		}
		r.splits = append(r.splits, sp)
	}
	sp := &r.splits[len(r.splits)-1]
	if v := o.Causes[capacity.CauseTarget]; v > 0 {
		sp.target += v
		sp.tgt |= bit
	}
	if v := o.Causes[capacity.CauseReaction]; v > 0 {
		sp.reaction += v
		sp.rea |= bit
	}
}

// prune forgets the hours that end before minute before, and the scaling
// decisions of those that end before minute scalingsBefore.
func (r *simRecord) prune(before, scalingsBefore int32) {
	if n := int((before/60 - r.h0)); n > 0 && r.started {
		n = min(n, r.units.Len())
		r.units.DropFront(n)
		r.h0 += int32(n)
		r.first = max(r.first, r.h0*60)
	}
	// The first run packs 31 days of hours, later cycles an hour or so.
	r.units.Trim(16)
	j := 0
	for j < len(r.events) && (r.events[j].h+1)*60 <= before {
		j++
	}
	r.events = append(r.events[:0], r.events[j:]...)
	j = 0
	for j < len(r.splits) && (r.splits[j].h+1)*60 <= before {
		j++
	}
	r.splits = append(r.splits[:0], r.splits[j:]...)
	j = 0
	for j < len(r.sats) && (r.sats[j].q+1)*15 <= before {
		j++
	}
	r.sats = append(r.sats[:0], r.sats[j:]...)
	if n := int((scalingsBefore/60 - r.s0)); n > 0 && len(r.scalings) > 0 {
		n = min(n, len(r.scalings)-1)
		r.scalings = append(r.scalings[:0], r.scalings[n:]...)
		r.s0 += int32(n)
	}
	// The first run records the decisions of 31 days and keeps 7: do not
	// keep the room (later cycles add and drop an hour or so each).
	if cap(r.scalings) > len(r.scalings)+16 {
		r.scalings = append(make([]uint8, 0, len(r.scalings)+4), r.scalings...)
	}
	// Nor the room of the saturated quarters' doublings (a few a day).
	if cap(r.sats) > len(r.sats)+8 {
		r.sats = append(make([]satQuarter, 0, len(r.sats)+2), r.sats...)
	}
}

func (r simRecord) clone() simRecord {
	r.units = r.units.Clone()
	r.events = append([]simHour(nil), r.events...)
	r.splits = append([]causeSplit(nil), r.splits...)
	r.sats = append([]satQuarter(nil), r.sats...)
	r.scalings = append([]uint8(nil), r.scalings...)
	return r
}

// inRange returns the minutes of hour h in [lo, hi), as bits.
func inRange(h, lo, hi int32) uint64 {
	h0 := h * 60
	in := ^uint64(0)
	if lo > h0 {
		in <<= uint(min(lo-h0, 64))
	}
	if hi < h0+60 {
		in &= (uint64(1) << uint(max(hi-h0, 0))) - 1
	}
	return in
}

// diagnosis returns the diagnosis of minutes [lo, hi): the throttled
// units of each cause (an hour [lo, hi) cuts shared pro rata of the
// cause's minutes), the saturated minutes of each and the latest minute of
// each exactly, and the capacity. Demand, Compared and ScalingDecisions
// are the caller's to set.
func (r *simRecord) diagnosis(lo, hi int32) capacity.Diagnosis {
	// Minutes counts the simulated ones: a run that started after lo (at
	// the first minute with data, firstActive) judges its rates, such as
	// scaling decisions a day, over the minutes it simulated.
	simulated := lo
	if r.started && r.first > lo {
		simulated = min(r.first, hi)
	}
	d := capacity.Diagnosis{Start: time.Unix(int64(simulated)*60, 0).UTC(), Minutes: int(hi - simulated), UnitHours: r.unitMinutes(lo, hi) / 60}
	j := 0
	for _, x := range r.events {
		for j < len(r.splits) && r.splits[j].h < x.h {
			j++
		}
		if x.thr == 0 || (x.h+1)*60 <= lo || x.h*60 >= hi {
			continue
		}
		var units capacity.ByCause
		var minutes [capacity.NumCauses]uint64
		minutes[capacity.CauseAtMax] = x.thr & x.atMax
		switch {
		case j < len(r.splits) && r.splits[j].h == x.h:
			sp := r.splits[j]
			units[capacity.CauseTarget], minutes[capacity.CauseTarget] = sp.target, sp.tgt
			units[capacity.CauseReaction], minutes[capacity.CauseReaction] = sp.reaction, sp.rea
			if minutes[capacity.CauseAtMax] != 0 {
				units[capacity.CauseAtMax] = math.Max(0, x.throttled-sp.target-sp.reaction)
			}
		case minutes[capacity.CauseAtMax] != 0:
			units[capacity.CauseAtMax] = x.throttled
		default:
			units[capacity.CauseReaction], minutes[capacity.CauseReaction] = x.throttled, x.thr
		}
		in := inRange(x.h, lo, hi)
		for c, all := range minutes {
			n := bits.OnesCount64(all & in)
			if n == 0 || !(units[c] > 0) {
				continue
			}
			if total := bits.OnesCount64(all); n == total {
				d.Throttled[c] += units[c]
			} else {
				d.Throttled[c] += units[c] * float64(n) / float64(total)
			}
			d.Last[c] = lastMinute(x.h, all&in)
		}
	}
	j = 0
	for _, x := range r.sats {
		h := x.q / 4
		for j < len(r.events) && r.events[j].h < h {
			j++
		}
		if (x.q+1)*15 <= lo || x.q*15 >= hi {
			continue
		}
		var atMax uint16
		if j < len(r.events) && r.events[j].h == h {
			atMax = x.sat & quarterBits(x.q, r.events[j].atMax)
		}
		in := quarterBits(x.q, inRange(h, lo, hi))
		minutes := [capacity.NumCauses]uint16{capacity.CauseAtMax: atMax, capacity.CauseTarget: x.tgt, capacity.CauseReaction: x.sat &^ atMax &^ x.tgt}
		for c, all := range minutes {
			if all&in == 0 {
				continue
			}
			d.SaturatedMinutes[c] += float64(bits.OnesCount16(all & in))
			if at := minuteStart(x.q*15 + int32(bits.Len16(all&in)-1)); at.After(d.Last[c]) {
				d.Last[c] = at
			}
		}
	}
	return d
}

// lastMinute returns the start of the latest minute of hour h in minutes
// (not empty; bit i: minute i).
func lastMinute(h int32, minutes uint64) time.Time {
	return minuteStart(h*60 + int32(63-bits.LeadingZeros64(minutes)))
}

// minuteStart returns the start of the minute m (minuteIndex).
func minuteStart(m int32) time.Time { return time.Unix(int64(m)*60, 0).UTC() }

// scalingDecisions returns the scaling decisions of minutes [lo, hi),
// those of an hour [lo, hi) cuts pro rata of its simulated minutes in
// range; NaN when the record no longer holds the decisions of lo.
func (r *simRecord) scalingDecisions(lo, hi int32) float64 {
	if lo/60 < r.s0 && lo < r.first {
		lo = r.first // a young table: nothing simulated before
	}
	if lo/60 < r.s0 {
		return math.NaN()
	}
	var s float64
	for i, n := range r.scalings {
		h := r.s0 + int32(i)
		if n == 0 || (h+1)*60 <= lo || h*60 >= hi {
			continue
		}
		from, to := max(h*60, r.first), min(h*60+60, r.next)
		in := min(to, hi) - max(from, lo)
		if in <= 0 || to <= from {
			continue
		}
		s += float64(n) * float64(in) / float64(to-from)
	}
	return s
}

// unitMinutes returns Σ capacity over the minutes [lo, hi); an hour that
// [lo, hi) cuts counts pro rata of its simulated minutes in range.
func (r *simRecord) unitMinutes(lo, hi int32) float64 {
	return r.unitMinutesWith(nil, lo, hi)
}

// unitMinutesWith is unitMinutes reading the packed hours with c, when not
// nil, a cursor of r.units that earlier calls advanced no further than lo
// (a caller reading consecutive ranges decodes each hour once).
func (r *simRecord) unitMinutesWith(c *packedsums.Cursor, lo, hi int32) float64 {
	var s float64
	r.eachHourWith(c, int(max(lo/60, r.h0)-r.h0), func(i int, units float32) bool {
		h := r.h0 + int32(i)
		if h*60 >= hi {
			return false
		}
		from, to := max(h*60, r.first), min(h*60+60, r.next)
		in := min(to, hi) - max(from, lo)
		if in <= 0 || to <= from {
			return true
		}
		v := float64(units)
		if in == to-from {
			s += v
		} else {
			s += v * float64(in) / float64(to-from)
		}
		return true
	})
	return s
}

// window returns the simulation's figures over minutes [lo, hi): the
// throttled minutes and the minutes at the maximum exactly; the capacity
// and the throttled units of an hour [lo, hi) cuts shared pro rata (of its
// minutes, of its throttled minutes). Scaling decisions are not counted.
func (r *simRecord) window(lo, hi int32) capacity.Simulation {
	sim := capacity.Simulation{Start: time.Unix(int64(lo)*60, 0).UTC(), UnitHours: r.unitMinutes(lo, hi) / 60}
	for _, x := range r.events {
		if (x.h+1)*60 <= lo || x.h*60 >= hi {
			continue
		}
		in := inRange(x.h, lo, hi)
		n, all := bits.OnesCount64(x.thr&in), bits.OnesCount64(x.thr)
		if n > 0 {
			if n == all {
				sim.ThrottledUnits += x.throttled
			} else {
				sim.ThrottledUnits += x.throttled * float64(n) / float64(all)
			}
		}
		sim.ThrottledMinutes += n
		sim.MinutesAtMax += bits.OnesCount64(x.atMax & in)
	}
	return sim
}

// provisioned reports whether the table's billing mode is PROVISIONED.
func provisioned(tb *Table) bool { return tb.BillingMode() == string(capacity.Provisioned) }

// diagnosis returns the diagnosis of minutes [lo, hi) of the what-if of
// index, whose consumed units were demand (read, write). Only a window no
// longer than scalingWindow counts the scaling decisions (NaN otherwise).
func (w *whatIf) diagnosis(index string, lo, hi int32, demand [2]float64) IndexDiagnosis {
	out := IndexDiagnosis{Index: index, TableDiagnosis: capacity.TableDiagnosis{ReadMethod: w.stream.ReadMethod, WriteMethod: w.stream.WriteMethod}}
	compared := w.stream.Compared()
	for k, d := range []*capacity.Diagnosis{&out.Read, &out.Write} {
		*d = w.dims[k].diagnosis(lo, hi)
		d.Demand, d.Compared = demand[k], compared[k]
		d.ScalingDecisions = math.NaN()
		if time.Duration(hi-lo)*time.Minute <= scalingWindow {
			d.ScalingDecisions = w.dims[k].scalingDecisions(lo, hi)
		}
	}
	return out
}

// dimensions returns the diagnosis of read and write, each nil unless the
// table's own policy scales it (capacity.MethodAutoScaling).
func (d IndexDiagnosis) dimensions() [2]*capacity.Diagnosis {
	var out [2]*capacity.Diagnosis
	if d.ReadMethod == capacity.MethodAutoScaling {
		out[0] = &d.Read
	}
	if d.WriteMethod == capacity.MethodAutoScaling {
		out[1] = &d.Write
	}
	return out
}

// step simulates the minute at m with the demands read and write.
func (w *whatIf) step(m int32, read, write float64) {
	out := w.stream.Step(read, write)
	for k := range w.dims {
		w.dims[k].record(m, out[k])
	}
}

// advance simulates the minutes of [next, to) off the histories.
func (w *whatIf) advance(read, write *history, to time.Time) {
	eachMinute(read, write, w.stream.Next(), to, w.step)
}

// eachMinute calls step with every minute of [from, to) (minuteIndex) and
// its read and write Sums off the histories. A day at a time: a first run
// simulates 31 days, whose minutes would take 700 KB at once. Chunks end on
// whole hours, which no tier spreads a Sum across, so that every minute
// reads as it would in one piece.
func eachMinute(read, write *history, from, to time.Time, step func(m int32, read, write float64)) {
	for from.Before(to) {
		end := from.Truncate(time.Hour).Add(24 * time.Hour)
		if end.After(to) {
			end = to
		}
		rs, ws := read.perMinute(from, end), write.perMinute(from, end)
		m := minuteIndex(from)
		for i := range rs {
			step(m+int32(i), rs[i], ws[i])
		}
		from = end
	}
}

func (w *whatIf) clone() *whatIf {
	c := *w
	c.stream = w.stream.Clone()
	for k := range c.dims {
		c.dims[k] = w.dims[k].clone()
	}
	return &c
}

// firstActive returns the first minute of [from, to) in which read or
// write holds consumption, or from when none does. CloudWatch publishes no
// datapoint for a minute without consumption, so a history cannot tell
// the minutes a table was idle from those before its data begins (a
// retention shorter than the what-if's run, a table whose metrics start
// late): a run started in them would begin at the policy's minimum and
// throttle, by reaction, the first minutes of data as no table that has
// been serving that traffic does. The run starts at the first minute with
// data instead, at the capacity that minute's demand wants; the minutes
// before it are not simulated (no cost, no throttle in either mode).
// Idle minutes after it are simulated as what they are.
func firstActive(read, write *history, from, to time.Time) time.Time {
	active := func(lo, hi time.Time) bool { return read.sum(lo, hi)+write.sum(lo, hi) > 0 }
	for _, step := range []time.Duration{day, time.Hour} {
		for at := from; at.Before(to); at = at.Add(step) {
			hi := at.Add(step)
			if hi.After(to) {
				hi = to
			}
			if active(at, hi) {
				from, to = at, hi
				break
			}
			if !hi.Before(to) {
				return from // none in [from, to): start where asked
			}
		}
	}
	rs, ws := read.perMinute(from, to), write.perMinute(from, to)
	for i := range rs {
		if rs[i] > 0 || ws[i] > 0 {
			return from.Add(time.Duration(i) * time.Minute)
		}
	}
	return from
}

// newWhatIf starts a what-if at from with the settings s of a table,
// diagnosed when it is provisioned.
func newWhatIf(read, write *history, from time.Time, s capacity.Settings, defaults *capacity.AutoScalingSettings, provisioned bool) (*whatIf, error) {
	first := capacity.ReadWrite{Read: read.perMinute(from, from.Add(time.Minute))[0], Write: write.perMinute(from, from.Add(time.Minute))[0]}
	st, err := capacity.NewDiagnosisStream(from, s, defaults, first, provisioned)
	if err != nil {
		return nil, err
	}
	w := &whatIf{settings: s, provisioned: provisioned, stream: st}
	for k, m := range []capacity.Method{st.ReadMethod, st.WriteMethod} {
		w.dims[k].diagnosed = provisioned && m == capacity.MethodAutoScaling
	}
	return w, nil
}

// sameSettings reports whether two provisionings are the same.
func sameSettings(a, b capacity.Settings) bool {
	same := func(x, y capacity.Provisioning) bool {
		if (x.AutoScaling == nil) != (y.AutoScaling == nil) || x.Fixed != y.Fixed {
			return false
		}
		return x.AutoScaling == nil || x.AutoScaling.Equal(*y.AutoScaling)
	}
	return same(a.Read, b.Read) && same(a.Write, b.Write)
}
