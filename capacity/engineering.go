package capacity

import (
	"fmt"
	"math"
)

// Engineering is what operating one table costs the team a month in each
// billing mode, beside AWS's bill: the seed's fifth axis ("engineering
// time": capacity planning, tuning auto-scaling, throttling incidents for a
// provisioned table; watching the bill of an on-demand one). The hours are
// the team's own estimate per table; the zero value is off.
type Engineering struct {
	// HourlyRate is the cost of an hour of the team's time, in USD.
	HourlyRate float64
	// OnDemandHours and ProvisionedHours are the hours a month one table
	// takes in each mode.
	OnDemandHours, ProvisionedHours float64
}

// On reports whether engineering costs are set (a rate and some hours).
func (e Engineering) On() bool {
	return e.HourlyRate > 0 && (e.OnDemandHours > 0 || e.ProvisionedHours > 0)
}

// Monthly is the engineering cost a month of one table in mode m, in USD;
// zero when off or for an unknown mode.
func (e Engineering) Monthly(m Mode) float64 {
	if !e.On() {
		return 0
	}
	switch m {
	case OnDemand:
		return e.OnDemandHours * e.HourlyRate
	case Provisioned:
		return e.ProvisionedHours * e.HourlyRate
	}
	return 0
}

// Validate reports the first field that is negative or not finite.
func (e Engineering) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"HourlyRate", e.HourlyRate}, {"OnDemandHours", e.OnDemandHours}, {"ProvisionedHours", e.ProvisionedHours}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("capacity: Engineering.%s %v must be a finite non-negative number", f.name, f.v)
		}
	}
	return nil
}

// TotalCost is a window's monthly cost in each mode with the team's
// engineering time added to the bill, and the mode that costs less in
// total.
type TotalCost struct {
	// OnDemand and Provisioned are bill plus engineering, USD a month.
	OnDemand, Provisioned float64
	// Cheaper is the mode of the lower total; empty when they are equal.
	Cheaper Mode
}

// Total adds e to the monthly bills of an evaluation.
func (e Engineering) Total(ev Evaluation) TotalCost {
	t := TotalCost{
		OnDemand:    ev.MonthlyOnDemand + e.Monthly(OnDemand),
		Provisioned: ev.MonthlyProvisioned + e.Monthly(Provisioned),
	}
	switch {
	case t.OnDemand < t.Provisioned:
		t.Cheaper = OnDemand
	case t.Provisioned < t.OnDemand:
		t.Cheaper = Provisioned
	}
	return t
}
