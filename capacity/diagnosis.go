package capacity

import (
	"fmt"
	"math"
	"time"
)

// Diagnosis: why the simulation of a table's own auto-scaling policy
// throttles. Every throttled unit of a minute gets one cause:
//
//   - CauseAtMax: the minute's capacity was held at the auto-scaling maximum
//     while the policy wanted more (MinuteOutcome.AtMax): the maximum is too
//     low for the demand;
//   - CauseTarget: only for a dimension whose target is above
//     ReasonableTarget: the part of the minute's throttled units that the
//     same policy at ReasonableTarget, simulated over the same trace, does
//     not throttle in that minute, max(0, current − at ReasonableTarget):
//     the target leaves too little headroom for the scaling delay;
//   - CauseReaction: the rest, which the policy throttles even at a
//     reasonable target: demand rising faster than auto-scaling reacts
//     (ScaleOutPoints minutes above target, then the scale-out delay).
//
// The split is taken minute by minute, then summed over a window: summed
// over the minutes outside the maximum, the target cause is Σ max(0,
// current − at ReasonableTarget), which equals max(0, Σ current − Σ at
// ReasonableTarget) whenever the lower target throttles no more than the
// current one in each minute (it has more headroom at every scaling
// decision, so it does unless its decreases fall elsewhere), and every
// minute with units of a cause has a time (Diagnosis.Last).
//
// The simulation runs the policy the table has now over the whole window:
// a policy changed within the window is judged as if it had applied all
// along (what the new policy would have done with the window's traffic).
//
// Saturated minutes. The history is consumed capacity, what the table
// served: on a table that really throttled, the demand it refused is not in
// it, and the simulation of the same policy over it throttles little or
// nothing (its burst covers the rest). Where the real table throttled, the
// served demand reached its capacity instead. So a second signal counts the
// saturated minutes (Saturated): those whose demand (Sum ÷ 60) is at or
// above the simulated capacity in effect once the simulated burst holds
// less than a minute of it (MinuteOutcome.BurstSpent: where the real table
// throttled, it had spent its burst first, and the simulation of the same
// policy spends it on the same served demand), and every throttled minute.
// Demand above the capacity that the burst still covers was served: a
// poll burst absorbed by it is not saturation. Each saturated minute gets one cause
// (SaturationCause), as throttled units do:
//
//   - CauseAtMax: the minute is at the maximum (MinuteOutcome.AtMax);
//   - CauseTarget: only for a dimension whose target is above
//     ReasonableTarget: the same minute under the run at ReasonableTarget
//     is not saturated (below that run's capacity, or its burst left);
//   - CauseReaction: the rest, saturated even at a reasonable target.

// ReasonableTarget is the target utilization a higher target is compared
// with: 70%, which leaves room for the scaling delay (the DynamoDB console
// default, and the domain's advice).
const ReasonableTarget = DefaultTarget

// Cause is why simulated demand was throttled.
type Cause int

// The causes of simulated throttling, in the order of ByCause.
const (
	// CauseAtMax: capacity held at the auto-scaling maximum below what the
	// policy wanted.
	CauseAtMax Cause = iota
	// CauseTarget: throttled at the current target, not at ReasonableTarget.
	CauseTarget
	// CauseReaction: throttled while auto-scaling reacts, even at a
	// reasonable target.
	CauseReaction
)

// NumCauses is the number of causes.
const NumCauses = 3

var causeNames = [NumCauses]string{"at_max", "target", "reaction"}

// String returns at_max, target or reaction (the metric label values).
func (c Cause) String() string {
	if c < 0 || int(c) >= NumCauses {
		return fmt.Sprintf("Cause(%d)", int(c))
	}
	return causeNames[c]
}

// Causes lists every cause in order.
func Causes() []Cause { return []Cause{CauseAtMax, CauseTarget, CauseReaction} }

// ByCause holds an amount per cause, indexed by Cause.
type ByCause [NumCauses]float64

