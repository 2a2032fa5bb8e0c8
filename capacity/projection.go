package capacity

import (
	"fmt"
	"math"
	"time"
)

// The cost a year or two ahead: a window's figures (EvaluateResults'
// input) with the traffic grown by the trend's factor at a horizon, priced
// by the same cost code as today's.
//
// Growth is applied to the window's hourly shape: every hour's consumed
// Sum, of every workload and dimension, times the factor, spread evenly
// over its minutes. On-demand is linear in the units: its projected demand
// is today's × the factor, exactly. Provisioned capacity is not (the
// auto-scaling minimum and maximum, whole units, throttling at a fixed
// capacity or at the maximum): the shape is simulated (TableStream, the
// simulation of today's what-if) with the workload's settings at the factor
// and at 1, and today's unit-hours are multiplied by the ratio of the two;
// the throttled units and the minutes at the maximum the growth adds in the
// shape are added to today's. Anchoring on today's figures keeps month 0
// equal to the window's cost, minute peaks included, which an hourly shape
// alone would smooth away; the ratio carries the non-linear part.
//
// Storage is not projected (no size history is held): a class's projected
// cost keeps today's storage.

// HourlyShape is a workload's consumed units of a window hour by hour.
type HourlyShape struct {
	// Start is the first hour's start.
	Start time.Time
	// Read and Write are the Sums of each hour, in consumed units.
	Read, Write []float64
	// Settings are the workload's provisioning, as in its Workload.
	Settings Settings
}

// shapeRun is the simulation of a shape at one factor.
type shapeRun struct {
	unitHours, throttled [2]float64
	atMax                [2]int
}

// run simulates the shape at factor k.
func (s HourlyShape) run(k float64, defaults *AutoScalingSettings) (shapeRun, error) {
	var out shapeRun
	n := max(len(s.Read), len(s.Write))
	at := func(xs []float64, h int) float64 {
		if h < len(xs) {
			return xs[h] * k / 60
		}
		return 0
	}
	st, err := NewTableStream(s.Start, s.Settings, defaults, ReadWrite{Read: at(s.Read, 0), Write: at(s.Write, 0)})
	if err != nil {
		return out, err
	}
	for h := 0; h < n; h++ {
		r, w := at(s.Read, h), at(s.Write, h)
		for range 60 {
			o := st.Step(r, w)
			for d := range 2 {
				out.unitHours[d] += o[d].Capacity / 60
				out.throttled[d] += o[d].Throttled
				if o[d].AtMax {
					out.atMax[d]++
				}
			}
		}
	}
	return out, nil
}

// grow returns today's result r with the traffic times k: demand × k,
// unit-hours × the shape's at k over at 1, and the throttled units and
// minutes at the maximum the shape adds at k.
func grow(r WorkloadResult, k float64, base, at shapeRun) WorkloadResult {
	dims := []*Simulation{&r.Read, &r.Write}
	for d, sim := range dims {
		sim.Demand *= k
		if base.unitHours[d] > 0 {
			sim.UnitHours *= at.unitHours[d] / base.unitHours[d]
		}
		sim.ThrottledUnits = math.Max(0, sim.ThrottledUnits+at.throttled[d]-base.throttled[d])
		sim.MinutesAtMax = max(0, sim.MinutesAtMax+at.atMax[d]-base.atMax[d])
	}
	return r
}

// Projector projects a table's window figures (today, the Results of
// EvaluateResults' input) to a growth factor; it simulates each workload's
// shape once per factor other than 1, and at 1 once, when first needed (a
// flat trend simulates nothing).
type Projector struct {
	today    []WorkloadResult
	shapes   []HourlyShape
	defaults *AutoScalingSettings
	base     []shapeRun // nil until a factor other than 1 is asked
}

// NewProjector returns a projector of today's results, whose workloads'
// hourly shapes over the same window are shapes (one each, in order).
// defaults is the auto-scaling of a dimension with neither a policy nor a
// fixed capacity (nil: DefaultAutoScaling(), as Options).
func NewProjector(today []WorkloadResult, shapes []HourlyShape, defaults *AutoScalingSettings) (*Projector, error) {
	if len(today) == 0 || len(today) != len(shapes) {
		return nil, fmt.Errorf("capacity: projection of %d workloads with %d shapes", len(today), len(shapes))
	}
	for i, s := range shapes {
		if err := checkSums(fmt.Sprintf("shape %d read", i), s.Read); err != nil {
			return nil, err
		}
		if err := checkSums(fmt.Sprintf("shape %d write", i), s.Write); err != nil {
			return nil, err
		}
		for k, p := range []Provisioning{s.Settings.Read, s.Settings.Write} {
			if err := p.validate(fmt.Sprintf("shape %d Settings.%s", i, []string{"Read", "Write"}[k])); err != nil {
				return nil, err
			}
		}
	}
	if defaults != nil {
		if err := defaults.validate("defaults"); err != nil {
			return nil, err
		}
	}
	return &Projector{today: today, shapes: shapes, defaults: defaults}, nil
}

