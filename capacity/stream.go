package capacity

import (
	"fmt"
	"math"
	"time"
)

// MinuteOutcome is what one simulated minute of one dimension did.
type MinuteOutcome struct {
	// Capacity is the provisioned capacity in effect during the minute, in
	// units per second.
	Capacity float64
	// Throttled is the demand (units) the capacity and burst could not serve.
	Throttled float64
	// AtMax is true when capacity was held at the auto-scaling maximum below
	// what the policy wanted (Simulation.MinutesAtMax counts these minutes).
	AtMax bool
	// BurstSpent is true when, after the minute, the burst bucket holds less
	// than a minute of the capacity: demand at the capacity was served by
	// the capacity alone, with no burst left to cover more.
	BurstSpent bool
	// ScaleOut and ScaleIn are true when a scaling decision was taken at the
	// end of the minute.
	ScaleOut, ScaleIn bool
}

// TableStream is SimulateTable run as the minutes arrive: it keeps only the
// simulation's state (capacities, burst credit, pending scale-outs, the
// last ScaleInPoints minutes of demand and the day's decreases), a few
// hundred bytes, and returns each minute's outcome instead of recording
// it. Fed the minutes of a Trace one by one, it gives, minute for minute,
// the capacities, throttled units, at-maximum minutes and scaling
// decisions of SimulateTable on that Trace with the same Settings.
type TableStream struct {
	step tableStep
	n    int
	// ReadMethod and WriteMethod say how each dimension is modelled.
	ReadMethod, WriteMethod Method
}

// NewTableStream returns a stream starting at start (the beginning of its
// first minute) whose first minute will have the demands first (Sums, as in
// a Trace): auto-scaling starts at the capacity that demand wants, as
// SimulateTable does. defaults is the auto-scaling of a dimension with
// neither a policy nor a fixed capacity (nil: DefaultAutoScaling()).
func NewTableStream(start time.Time, s Settings, defaults *AutoScalingSettings, first ReadWrite) (*TableStream, error) {
	def := DefaultAutoScaling()
	if defaults != nil {
		def = *defaults
	}
	t := &TableStream{step: tableStep{start: start, sums: make([]float64, 2)}}
	for k, dim := range []struct {
		p      Provisioning
		field  string
		first  float64
		method *Method
	}{{s.Read, "Settings.Read", first.Read, &t.ReadMethod}, {s.Write, "Settings.Write", first.Write, &t.WriteMethod}} {
		if err := dim.p.validate(dim.field); err != nil {
			return nil, err
		}
		if err := checkSums(fmt.Sprintf("first minute %d", k), []float64{dim.first}); err != nil {
			return nil, err
		}
		d, method, err := dimension(dim.p, def, dim.first, nil)
		if err != nil {
			return nil, err
		}
		t.step.dims = append(t.step.dims, d)
		*dim.method = method
	}
	t.step.scheduled = t.step.hasSchedules()
	return t, nil
}

// Start returns the beginning of the stream's first minute.
func (t *TableStream) Start() time.Time { return t.step.start }

// Minutes returns how many minutes the stream has simulated.
func (t *TableStream) Minutes() int { return t.n }

// Next returns the beginning of the next minute to simulate.
func (t *TableStream) Next() time.Time { return t.step.start.Add(time.Duration(t.n) * time.Minute) }

// Step simulates the next minute, whose consumed Sums are read and write,
// and returns what it did in each dimension (Read, then Write). A Sum that
// is negative, NaN or infinite counts as zero.
func (t *TableStream) Step(read, write float64) [2]MinuteOutcome {
	t.step.sums[0], t.step.sums[1] = finiteSum(read), finiteSum(write)
	t.step.minute(t.n)
	t.n++
	return [2]MinuteOutcome{t.step.dims[0].out, t.step.dims[1].out}
}

func finiteSum(v float64) float64 {
	if !(v >= 0) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Clone returns an independent copy of the stream, to simulate minutes
// that may still be revised without advancing the stream itself.
func (t *TableStream) Clone() *TableStream {
	c := *t
	c.step.dims = make([]*scaler, len(t.step.dims))
	for k, d := range t.step.dims {
		cd := *d
		cd.pending = append([]ScalingEvent(nil), d.pending...)
		c.step.dims[k] = &cd
	}
	c.step.sums = append([]float64(nil), t.step.sums...)
	c.step.ins, c.step.wants = nil, nil
	return &c
}

// EvaluateResults compares the billing modes of a table and its GSIs from
// figures simulated elsewhere (a TableStream's outcomes added up over a
// window): per workload its Hours and, in Read and Write, the window's
// Demand, UnitHours, ThrottledUnits and MinutesAtMax. The costs in both
// modes are computed here, as EvaluateTable computes them.
func EvaluateResults(current Mode, p Prices, o Options, results []WorkloadResult) (Evaluation, error) {
	if err := current.Validate(); err != nil {
		return Evaluation{}, err
	}
	if err := p.Validate(); err != nil {
		return Evaluation{}, err
	}
	if err := o.validate(); err != nil {
		return Evaluation{}, err
	}
	if len(results) == 0 {
		return Evaluation{}, fmt.Errorf("capacity: no workloads to evaluate")
	}
	rs := make([]WorkloadResult, len(results))
	for k, r := range results {
		if !(r.Hours >= 1) {
			return Evaluation{}, fmt.Errorf("capacity: workload %d covers %v hours, need at least 1", k, r.Hours)
		}
		r.OnDemand = ReadWrite{
			Read:  r.Read.Demand * p.OnDemandReadPerMillion / 1e6,
			Write: r.Write.Demand * p.OnDemandWritePerMillion / 1e6,
		}
		r.Provisioned = ProvisionedCost(r.Read, r.Write, p)
		rs[k] = r
	}
	return evaluation(current, o.withDefaults(), rs), nil
}