// Total returns the sum over the causes.
func (b ByCause) Total() float64 { return b[CauseAtMax] + b[CauseTarget] + b[CauseReaction] }

// Attribute splits the throttled units of one minute of one dimension by
// cause. cur is the minute under the table's settings; reasonable is the
// same minute under the same policy at ReasonableTarget, or nil when the
// dimension's target is not above it (no comparison: everything outside
// the maximum is reaction).
func Attribute(cur MinuteOutcome, reasonable *MinuteOutcome) ByCause {
	var b ByCause
	switch {
	case !(cur.Throttled > 0):
	case cur.AtMax:
		b[CauseAtMax] = cur.Throttled
	case reasonable == nil || reasonable.Throttled >= cur.Throttled:
		b[CauseReaction] = cur.Throttled
	default:
		r := math.Max(0, reasonable.Throttled)
		b[CauseReaction] = r
		b[CauseTarget] = cur.Throttled - r
	}
	return b
}

// Saturated reports whether a minute whose demand is sum (units, the
// trace's Sum) saturated the outcome o: throttled, or its demand, sum ÷ 60
// units/s, at or above the capacity in effect with the burst spent. In a
// history capped by real throttling, served demand held at the capacity
// once the burst is gone is where the throttling shows; demand above the
// capacity that the burst still covers (a short poll burst) is served and
// is not saturation.
func Saturated(sum float64, o MinuteOutcome) bool {
	return o.Throttled > 0 || (sum > 0 && sum/60 >= o.Capacity && o.BurstSpent)
}

// SaturationCause returns the cause of a saturated minute whose demand is
// sum: cur is the minute under the table's settings, reasonable the same
// minute at ReasonableTarget or nil (not compared). ok is false when the
// minute is not saturated under the table's settings.
func SaturationCause(sum float64, cur MinuteOutcome, reasonable *MinuteOutcome) (c Cause, ok bool) {
	switch {
	case !Saturated(sum, cur):
		return 0, false
	case cur.AtMax:
		return CauseAtMax, true
	case reasonable != nil && !Saturated(sum, *reasonable):
		return CauseTarget, true
	}
	return CauseReaction, true
}

// diagnoseMinute is the diagnosis of one minute of one dimension whose
// demand is sum.
func diagnoseMinute(sum float64, cur MinuteOutcome, reasonable *MinuteOutcome) DiagnosedMinute {
	m := DiagnosedMinute{MinuteOutcome: cur, Causes: Attribute(cur, reasonable)}
	m.SaturatedCause, m.Saturated = SaturationCause(sum, cur, reasonable)
	return m
}

// ReasonableSettings returns s with the target of each dimension's own
// auto-scaling policy lowered to ReasonableTarget where it is above it,
// and which dimensions (Read, Write) it lowered. s is not modified.
func ReasonableSettings(s Settings) (Settings, [2]bool) {
	var lowered [2]bool
	out := s
	for k, p := range []*Provisioning{&out.Read, &out.Write} {
		if p.AutoScaling == nil || !(p.AutoScaling.Target > ReasonableTarget) {
			continue
		}
		a := *p.AutoScaling
		a.Target = ReasonableTarget
		p.AutoScaling = &a
		lowered[k] = true
	}
	return out, lowered
}

// DiagnosedMinute is one simulated minute of one dimension, its
// throttled units by cause and whether it was saturated, and why.
type DiagnosedMinute struct {
	MinuteOutcome
	// Causes splits MinuteOutcome.Throttled by cause.
	Causes ByCause
	// Saturated is true when the minute's demand reached its capacity
	// (Saturated); SaturatedCause is then its cause (SaturationCause).
	Saturated      bool
	SaturatedCause Cause
}

