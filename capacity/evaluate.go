package capacity

import (
	"fmt"
	"math"
	"time"
)

// Recommendation thresholds used when Options leaves them zero.
const (
	// DefaultMinMonthlySaving is the smallest monthly saving worth a switch.
	DefaultMinMonthlySaving = 50.0
	// DefaultMinRequestRate is the mean traffic, in request units per second
	// (reads + writes), under which managing provisioned capacity is not
	// worth the effort.
	DefaultMinRequestRate = 100.0
	// DefaultMaxThrottledRatio is the share of demand the provisioned
	// simulation may throttle (0.1%) before provisioned mode is considered
	// unable to serve the table.
	DefaultMaxThrottledRatio = 0.001
)

// Options tune an evaluation. Zero fields take the defaults above; a
// negative threshold means zero (no minimum saving, no rate check, no
// throttling tolerated).
type Options struct {
	// MinMonthlySaving is the smallest monthly saving, in USD, that justifies
	// recommending a switch.
	MinMonthlySaving float64 `yaml:"min_monthly_saving" json:"min_monthly_saving"`
	// MinRequestRate is the mean request units per second under which a
	// switch to provisioned is not recommended. Switching to on-demand needs
	// no capacity management, so it is not subject to this threshold.
	MinRequestRate float64 `yaml:"min_request_rate" json:"min_request_rate"`
	// MaxThrottledRatio is the share of demand the provisioned simulation
	// may throttle and still be recommended.
	MaxThrottledRatio float64 `yaml:"max_throttled_ratio" json:"max_throttled_ratio"`
	// DefaultAutoScaling is simulated for a dimension with neither an
	// auto-scaling policy nor a fixed capacity; nil means DefaultAutoScaling().
	DefaultAutoScaling *AutoScalingSettings `yaml:"default_auto_scaling" json:"default_auto_scaling"`
}

// withDefaults resolves zero and negative fields.
func (o Options) withDefaults() Options {
	o.MinMonthlySaving = threshold(o.MinMonthlySaving, DefaultMinMonthlySaving)
	o.MinRequestRate = threshold(o.MinRequestRate, DefaultMinRequestRate)
	o.MaxThrottledRatio = threshold(o.MaxThrottledRatio, DefaultMaxThrottledRatio)
	if o.DefaultAutoScaling == nil {
		d := DefaultAutoScaling()
		o.DefaultAutoScaling = &d
	}
	return o
}

func threshold(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func (o Options) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"MinMonthlySaving", o.MinMonthlySaving}, {"MinRequestRate", o.MinRequestRate}, {"MaxThrottledRatio", o.MaxThrottledRatio}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("capacity: Options.%s must be a finite number, got %v", f.name, f.v)
		}
	}
	if o.DefaultAutoScaling != nil {
		return o.DefaultAutoScaling.validate("Options.DefaultAutoScaling")
	}
	return nil
}

// Method says how a dimension's provisioned capacity was modelled.
type Method string

const (
	// MethodAutoScaling simulates the table's own auto-scaling settings.
	MethodAutoScaling Method = "auto-scaling"
	// MethodDefaultAutoScaling simulates Options.DefaultAutoScaling.
	MethodDefaultAutoScaling Method = "default auto-scaling"
	// MethodFixed holds a fixed capacity.
	MethodFixed Method = "fixed capacity"
)

// Workload is one table or GSI to evaluate: its trace and provisioning.
type Workload struct {
	// Trace is the consumed capacity per minute.
	Trace Trace
	// Settings are the provisioning of each dimension.
	Settings Settings
}

// WorkloadResult is the evaluation of one Workload.
type WorkloadResult struct {
	// Hours is the length of the trace.
	Hours float64
	// Read and Write are the provisioned simulations.
	Read, Write Simulation
	// ReadMethod and WriteMethod say how each was modelled.
	ReadMethod, WriteMethod Method
	// OnDemand and Provisioned are the costs over the trace, in USD.
	OnDemand, Provisioned ReadWrite
}

