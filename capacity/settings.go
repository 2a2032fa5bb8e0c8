package capacity

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Auto-scaling defaults, used when a table has no scaling policy of its own
// (for instance an on-demand table evaluated for provisioned mode).
const (
	// DefaultTarget is the target utilization: 70%, the DynamoDB console
	// default.
	DefaultTarget = 0.70
	// DefaultMin is the minimum capacity: 5 units, the classic DynamoDB
	// default provisioned capacity; the cost of 5 idle units is negligible.
	DefaultMin = 5
	// DefaultMax is the maximum capacity: 40,000 units, the default
	// per-table throughput quota, so the default never caps below what the
	// account allows.
	DefaultMax = 40000
	// DefaultScaleOutDelay is the time from the scale-out decision (the second
	// minute above target, once its datapoint exists) to the new capacity
	// being usable: CloudWatch publishes the minute's datapoint about a minute
	// late, the alarm action and the UpdateTable call take about another, and
	// the table becomes ACTIVE at the new capacity a few minutes later.
	// Five minutes is a realistic middle; tables observed scaling faster or
	// slower should set their own.
	DefaultScaleOutDelay = 5 * time.Minute
)

// Limits of DynamoDB target tracking.
const (
	// MinTarget is the lowest target utilization DynamoDB accepts (20%).
	MinTarget = 0.20
	// MaxTarget is the highest target utilization DynamoDB accepts (90%).
	MaxTarget = 0.90
	// ScaleOutPoints is the number of consecutive minutes above target that
	// trigger a scale-out.
	ScaleOutPoints = 2
	// ScaleInPoints is the number of consecutive minutes below the scale-in
	// threshold that trigger a scale-in.
	ScaleInPoints = 15
	// ScaleInMargin is how far below the target a minute's utilization must
	// be to count toward a scale-in, in utilization points: utilization <
	// Target − ScaleInMargin (50% at a 70% target). Sources: AWS re:Post, "How
	// does DynamoDB auto scaling scale in?" (100 RCU at a 70% target scales in
	// when consumption stays below 50 RCU for 15 minutes), and the low alarm
	// Application Auto Scaling creates for a DynamoDB policy (on 12 RCU at
	// 70%: "< 360 per minute for 15 datapoints", 360 = 12 × 0.5 × 60). At the
	// lowest target, 20%, the threshold is 0 and the policy never scales in.
	ScaleInMargin = 0.20
	// FreeDecreasesPerDay is the number of capacity decreases DynamoDB allows
	// a table or GSI at any time in a UTC day; after them, one decrease per
	// hour is allowed when there was none in the preceding hour. A decrease
	// of read, write or both counts once (DescribeTable's
	// NumberOfDecreasesToday is per table or GSI). Source: Amazon DynamoDB
	// developer guide, "Service, account, and table quotas in Amazon
	// DynamoDB", section "Decreasing provisioned throughput".
	FreeDecreasesPerDay = 4
	// BurstSeconds is how many seconds of unused capacity DynamoDB keeps as
	// burst capacity.
	BurstSeconds = 300
)

// AutoScalingSettings describe a target-tracking scaling policy and its
// scalable target for one dimension (read or write) of a table or GSI.
// Start from DefaultAutoScaling and replace what the table's policy says.
type AutoScalingSettings struct {
	// Target is the target utilization as a ratio, 0.2 to 0.9.
	Target float64 `yaml:"target" json:"target"`
	// Min is the minimum capacity of the scalable target, in units per second.
	Min float64 `yaml:"min" json:"min"`
	// Max is the maximum capacity of the scalable target, in units per second.
	Max float64 `yaml:"max" json:"max"`
	// ScaleOutCooldown is the minimum time between two scale-out decisions.
	ScaleOutCooldown time.Duration `yaml:"scale_out_cooldown" json:"scale_out_cooldown"`
	// ScaleInCooldown is the minimum time between two scale-in decisions.
	ScaleInCooldown time.Duration `yaml:"scale_in_cooldown" json:"scale_in_cooldown"`
	// DisableScaleIn stops the policy from ever lowering capacity.
	DisableScaleIn bool `yaml:"disable_scale_in" json:"disable_scale_in"`
	// ScaleOutDelay is the time from a scale-out decision to the new capacity
	// being in effect. Zero reproduces AWS's evaluator (instant scaling: the
	// capacity serves the next minute).
	ScaleOutDelay time.Duration `yaml:"scale_out_delay" json:"scale_out_delay"`
	// Initial is the capacity at the start of the trace; zero starts at the
	// capacity the policy would choose for the first minute.
	Initial float64 `yaml:"initial" json:"initial"`
	// Scheduled are the scalable target's scheduled actions on this
	// dimension, in the order Application Auto Scaling lists them.
	Scheduled []ScheduledAction `yaml:"scheduled,omitempty" json:"scheduled,omitempty"`
}

// Equal reports whether a and b are the same settings, scheduled actions
// included.
func (a AutoScalingSettings) Equal(b AutoScalingSettings) bool {
	return a.Target == b.Target && a.Min == b.Min && a.Max == b.Max &&
		a.ScaleOutCooldown == b.ScaleOutCooldown && a.ScaleInCooldown == b.ScaleInCooldown &&
		a.DisableScaleIn == b.DisableScaleIn && a.ScaleOutDelay == b.ScaleOutDelay &&
		a.Initial == b.Initial && slices.EqualFunc(a.Scheduled, b.Scheduled, func(p, q ScheduledAction) bool {
		return p.Name == q.Name && p.Schedule == q.Schedule && p.Timezone == q.Timezone &&
			p.Start.Equal(q.Start) && p.End.Equal(q.End) && p.Min == q.Min && p.Max == q.Max
	})
}