// DiagnosisStream is a TableStream of a table's settings and, when asked
// to compare and a dimension's own policy targets more than
// ReasonableTarget, a second TableStream of ReasonableSettings stepped with
// it, minute by minute: each Step returns the minute's outcome under the
// table's settings with its throttled units by cause and its saturation.
// Without a dimension to compare it costs what a TableStream costs; with
// one, a second stream's state (a few hundred bytes). Start, Next, Minutes
// and the methods are those of the table's settings.
type DiagnosisStream struct {
	*TableStream
	// reasonable runs ReasonableSettings; nil without a dimension to compare.
	reasonable *TableStream
	compared   [2]bool
}

// NewDiagnosisStream returns a stream as NewTableStream does; compare
// runs the comparison with ReasonableTarget for the dimensions whose own
// policy targets more (false: every throttled unit outside the maximum is
// reaction, and no second stream runs).
func NewDiagnosisStream(start time.Time, s Settings, defaults *AutoScalingSettings, first ReadWrite, compare bool) (*DiagnosisStream, error) {
	cur, err := NewTableStream(start, s, defaults, first)
	if err != nil {
		return nil, err
	}
	d := &DiagnosisStream{TableStream: cur}
	if !compare {
		return d, nil
	}
	rs, lowered := ReasonableSettings(s)
	if !lowered[0] && !lowered[1] {
		return d, nil
	}
	if d.reasonable, err = NewTableStream(start, rs, defaults, first); err != nil {
		return nil, err
	}
	d.compared = lowered
	return d, nil
}

// Compared reports which dimensions (Read, Write) are compared with
// ReasonableTarget.
func (d *DiagnosisStream) Compared() [2]bool { return d.compared }

// Step simulates the next minute, as TableStream.Step, splits its
// throttled units by cause and says whether it was saturated, and why.
func (d *DiagnosisStream) Step(read, write float64) [2]DiagnosedMinute {
	cur := d.TableStream.Step(read, write)
	var alt [2]MinuteOutcome
	if d.reasonable != nil {
		alt = d.reasonable.Step(read, write)
	}
	var out [2]DiagnosedMinute
	for k, sum := range [2]float64{finiteSum(read), finiteSum(write)} {
		var r *MinuteOutcome
		if d.compared[k] {
			r = &alt[k]
		}
		out[k] = diagnoseMinute(sum, cur[k], r)
	}
	return out
}

// Clone returns an independent copy of the stream (TableStream.Clone).
func (d *DiagnosisStream) Clone() *DiagnosisStream {
	c := *d
	c.TableStream = d.TableStream.Clone()
	if d.reasonable != nil {
		c.reasonable = d.reasonable.Clone()
	}
	return &c
}

// Diagnosis is what one window of one dimension's simulation shows.
type Diagnosis struct {
	// Start is the beginning of the window's first minute; Minutes its
	// length.
	Start   time.Time
	Minutes int
	// Compared is true when the dimension's target was compared with
	// ReasonableTarget (CauseTarget can only be found then).
	Compared bool
	// Throttled is the simulated throttled units by cause.
	Throttled ByCause
	// SaturatedMinutes counts the saturated minutes by cause (Saturated,
	// SaturationCause): the signal a history capped by real throttling
	// still shows.
	SaturatedMinutes ByCause
	// Last is, per cause, the start of the latest minute of the window with
	// throttled units or a saturated minute of that cause; zero without
	// any.
	Last [NumCauses]time.Time
	// ScalingDecisions counts the scaling decisions (out and in) of the
	// window.
	ScalingDecisions float64
	// Demand is the window's consumed units; UnitHours the simulated
	// capacity integrated over it.
	Demand, UnitHours float64
}

// ScalingDecisionsPerDay returns the scaling decisions per day of the
// window (NaN for an empty window).
func (d Diagnosis) ScalingDecisionsPerDay() float64 {
	if d.Minutes <= 0 {
		return math.NaN()
	}
	return d.ScalingDecisions / (float64(d.Minutes) / (24 * 60))
}

// Utilization returns the window's demand over its simulated capacity
// (NaN without capacity).
func (d Diagnosis) Utilization() float64 {
	if !(d.UnitHours > 0) {
		return math.NaN()
	}
	return d.Demand / (d.UnitHours * 3600)
}