// Evaluation compares the two billing modes of a table (with its GSIs) over
// its traces. Costs are in USD; "over the trace" amounts cover the traces as
// given and monthly amounts scale them to HoursPerMonth.
type Evaluation struct {
	// Current is the table's billing mode.
	Current Mode
	// Hours is the length of the longest trace.
	Hours float64
	// OnDemand is the on-demand cost over the trace.
	OnDemand ReadWrite
	// Provisioned is the provisioned cost over the trace.
	Provisioned ReadWrite
	// MonthlyOnDemand and MonthlyProvisioned are the monthly equivalents.
	MonthlyOnDemand, MonthlyProvisioned float64
	// CurrentCost and OtherCost are the costs over the trace in the current
	// mode and in the other mode.
	CurrentCost, OtherCost float64
	// MonthlyCurrent and MonthlyOther are their monthly equivalents.
	MonthlyCurrent, MonthlyOther float64
	// MonthlySaving is MonthlyCurrent − MonthlyOther: what switching saves a
	// month (negative when switching costs more).
	MonthlySaving float64
	// Demand is the consumed units of the trace.
	Demand ReadWrite
	// MeanRate is the mean demand in request units per second, reads plus
	// writes, summed over the workloads.
	MeanRate float64
	// Throttled is the demand the provisioned simulation throttles, in units.
	Throttled ReadWrite
	// ThrottledRatio is Throttled ÷ Demand, reads and writes together.
	ThrottledRatio float64
	// MinutesAtMax is the number of minutes, over all workloads and
	// dimensions, when capacity was held at an auto-scaling maximum below
	// what the policy wanted.
	MinutesAtMax int
	// Workloads holds each workload's details, in input order.
	Workloads []WorkloadResult
	// Recommendation is the verdict.
	Recommendation Recommendation
}

// Evaluate compares the billing modes of one table or GSI.
func Evaluate(t Trace, current Mode, s Settings, p Prices, o Options) (Evaluation, error) {
	return EvaluateTable(current, p, o, Workload{Trace: t, Settings: s})
}

// EvaluateTable compares the billing modes of a table and its GSIs, which
// switch mode together, over their whole traces. Each workload is simulated
// separately (its read and write together, see SimulateTable); costs add
// up. Every trace must cover at least an hour; a week or more captures
// weekly cycles.
func EvaluateTable(current Mode, p Prices, o Options, workloads ...Workload) (Evaluation, error) {
	es, err := evaluateWindows(current, p, o, []int{0}, workloads)
	if err != nil {
		return Evaluation{}, err
	}
	return es[0], nil
}

// EvaluateTableWindows compares the billing modes of a table and its GSIs
// over several windows, each the last part of the traces (7 days, 30 days),
// with ONE simulation per workload over its whole trace: each window is read
// off that run (Simulation.Window), so it starts with the capacity, burst
// credit and decreases of the day that the traffic before it left, not from
// a cold start. The minutes of the traces before the longest window only
// warm the simulation up. The figures of a window are therefore the same
// from one evaluation to the next over the minutes both share, and an
// additive figure (a cost, the throttled units) of a window never exceeds
// that of a longer window containing it. A window longer than a trace covers
// the whole trace; a window must cover at least an hour. The result holds
// one Evaluation per window, in order.
func EvaluateTableWindows(current Mode, p Prices, o Options, windows []time.Duration, workloads ...Workload) ([]Evaluation, error) {
	if len(windows) == 0 {
		return nil, fmt.Errorf("capacity: no windows to evaluate")
	}
	minutes := make([]int, len(windows))
	for k, w := range windows {
		if w < time.Hour {
			return nil, fmt.Errorf("capacity: window %d (%v) is shorter than an hour", k, w)
		}
		minutes[k] = int(w / time.Minute)
	}
	return evaluateWindows(current, p, o, minutes, workloads)
}

