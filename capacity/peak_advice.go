package capacity

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MinScheduleWhatIf is the least span of minutes a proposal's what-if
// must cover to judge it: one day, so that it holds the recurring peak.
const MinScheduleWhatIf = 24 * time.Hour

// PeakAction is the way a dimension's peaks are best served: the outcomes
// the recommendation gains beside keep and switch (issue 22, part 1).
type PeakAction string

// Peak actions.
const (
	// PeakActionNone: nothing to add (steady traffic, or too little history).
	PeakActionNone PeakAction = "none"
	// PeakActionTargetTracking: target tracking alone serves the peaks (they
	// ramp slower than it reacts, or scheduled actions already cover them).
	PeakActionTargetTracking PeakAction = "target_tracking"
	// PeakActionAddScheduledScaling: add the proposed scheduled actions.
	PeakActionAddScheduledScaling PeakAction = "add_scheduled_scaling"
	// PeakActionPreWarm: the peaks come faster than target tracking reacts
	// and at no fixed time: put capacity in place before known events
	// (a one-time at() scheduled action raising MinCapacity, or the table's
	// warm throughput for an on-demand table).
	PeakActionPreWarm PeakAction = "pre_warm_before_events"
)

// PeakReason is the reason code of a PeakAdvice, for metric labels.
type PeakReason string

// Peak reasons.
const (
	// PeakReasonShortHistory: fewer whole days than the rule needs.
	PeakReasonShortHistory PeakReason = "short_history"
	// PeakReasonSteady: no day has a peak.
	PeakReasonSteady PeakReason = "steady"
	// PeakReasonRecurring: a recurring peak that the proposal serves with
	// less throttling.
	PeakReasonRecurring PeakReason = "recurring_peak"
	// PeakReasonRecurringServed: a recurring peak that the policy and its
	// existing scheduled actions already serve (the proposal avoids less
	// than half a unit).
	PeakReasonRecurringServed PeakReason = "recurring_peak_served"
	// PeakReasonRecurringUnjudged: a recurring peak whose proposal's
	// what-if has run less than a day (ScheduleProposal.Covered): too soon
	// to tell whether it avoids throttling.
	PeakReasonRecurringUnjudged PeakReason = "recurring_peak_unjudged"
	// PeakReasonRecurringNoPolicy: a recurring peak on a dimension without
	// an auto-scaling policy (fixed provisioned capacity): scheduled
	// actions act on a scalable target, which it lacks.
	PeakReasonRecurringNoPolicy PeakReason = "recurring_peak_no_policy"
	// PeakReasonRamping: the peak ramps slower than target tracking reacts.
	PeakReasonRamping PeakReason = "ramping_peak"
	// PeakReasonFlash: the peak rises faster than target tracking reacts.
	PeakReasonFlash PeakReason = "flash_peak"
)

// PeakAdvice is what to do about a dimension's peaks.
type PeakAdvice struct {
	Action PeakAction
	Code   PeakReason
	// Reason explains it with figures.
	Reason string
}