// TableDiagnosis is the diagnosis of one window of a table or GSI.
type TableDiagnosis struct {
	// Read and Write are each dimension's.
	Read, Write Diagnosis
	// ReadMethod and WriteMethod say how each was modelled; a diagnosis
	// speaks of the table's own policy only with MethodAutoScaling.
	ReadMethod, WriteMethod Method
}

// DiagnoseTable simulates one table or GSI under its settings (as
// SimulateTable) and, when a dimension's own policy targets more than
// ReasonableTarget, under ReasonableSettings too, and returns the
// diagnosis of each window (throttled units and saturated minutes by
// cause): the last part of the trace (7 days, 30 days), read off the one
// run as EvaluateTableWindows reads its windows. A window longer than the
// trace covers the whole trace; a window must cover at least an hour and
// the trace at least 60 minutes.
func DiagnoseTable(t Trace, s Settings, defaults AutoScalingSettings, windows []time.Duration) ([]TableDiagnosis, error) {
	if len(windows) == 0 {
		return nil, fmt.Errorf("capacity: no windows to diagnose")
	}
	for k, w := range windows {
		if w < time.Hour {
			return nil, fmt.Errorf("capacity: window %d (%v) is shorter than an hour", k, w)
		}
	}
	cur, err := simulateWorkload(Workload{Trace: t, Settings: s}, defaults)
	if err != nil {
		return nil, err
	}
	rs, lowered := ReasonableSettings(s)
	var alt TableSimulation
	if lowered[0] || lowered[1] {
		if alt, err = SimulateTable(t, rs, defaults); err != nil {
			return nil, err
		}
	}
	n := t.Minutes()
	out := make([]TableDiagnosis, len(windows))
	for j, w := range windows {
		lo := 0
		if m := int(w / time.Minute); m < n {
			lo = n - m
		}
		out[j] = TableDiagnosis{ReadMethod: cur.ReadMethod, WriteMethod: cur.WriteMethod,
			Read:  diagnose(cur.Read, alt.Read, lowered[0], lo, n),
			Write: diagnose(cur.Write, alt.Write, lowered[1], lo, n)}
	}
	return out, nil
}

// diagnose reads minutes [lo, hi) of a simulation (and of its run at
// ReasonableTarget when compared).
func diagnose(cur, alt Simulation, compared bool, lo, hi int) Diagnosis {
	d := Diagnosis{Start: cur.Start.Add(time.Duration(lo) * time.Minute), Minutes: hi - lo, Compared: compared}
	for i := lo; i < hi; i++ {
		o := MinuteOutcome{Capacity: cur.Capacity[i], Throttled: cur.throttled[i], AtMax: cur.atMax[i], BurstSpent: cur.burstSpent[i]}
		var r *MinuteOutcome
		if compared {
			r = &MinuteOutcome{Capacity: alt.Capacity[i], Throttled: alt.throttled[i], AtMax: alt.atMax[i], BurstSpent: alt.burstSpent[i]}
		}
		d.add(cur.Start.Add(time.Duration(i)*time.Minute), diagnoseMinute(cur.demand[i], o, r))
		d.UnitHours += o.Capacity / 60
		d.Demand += cur.demand[i]
	}
	for _, ev := range cur.Events {
		if ev.Minute >= lo && ev.Minute < hi {
			d.ScalingDecisions++
		}
	}
	return d
}

// add counts the throttled units by cause and the saturation of the
// minute m starting at at (minutes in order).
func (d *Diagnosis) add(at time.Time, m DiagnosedMinute) {
	for c, v := range m.Causes {
		if v > 0 {
			d.Throttled[c] += v
			d.Last[c] = at
		}
	}
	if m.Saturated {
		d.SaturatedMinutes[m.SaturatedCause]++
		d.Last[m.SaturatedCause] = at
	}
}
