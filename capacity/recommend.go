package capacity

import (
	"fmt"
	"strings"
)

// Action is what a Recommendation advises.
type Action string

const (
	// Keep advises staying in the current billing mode.
	Keep Action = "keep"
	// SwitchToOnDemand advises switching to PAY_PER_REQUEST.
	SwitchToOnDemand Action = "switch_to_on_demand"
	// SwitchToProvisioned advises switching to PROVISIONED with auto-scaling.
	SwitchToProvisioned Action = "switch_to_provisioned"
)

// Recommendation is the verdict of an Evaluation.
type Recommendation struct {
	// Action is keep or switch.
	Action Action
	// Mode is the billing mode recommended (the current one for Keep).
	Mode Mode
	// Reason explains the verdict with figures only.
	Reason string
	// Code is the reason as one of a small fixed set, for metric labels.
	Code ReasonCode
}

// ReasonCode names the deciding reason of a Recommendation.
type ReasonCode string

const (
	// ReasonCheaper: the current mode costs less (keep), or the other mode
	// saves at least the minimum (switch).
	ReasonCheaper ReasonCode = "cheaper"
	// ReasonSavingBelowMinimum: the other mode is cheaper, but by less than
	// Options.MinMonthlySaving.
	ReasonSavingBelowMinimum ReasonCode = "saving_below_minimum"
	// ReasonSimulatedThrottling: provisioned is cheaper but its auto-scaling
	// simulation throttles more than Options.MaxThrottledRatio.
	ReasonSimulatedThrottling ReasonCode = "simulated_throttling"
	// ReasonTrafficBelowMinimum: provisioned is cheaper but traffic is under
	// Options.MinRequestRate.
	ReasonTrafficBelowMinimum ReasonCode = "traffic_below_minimum"
)

// recommend decides from the figures of e, whose thresholds o has resolved.
//
// A switch needs a monthly saving of at least MinMonthlySaving. A switch to
// provisioned also needs the simulation to throttle at most
// MaxThrottledRatio of demand and mean traffic of at least MinRequestRate.
// A provisioned table that throttles keeps its mode (raising capacity is the
// usual fix) unless on-demand is also cheaper; the reason says so.
func recommend(e Evaluation, o Options) Recommendation {
	costs := fmt.Sprintf("provisioned %s, on-demand %s", dollars(e.MonthlyProvisioned), dollars(e.MonthlyOnDemand))
	throttles := e.ThrottledRatio > o.MaxThrottledRatio
	keep := func(code ReasonCode, why ...string) Recommendation {
		return Recommendation{Action: Keep, Mode: e.Current, Reason: join(why...), Code: code}
	}
	if e.Current == OnDemand {
		switch {
		case e.MonthlySaving <= 0:
			return keep(ReasonCheaper, "on-demand is cheaper ("+costs+")", throttleNote(e))
		case e.MonthlySaving < o.MinMonthlySaving:
			return keep(ReasonSavingBelowMinimum, fmt.Sprintf("provisioned would save %s (%s), below the %s minimum", dollars(e.MonthlySaving), costs, dollars(o.MinMonthlySaving)), throttleNote(e))
		case throttles:
			return keep(ReasonSimulatedThrottling, fmt.Sprintf("provisioned would save %s (%s)", dollars(e.MonthlySaving), costs),
				fmt.Sprintf("but its auto-scaling simulation %s, above the %.2f%% tolerated", throttleText(e), 100*o.MaxThrottledRatio), maxNote(e))
		case e.MeanRate < o.MinRequestRate:
			return keep(ReasonTrafficBelowMinimum, fmt.Sprintf("provisioned would save %s (%s)", dollars(e.MonthlySaving), costs),
				fmt.Sprintf("but traffic averages %.1f request units/s, below the %.0f units/s worth managing capacity for", e.MeanRate, o.MinRequestRate))
		}
		return Recommendation{Action: SwitchToProvisioned, Mode: Provisioned, Code: ReasonCheaper,
			Reason: join(fmt.Sprintf("provisioned would save %s (%s)", dollars(e.MonthlySaving), costs), throttleNote(e))}
	}
	switch {
	case e.MonthlySaving >= o.MinMonthlySaving && e.MonthlySaving > 0:
		return Recommendation{Action: SwitchToOnDemand, Mode: OnDemand, Code: ReasonCheaper,
			Reason: join(fmt.Sprintf("on-demand would save %s (%s)", dollars(e.MonthlySaving), costs), throttleNote(e), maxNote(e))}
	case e.MonthlySaving > 0:
		return keep(ReasonSavingBelowMinimum, fmt.Sprintf("on-demand would save %s (%s), below the %s minimum", dollars(e.MonthlySaving), costs, dollars(o.MinMonthlySaving)), throttleNote(e), maxNote(e))
	case throttles:
		fix := fmt.Sprintf("on-demand would avoid it for %s more", dollars(-e.MonthlySaving))
		if e.MinutesAtMax > 0 {
			fix = "raise the auto-scaling maximum or " + fix
		}
		return keep(ReasonSimulatedThrottling, "provisioned is cheaper ("+costs+")", "but it "+throttleText(e), maxNote(e), fix)
	}
	return keep(ReasonCheaper, "provisioned is cheaper ("+costs+")", throttleNote(e))
}

// throttleText describes the simulated throttling.
func throttleText(e Evaluation) string {
	return fmt.Sprintf("throttles %.0f request units (%.2f%% of demand)", e.Throttled.Total(), 100*e.ThrottledRatio)
}

// throttleNote mentions throttling when the provisioned simulation has any.
func throttleNote(e Evaluation) string {
	if e.Throttled.Total() < 0.5 {
		return ""
	}
	return "the provisioned simulation " + throttleText(e)
}

// maxNote mentions minutes held at an auto-scaling maximum below demand.
func maxNote(e Evaluation) string {
	if e.MinutesAtMax == 0 {
		return ""
	}
	return fmt.Sprintf("capacity is at the auto-scaling maximum, below what demand needs, for %d minutes", e.MinutesAtMax)
}

// join joins the non-empty parts with "; ".
func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}