// At returns today's results with the traffic times factor (a finite
// positive number; 1 returns them unchanged).
func (p *Projector) At(factor float64) ([]WorkloadResult, error) {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("capacity: growth factor %v must be a positive number", factor)
	}
	out := make([]WorkloadResult, len(p.today))
	if factor == 1 {
		copy(out, p.today)
		return out, nil
	}
	if p.base == nil {
		base := make([]shapeRun, len(p.shapes))
		for i, s := range p.shapes {
			b, err := s.run(1, p.defaults)
			if err != nil {
				return nil, fmt.Errorf("capacity: projection of workload %d: %w", i, err)
			}
			base[i] = b
		}
		p.base = base
	}
	for i, s := range p.shapes {
		at, err := s.run(factor, p.defaults)
		if err != nil {
			return nil, fmt.Errorf("capacity: projection of workload %d: %w", i, err)
		}
		out[i] = grow(p.today[i], factor, p.base[i], at)
	}
	return out, nil
}

// ProjectedMonth is the projection at one horizon.
type ProjectedMonth struct {
	// Months is the horizon.
	Months int
	// Factor is the growth applied (Trend.Factor).
	Factor float64
	// Results are the window's results with the traffic grown.
	Results []WorkloadResult
	// Evaluation prices them (EvaluateResults): MonthlyOnDemand and
	// MonthlyProvisioned are the projected monthly costs.
	Evaluation Evaluation
}

// Cheaper returns the mode that costs less a month (on-demand on a tie).
func Cheaper(e Evaluation) Mode {
	if e.MonthlyProvisioned < e.MonthlyOnDemand {
		return Provisioned
	}
	return OnDemand
}

// Projection is a table's cost at horizons ahead at its trend.
type Projection struct {
	// Trend is the fit the growth comes from.
	Trend Trend
	// Today prices today's results (the anchor, month 0).
	Today Evaluation
	// At holds each horizon asked, in order.
	At []ProjectedMonth
	// Crossover is the first month, 1 to the last horizon, whose cheaper
	// mode (Cheaper) differs from today's; 0 when it does not change within
	// the horizon. CrossoverTo is the mode cheaper from then on.
	Crossover   int
	CrossoverTo Mode
}

// Project prices today's results and their growth at the trend's factor
// for each horizon (months, ascending), in the current mode with prices p
// and options o, and finds the crossover month. A flat trend projects
// today's figures (factor 1) without simulating anything; a trend without
// a fit (TrendTooShort) is an error.
//
// The crossover is found by bisection over the whole months up to the last
// horizon: it assumes the cheaper mode changes at most once, which holds
// when provisioned cost per unit of traffic does not rise with the traffic
// (an auto-scaling minimum is shared by more units, a maximum or a fixed
// capacity caps the cost): growth can only make provisioned the cheaper
// mode, decline on-demand.
func Project(current Mode, p Prices, o Options, trend Trend, proj *Projector, horizons ...int) (Projection, error) {
	out := Projection{Trend: trend}
	if trend.Status == TrendTooShort {
		return out, fmt.Errorf("capacity: no projection: the history has %d days with traffic, need %d", trend.Days, MinTrendDays)
	}
	price := func(factor float64) ([]WorkloadResult, Evaluation, error) {
		rs, err := proj.At(factor)
		if err != nil {
			return nil, Evaluation{}, err
		}
		e, err := EvaluateResults(current, p, o, rs)
		return rs, e, err
	}
	var err error
	if _, out.Today, err = price(1); err != nil {
		return out, err
	}
	cheaper := map[int]Mode{0: Cheaper(out.Today)}
	for _, m := range horizons {
		f := trend.Factor(float64(m))
		rs, e, err := price(f)
		if err != nil {
			return out, err
		}
		out.At = append(out.At, ProjectedMonth{Months: m, Factor: f, Results: rs, Evaluation: e})
		cheaper[m] = Cheaper(e)
	}
	if len(horizons) == 0 || trend.Status == TrendFlat {
		return out, nil
	}
	// The first horizon whose cheaper mode differs, and the one before.
	lo, hi := 0, -1
	for _, m := range horizons {
		if cheaper[m] != cheaper[0] {
			hi = m
			break
		}
		lo = m
	}
	if hi < 0 {
		return out, nil
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		_, e, err := price(trend.Factor(float64(mid)))
		if err != nil {
			return out, err
		}
		if Cheaper(e) != cheaper[0] {
			hi = mid
		} else {
			lo = mid
		}
	}
	out.Crossover, out.CrossoverTo = hi, Provisioned
	if cheaper[0] == Provisioned {
		out.CrossoverTo = OnDemand
	}
	return out, nil
}
