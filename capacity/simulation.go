package capacity

import (
	"fmt"
	"math"
	"time"
)

// Simulation is the provisioned capacity of one dimension over a Series.
// Capacities are in units per second; demand and throttled amounts are in
// consumed units (unit-seconds), like the Series.
type Simulation struct {
	// Start is the beginning of the first minute.
	Start time.Time
	// Capacity is the provisioned capacity in effect during each minute.
	Capacity []float64
	// HourlyMean is the mean capacity of each UTC clock hour the series
	// touches, over the minutes of the series in that hour.
	HourlyMean []float64
	// UnitHours is the provisioned capacity integrated over time: Σ over
	// minutes of capacity ÷ 60, which equals Σ over hours of the hourly mean
	// × the hour's covered fraction.
	UnitHours float64
	// ScaleOuts and ScaleIns count target tracking's scaling decisions (the
	// raises of scheduled actions are in Events only; a fall to a Max they
	// lowered counts as a scale-in).
	ScaleOuts, ScaleIns int
	// Events lists the scaling decisions in order.
	Events []ScalingEvent
	// Demand is the total consumed units of the series.
	Demand float64
	// PeakDemand is the highest per-minute demand, in units per second.
	PeakDemand float64
	// ThrottledUnits is the demand above the capacity in effect, after burst
	// capacity. It is estimated from minute sums, so spikes shorter than a
	// minute are not seen.
	ThrottledUnits float64
	// ThrottledMinutes counts the minutes with throttled units.
	ThrottledMinutes int
	// MinutesAtMax counts the minutes when capacity was at the auto-scaling
	// maximum while demand was above Max × Target: the maximum is below what
	// the policy wanted. Always zero for a fixed capacity.
	MinutesAtMax int

	// Per minute: the demand (the series' Sums), the throttled units,
	// whether capacity was held at the maximum and whether the burst was
	// spent (MinuteOutcome.BurstSpent); Window reads them.
	demand     []float64
	throttled  []float64
	atMax      []bool
	burstSpent []bool
}

// ScalingEvent is one auto-scaling decision.
type ScalingEvent struct {
	// Minute is the index of the minute whose datapoint triggered the
	// decision; the decision is taken at the end of that minute.
	Minute int
	// Effective is the index of the first minute served at the new capacity.
	Effective int
	// From and To are the capacities before and after.
	From, To float64
	// Scheduled is true for the raise of a scheduled action (its Minute is
	// the action's, at whose start it runs).
	Scheduled bool
}

// Summary returns the simulation without its per-minute arrays (Capacity,
// and the demand, throttled units and at-maximum flags Window reads): the
// figures a caller keeps after the run, at a few hundred bytes instead of
// about 25 bytes per simulated minute. Window must not be called on a
// summary.
func (s Simulation) Summary() Simulation {
	s.Capacity, s.demand, s.throttled, s.atMax, s.burstSpent = nil, nil, nil, nil, nil
	return s
}

// Summary returns the evaluation with every workload's simulations
// summarised (Simulation.Summary).
func (e Evaluation) Summary() Evaluation {
	ws := make([]WorkloadResult, len(e.Workloads))
	for i, w := range e.Workloads {
		w.Read, w.Write = w.Read.Summary(), w.Write.Summary()
		ws[i] = w
	}
	e.Workloads = ws
	return e
}

// Out reports whether the event raised capacity.
func (e ScalingEvent) Out() bool { return e.To > e.From }

// Cost returns the provisioned cost at a price per unit-hour.
func (s Simulation) Cost(unitHour float64) float64 { return s.UnitHours * unitHour }

// ThrottledRatio returns ThrottledUnits ÷ Demand (0 when there is no demand).
func (s Simulation) ThrottledRatio() float64 {
	if s.Demand == 0 {
		return 0
	}
	return s.ThrottledUnits / s.Demand
}

// newSimulation prepares a Simulation with the demand statistics of s.
func newSimulation(s Series) Simulation {
	n := len(s.Sum)
	sim := Simulation{Start: s.Start, Capacity: make([]float64, n), demand: s.Sum, throttled: make([]float64, n), atMax: make([]bool, n), burstSpent: make([]bool, n)}
	for _, v := range s.Sum {
		sim.Demand += v
		sim.PeakDemand = math.Max(sim.PeakDemand, v/60)
	}
	return sim
}

// Window returns the part of the simulation over minutes [from, to) of its
// series, as if read off the same run: capacities, throttling and scaling
// decisions of those minutes, with the state the minutes before left (no
// cold start). Minute indexes of the events are relative to from. It panics
// when the range is outside the simulation, like a slice expression.
func (s Simulation) Window(from, to int) Simulation {
	w := Simulation{
		Start:      s.Start.Add(time.Duration(from) * time.Minute),
		Capacity:   s.Capacity[from:to:to],
		demand:     s.demand[from:to:to],
		throttled:  s.throttled[from:to:to],
		atMax:      s.atMax[from:to:to],
		burstSpent: s.burstSpent[from:to:to],
	}
	for i, c := range w.Capacity {
		w.UnitHours += c / 60
		w.Demand += w.demand[i]
		w.PeakDemand = math.Max(w.PeakDemand, w.demand[i]/60)
		if t := w.throttled[i]; t > 0 {
			w.ThrottledUnits += t
			w.ThrottledMinutes++
		}
		if w.atMax[i] {
			w.MinutesAtMax++
		}
	}
	for _, ev := range s.Events {
		if ev.Minute < from || ev.Minute >= to {
			continue
		}
		ev.Minute -= from
		ev.Effective -= from
		w.Events = append(w.Events, ev)
		if ev.Scheduled {
			continue
		}
		if ev.Out() {
			w.ScaleOuts++
		} else {
			w.ScaleIns++
		}
	}
	w.finish()
	return w
}

// account records minute i served at capacity c with t units throttled.
func (sim *Simulation) account(i int, c, t float64, burstSpent bool) {
	sim.Capacity[i] = c
	sim.burstSpent[i] = burstSpent
	sim.UnitHours += c / 60
	if t > 0 {
		sim.throttled[i] = t
		sim.ThrottledUnits += t
		sim.ThrottledMinutes++
	}
}

// finish computes the hourly means over UTC clock hours.
func (sim *Simulation) finish() {
	if len(sim.Capacity) == 0 {
		return
	}
	first := sim.Start.UTC().Truncate(time.Hour)
	var sum float64
	var n int
	hour := 0
	for i, c := range sim.Capacity {
		h := int(sim.Start.Add(time.Duration(i)*time.Minute).Sub(first) / time.Hour)
		if h != hour { // minutes are contiguous: h == hour+1
			sim.HourlyMean = append(sim.HourlyMean, sum/float64(n))
			sum, n, hour = 0, 0, h
		}
		sum += c
		n++
	}
	sim.HourlyMean = append(sim.HourlyMean, sum/float64(n))
}

// SimulateFixed serves a series at a constant capacity (a provisioned table
// without auto-scaling) and counts the throttled demand.
func SimulateFixed(s Series, capacity float64) (Simulation, error) {
	if err := s.Validate(); err != nil {
		return Simulation{}, err
	}
	if !(capacity > 0) || math.IsInf(capacity, 0) {
		return Simulation{}, fmt.Errorf("capacity: fixed capacity %v must be a positive number", capacity)
	}
	sim := newSimulation(s)
	b := fullBurst(capacity)
	for i, v := range s.Sum {
		t := b.serve(v, capacity)
		sim.account(i, capacity, t, b.spent(capacity))
	}
	sim.finish()
	return sim, nil
}