// evaluateWindows evaluates the last minutes[k] minutes of the traces (0:
// the whole traces) off one simulation per workload.
func evaluateWindows(current Mode, p Prices, o Options, minutes []int, workloads []Workload) ([]Evaluation, error) {
	if err := current.Validate(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if len(workloads) == 0 {
		return nil, fmt.Errorf("capacity: no workloads to evaluate")
	}
	o = o.withDefaults()
	runs := make([]TableSimulation, len(workloads))
	for k, w := range workloads {
		run, err := simulateWorkload(w, *o.DefaultAutoScaling)
		if err != nil && len(workloads) > 1 {
			return nil, fmt.Errorf("workload %d: %w", k, err)
		}
		if err != nil {
			return nil, err
		}
		runs[k] = run
	}
	out := make([]Evaluation, len(minutes))
	for j, m := range minutes {
		results := make([]WorkloadResult, len(workloads))
		for k, w := range workloads {
			n := w.Trace.Minutes()
			lo := 0
			if m > 0 && m < n {
				lo = n - m
			}
			r := WorkloadResult{
				Hours: float64(n-lo) / 60,
				Read:  runs[k].Read.Window(lo, n), Write: runs[k].Write.Window(lo, n),
				ReadMethod: runs[k].ReadMethod, WriteMethod: runs[k].WriteMethod,
				OnDemand: OnDemandCost(w.Trace.window(lo, n), p),
			}
			r.Provisioned = ProvisionedCost(r.Read, r.Write, p)
			results[k] = r
		}
		out[j] = evaluation(current, o, results)
	}
	return out, nil
}

// evaluation adds up the workloads of one window and recommends.
func evaluation(current Mode, o Options, results []WorkloadResult) Evaluation {
	e := Evaluation{Current: current, Workloads: results}
	for _, r := range results {
		e.Hours = math.Max(e.Hours, r.Hours)
		e.OnDemand = e.OnDemand.add(r.OnDemand)
		e.Provisioned = e.Provisioned.add(r.Provisioned)
		e.MonthlyOnDemand += Monthly(r.OnDemand.Total(), r.Hours)
		e.MonthlyProvisioned += Monthly(r.Provisioned.Total(), r.Hours)
		demand := ReadWrite{Read: r.Read.Demand, Write: r.Write.Demand}
		e.Demand = e.Demand.add(demand)
		e.MeanRate += demand.Total() / (r.Hours * 3600)
		e.Throttled = e.Throttled.add(ReadWrite{Read: r.Read.ThrottledUnits, Write: r.Write.ThrottledUnits})
		e.MinutesAtMax += r.Read.MinutesAtMax + r.Write.MinutesAtMax
	}
	if d := e.Demand.Total(); d > 0 {
		e.ThrottledRatio = e.Throttled.Total() / d
	}
	e.CurrentCost, e.OtherCost = e.OnDemand.Total(), e.Provisioned.Total()
	e.MonthlyCurrent, e.MonthlyOther = e.MonthlyOnDemand, e.MonthlyProvisioned
	if current == Provisioned {
		e.CurrentCost, e.OtherCost = e.OtherCost, e.CurrentCost
		e.MonthlyCurrent, e.MonthlyOther = e.MonthlyOther, e.MonthlyCurrent
	}
	e.MonthlySaving = e.MonthlyCurrent - e.MonthlyOther
	e.Recommendation = recommend(e, o)
	return e
}

// simulateWorkload checks a workload and simulates its provisioned capacity.
func simulateWorkload(w Workload, defaults AutoScalingSettings) (TableSimulation, error) {
	if err := w.Trace.Validate(); err != nil {
		return TableSimulation{}, err
	}
	if w.Trace.Minutes() < 60 {
		return TableSimulation{}, fmt.Errorf("capacity: Trace covers %d minutes, need at least 60", w.Trace.Minutes())
	}
	return SimulateTable(w.Trace, w.Settings, defaults)
}

// CombineEvaluations is the evaluation of a global table from the
// evaluations of its replicas over the same window: one decision for the
// whole global table, since switching the capacity mode of a replica in any
// region switches every replica (AWS, "Best practices and requirements for
// managing global tables"). Each replica's workloads keep the costs they
// were priced at (its region's prices; its consumed writes include the
// writes replicated to it, billed as replicated write units, which AWS
// prices the same as single-Region write units: "Global tables billing"),
// so the combined costs and saving are the sums over the replicas, and the
// recommendation is made once on those sums with o. The replicas must share
// their billing mode.
func CombineEvaluations(o Options, evals ...Evaluation) (Evaluation, error) {
	if len(evals) == 0 {
		return Evaluation{}, fmt.Errorf("capacity: no replica evaluations to combine")
	}
	if err := o.validate(); err != nil {
		return Evaluation{}, err
	}
	var rs []WorkloadResult
	for i, e := range evals {
		if e.Current != evals[0].Current {
			return Evaluation{}, fmt.Errorf("capacity: replica %d is %s, replica 0 %s: a global table has one billing mode (a switch in progress?)", i, e.Current, evals[0].Current)
		}
		if len(e.Workloads) == 0 {
			return Evaluation{}, fmt.Errorf("capacity: replica %d has no workloads", i)
		}
		rs = append(rs, e.Workloads...)
	}
	return evaluation(evals[0].Current, o.withDefaults(), rs), nil
}
