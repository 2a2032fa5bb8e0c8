// Cost what-if of the capacity collector: the table's real auto-scaling
// settings (Application Auto Scaling), its provisioning, and the capacity
// model's evaluation of a window of consumed history in both billing modes.
package collectors

import (
	"math/bits"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
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
}

// minTrace is the shortest history the cost model evaluates.
const minTrace = time.Hour

// whatIf is the running auto-scaling what-if of one table or GSI: the
// capacity model's simulation (capacity.TableStream) advanced with each
// settled minute, and of its outcomes only what the cost windows and the
// chart read (simRecord): about 3 KB per dimension for 31 days, instead of
// the 30 days of per-minute arrays re-simulated every cycle.
//
// The simulation starts where the what-if's first run starts (whatIfStart)
// and then runs on: the windows are read off one continuous run, so a
// figure does not move when the start of the run would (once a UTC day).
// A change of the table's provisioning settings (its policy, its mode)
// fetches the table's history again and starts a new run, as the first
// one. The minutes after the settled ones (which CloudWatch may revise)
// are simulated on a copy each cycle.
type whatIf struct {
	settings capacity.Settings
	stream   *capacity.TableStream
	dims     [2]simRecord
}

// simRecord is what a dimension's simulation did, hour by hour (hour
// index: minuteIndex / 60): the capacity summed over the simulated minutes
// of each hour (unit-minutes, float32: exact for whole capacities below
// 16.7 million unit-minutes an hour) and, for the hours with any, the
// throttled units and which minutes throttled or were held at the maximum.
type simRecord struct {
	first, next int32 // minuteIndex of the first minute simulated and of the next one
	h0          int32 // hour of units[0]
	units       []float32
	events      []simHour
}

// simHour is an hour with throttling or minutes at the maximum (bit i:
// minute i of the hour).
type simHour struct {
	h          int32
	throttled  float64
	thr, atMax uint64
}

func (r *simRecord) record(m int32, o capacity.MinuteOutcome) {
	h := m / 60
	if len(r.units) == 0 {
		r.first, r.h0 = m, h
	}
	r.next = m + 1
	for int(h-r.h0) >= len(r.units) {
		r.units = append(r.units, 0)
	}
	r.units[h-r.h0] += float32(o.Capacity)
	if o.Throttled <= 0 && !o.AtMax {
		return
	}
	if n := len(r.events); n == 0 || r.events[n-1].h != h {
		r.events = append(r.events, simHour{h: h})
	}
	x := &r.events[len(r.events)-1]
	bit := uint64(1) << uint(m-h*60)
	if o.Throttled > 0 {
		x.throttled += o.Throttled
		x.thr |= bit
	}
	if o.AtMax {
		x.atMax |= bit
	}
}

// prune forgets the hours that end before minute before.
func (r *simRecord) prune(before int32) {
	if n := int((before/60 - r.h0)); n > 0 && len(r.units) > 0 {
		n = min(n, len(r.units)-1)
		r.units = append(r.units[:0], r.units[n:]...)
		r.h0 += int32(n)
		r.first = max(r.first, r.h0*60)
	}
	j := 0
	for j < len(r.events) && (r.events[j].h+1)*60 <= before {
		j++
	}
	r.events = append(r.events[:0], r.events[j:]...)
}

func (r simRecord) clone() simRecord {
	r.units = append([]float32(nil), r.units...)
	r.events = append([]simHour(nil), r.events...)
	return r
}

// unitMinutes returns Σ capacity over the minutes [lo, hi); an hour that
// [lo, hi) cuts counts pro rata of its simulated minutes in range.
func (r *simRecord) unitMinutes(lo, hi int32) float64 {
	var s float64
	for h := max(lo/60, r.h0); h*60 < hi && int(h-r.h0) < len(r.units); h++ {
		from, to := max(h*60, r.first), min(h*60+60, r.next)
		in := min(to, hi) - max(from, lo)
		if in <= 0 || to <= from {
			continue
		}
		v := float64(r.units[h-r.h0])
		if in == to-from {
			s += v
		} else {
			s += v * float64(in) / float64(to-from)
		}
	}
	return s
}

// window returns the simulation's figures over minutes [lo, hi): the
// throttled minutes and the minutes at the maximum exactly; the capacity
// and the throttled units of an hour [lo, hi) cuts shared pro rata (of its
// minutes, of its throttled minutes). Scaling decisions are not counted.
func (r *simRecord) window(lo, hi int32) capacity.Simulation {
	sim := capacity.Simulation{Start: time.Unix(int64(lo)*60, 0).UTC(), UnitHours: r.unitMinutes(lo, hi) / 60}
	for _, x := range r.events {
		h0 := x.h * 60
		if h0+60 <= lo || h0 >= hi {
			continue
		}
		in := ^uint64(0)
		if lo > h0 {
			in <<= uint(lo - h0)
		}
		if hi < h0+60 {
			in &= (uint64(1) << uint(hi-h0)) - 1
		}
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

// step simulates the minute at m with the demands read and write.
func (w *whatIf) step(m int32, read, write float64) {
	out := w.stream.Step(read, write)
	for k := range w.dims {
		w.dims[k].record(m, out[k])
	}
}

// advance simulates the minutes of [next, to) off the histories.
func (w *whatIf) advance(read, write *history, to time.Time) {
	from := w.stream.Next()
	if !from.Before(to) {
		return
	}
	rs, ws := read.perMinute(from, to), write.perMinute(from, to)
	m := minuteIndex(from)
	for i := range rs {
		w.step(m+int32(i), rs[i], ws[i])
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

// newWhatIf starts a what-if at from with the settings s.
func newWhatIf(read, write *history, from time.Time, s capacity.Settings, defaults *capacity.AutoScalingSettings) (*whatIf, error) {
	first := capacity.ReadWrite{Read: read.perMinute(from, from.Add(time.Minute))[0], Write: write.perMinute(from, from.Add(time.Minute))[0]}
	st, err := capacity.NewTableStream(from, s, defaults, first)
	if err != nil {
		return nil, err
	}
	w := &whatIf{settings: s, stream: st}
	// The hours of the first run, and the next cycles' before pruning.
	hours := int(read.end().Sub(from)/time.Hour) + 3
	for k := range w.dims {
		w.dims[k].units = make([]float32, 0, hours)
	}
	return w, nil
}

// sameSettings reports whether two provisionings are the same.
func sameSettings(a, b capacity.Settings) bool {
	same := func(x, y capacity.Provisioning) bool {
		if (x.AutoScaling == nil) != (y.AutoScaling == nil) || x.Fixed != y.Fixed {
			return false
		}
		return x.AutoScaling == nil || *x.AutoScaling == *y.AutoScaling
	}
	return same(a.Read, b.Read) && same(a.Write, b.Write)
}