// Advice returns what to do about the peaks.
func (p Peaks) Advice() PeakAdvice {
	hhmm := func(m int) string { return fmt.Sprintf("%02d:%02d UTC", m/60%24, m%60) }
	switch p.Kind {
	case PeakUnknown:
		return PeakAdvice{PeakActionNone, PeakReasonShortHistory, p.Reason}
	case PeakSteady:
		return PeakAdvice{PeakActionNone, PeakReasonSteady, fmt.Sprintf("no day of the last %d reaches twice its median", p.Days)}
	case PeakRecurring:
		pr := p.Proposal
		what := fmt.Sprintf("a peak of %.0f units/s starts at about %s on %d of the last %d days", p.PeakDemand, hhmm(p.StartMinute), p.Recurring, p.Days)
		if p.Weekly {
			what = fmt.Sprintf("a peak of %.0f units/s starts at about %s on %d of the last %d %ss", p.PeakDemand, hhmm(p.StartMinute), p.Recurring, p.Weeks, p.Weekday)
		}
		switch {
		case pr == nil && p.NoPolicy:
			return PeakAdvice{PeakActionNone, PeakReasonRecurringNoPolicy, what + "; the dimension has no auto-scaling policy, which scheduled actions need"}
		case pr != nil && pr.Covered < MinScheduleWhatIf:
			return PeakAdvice{PeakActionNone, PeakReasonRecurringUnjudged, fmt.Sprintf("%s; the what-if of raising MinCapacity to %g with %s has run %s of the %s it needs",
				what, pr.Raise.Min, pr.Raise.Schedule, pr.Covered.Truncate(time.Minute), MinScheduleWhatIf)}
		}
		if pr == nil || !pr.Worthwhile() {
			return PeakAdvice{PeakActionTargetTracking, PeakReasonRecurringServed, what + "; the policy and its scheduled actions already serve it"}
		}
		var parts []string
		if pr.Without.ThrottledUnits > 0 {
			parts = append(parts, fmt.Sprintf("%.0f of %.0f throttled units", pr.ThrottledUnitsAvoided(), pr.Without.ThrottledUnits))
		}
		if pr.SaturatedMinutesAvoided() > 0 {
			parts = append(parts, fmt.Sprintf("%.0f of %.0f minutes at capacity (demand capped by throttling)", pr.SaturatedMinutesAvoided(), pr.Without.SaturatedMinutes))
		}
		avoided := strings.Join(parts, " and ")
		return PeakAdvice{PeakActionAddScheduledScaling, PeakReasonRecurring, fmt.Sprintf(
			"%s; raising MinCapacity to %g with %s (%d minutes ahead) and lowering it to %g with %s avoids %s, at %s instead of %s",
			what, pr.Raise.Min, pr.Raise.Schedule, pr.LeadMinutes, pr.Lower.Min, pr.Lower.Schedule,
			avoided, dollars(pr.With.MonthlyCost), dollars(pr.Without.MonthlyCost))}
	case PeakRamping:
		return PeakAdvice{PeakActionTargetTracking, PeakReasonRamping, fmt.Sprintf(
			"the highest peak (%.0f units/s) rises over %d minutes, slower than target tracking reacts (%d minutes)", p.PeakDemand, p.RampMinutes, p.ReactionMinutes)}
	}
	return PeakAdvice{PeakActionPreWarm, PeakReasonFlash, fmt.Sprintf(
		"the highest peak (%.0f units/s, %.0f× the median) rises in %d minutes, faster than target tracking reacts (%d minutes), and does not recur at one hour",
		p.PeakDemand, p.PeakDemand/max(p.BaseDemand, 1e-9), p.RampMinutes, p.ReactionMinutes)}
}

// ScalableDimension returns Application Auto Scaling's name of a dimension
// of a table (index false) or a GSI.
func ScalableDimension(d Dimension, index bool) string {
	kind, unit := "table", "ReadCapacityUnits"
	if index {
		kind = "index"
	}
	if d == Write {
		unit = "WriteCapacityUnits"
	}
	return "dynamodb:" + kind + ":" + unit
}

// ResourceID returns Application Auto Scaling's resource ID of a table or,
// with a non-empty index, of one of its GSIs.
func ResourceID(table, index string) string {
	if index == "" {
		return "table/" + table
	}
	return "table/" + table + "/index/" + index
}

// PutScheduledActionCommand returns the AWS CLI command that creates (or
// updates) the scheduled action a on a dimension of a table or GSI.
func PutScheduledActionCommand(table, index string, d Dimension, a ScheduledAction) string {
	var target []string
	if a.Min > 0 {
		target = append(target, "MinCapacity="+strconv.FormatFloat(a.Min, 'f', -1, 64))
	}
	if a.Max > 0 {
		target = append(target, "MaxCapacity="+strconv.FormatFloat(a.Max, 'f', -1, 64))
	}
	cmd := fmt.Sprintf("aws application-autoscaling put-scheduled-action --service-namespace dynamodb --resource-id %s --scalable-dimension %s --scheduled-action-name %s --schedule %q",
		ResourceID(table, index), ScalableDimension(d, index != ""), a.Name, a.Schedule)
	if a.Timezone != "" {
		cmd += " --timezone " + a.Timezone
	}
	if len(target) > 0 {
		cmd += " --scalable-target-action " + strings.Join(target, ",")
	}
	return cmd
}