// ScheduledAction is an Application Auto Scaling scheduled action on one
// dimension of a table or GSI: at each time its schedule names, it sets the
// scalable target's minimum and/or maximum capacity, and target tracking then
// acts within the new bounds (Application Auto Scaling user guide,
// "Scheduled scaling for Application Auto Scaling").
type ScheduledAction struct {
	// Name is the action's name (ScheduledActionName).
	Name string `yaml:"name" json:"name"`
	// Schedule is the expression as Application Auto Scaling takes it:
	// at(yyyy-mm-ddThh:mm:ss), rate(value unit) or
	// cron(minutes hours day-of-month month day-of-week year).
	Schedule string `yaml:"schedule" json:"schedule"`
	// Timezone is the IANA time zone the schedule is read in; empty is UTC.
	Timezone string `yaml:"timezone,omitempty" json:"timezone,omitempty"`
	// Start and End bound when a recurring action may run; zero is unbounded.
	Start time.Time `yaml:"start,omitempty" json:"start,omitempty"`
	End   time.Time `yaml:"end,omitempty" json:"end,omitempty"`
	// Min and Max are the capacities the action sets, in units per second;
	// zero leaves that bound as it is.
	Min float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max float64 `yaml:"max,omitempty" json:"max,omitempty"`
}

// DefaultAutoScaling returns the settings used for a table without a scaling
// policy: 70% target, min 5, max 40,000, no cooldowns (the DynamoDB target
// tracking default), scale-in enabled, 5-minute scale-out delay.
func DefaultAutoScaling() AutoScalingSettings {
	return AutoScalingSettings{
		Target:        DefaultTarget,
		Min:           DefaultMin,
		Max:           DefaultMax,
		ScaleOutDelay: DefaultScaleOutDelay,
	}
}

// Validate reports the first invalid field.
func (a AutoScalingSettings) Validate() error { return a.validate("AutoScalingSettings") }

// validate reports the first invalid field, named as prefix.Field.
func (a AutoScalingSettings) validate(prefix string) error {
	switch {
	case !(a.Target >= MinTarget && a.Target <= MaxTarget):
		return fmt.Errorf("capacity: %s.Target %v outside [%v, %v]", prefix, a.Target, MinTarget, MaxTarget)
	case !(a.Min >= 1) || math.IsInf(a.Min, 0):
		return fmt.Errorf("capacity: %s.Min %v must be at least 1", prefix, a.Min)
	case !(a.Max >= a.Min) || math.IsInf(a.Max, 0):
		return fmt.Errorf("capacity: %s.Max %v must be a finite number at least Min (%v)", prefix, a.Max, a.Min)
	case a.ScaleOutCooldown < 0:
		return fmt.Errorf("capacity: %s.ScaleOutCooldown %v is negative", prefix, a.ScaleOutCooldown)
	case a.ScaleInCooldown < 0:
		return fmt.Errorf("capacity: %s.ScaleInCooldown %v is negative", prefix, a.ScaleInCooldown)
	case a.ScaleOutDelay < 0:
		return fmt.Errorf("capacity: %s.ScaleOutDelay %v is negative", prefix, a.ScaleOutDelay)
	case !(a.Initial >= 0) || math.IsInf(a.Initial, 0):
		return fmt.Errorf("capacity: %s.Initial %v must be a finite non-negative number", prefix, a.Initial)
	}
	for k, s := range a.Scheduled {
		if _, err := s.ParseSchedule(); err != nil {
			return fmt.Errorf("%w (%s.Scheduled[%d])", err, prefix, k)
		}
	}
	return nil
}

// scaleInBelow is the utilization under which a minute counts toward a
// scale-in: Target − ScaleInMargin, never negative.
func (a AutoScalingSettings) scaleInBelow() float64 {
	return math.Max(0, a.Target-ScaleInMargin)
}

// desired is the capacity the policy sets for a demand of u units per second:
// u ÷ Target rounded up to a whole unit, within [Min, Max].
func (a AutoScalingSettings) desired(u float64) float64 {
	return a.clamp(math.Ceil(u/a.Target - 1e-9))
}

func (a AutoScalingSettings) clamp(c float64) float64 {
	return math.Min(a.Max, math.Max(a.Min, c))
}

// Provisioning says how one dimension of a table is (or would be) provisioned.
// AutoScaling, when set, is simulated; otherwise a positive Fixed capacity is
// held constant (a provisioned table without auto-scaling); otherwise the
// evaluation's default auto-scaling settings are simulated.
type Provisioning struct {
	// AutoScaling is the table's scaling policy, or nil.
	AutoScaling *AutoScalingSettings `yaml:"auto_scaling" json:"auto_scaling"`
	// Fixed is the provisioned capacity of a table without auto-scaling, in
	// units per second; ignored when AutoScaling is set.
	Fixed float64 `yaml:"fixed" json:"fixed"`
}

func (p Provisioning) validate(field string) error {
	if p.AutoScaling != nil {
		return p.AutoScaling.validate(field + ".AutoScaling")
	}
	if !(p.Fixed >= 0) || math.IsInf(p.Fixed, 0) {
		return fmt.Errorf("capacity: %s.Fixed %v must be a finite non-negative number", field, p.Fixed)
	}
	return nil
}

// Settings are the provisioning of both dimensions of a table or GSI.
type Settings struct {
	// Read is the read-capacity provisioning.
	Read Provisioning `yaml:"read" json:"read"`
	// Write is the write-capacity provisioning.
	Write Provisioning `yaml:"write" json:"write"`
}
