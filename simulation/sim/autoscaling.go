package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// policy is a target-tracking policy in minutes and ratios.
type policy struct {
	target, min, max        float64
	outCooldown, inCooldown int64
	delay                   int64
	noScaleIn               bool
}

func newPolicy(ps *PolicySpec) *policy {
	if ps == nil {
		return nil
	}
	return &policy{
		target: ps.Target / 100, min: ps.Min, max: ps.Max,
		outCooldown: ceilMinutes(ps.ScaleOutCooldown.D().Minutes()),
		inCooldown:  ceilMinutes(ps.ScaleInCooldown.D().Minutes()),
		delay:       ceilMinutes(ps.Delay.D().Minutes()),
		noScaleIn:   ps.DisableScaleIn,
	}
}

func ceilMinutes(m float64) int64 { return int64(math.Ceil(m - 1e-9)) }

// desired is the capacity the policy sets for u units/s: u ÷ target rounded
// up, within [min, max].
func (p *policy) desired(u float64) float64 {
	return math.Min(p.max, math.Max(p.min, math.Ceil(u/p.target-1e-9)))
}

func (p *policy) clamp(c float64) float64 { return math.Min(p.max, math.Max(p.min, c)) }

// change is a decided capacity change that takes effect at a minute.
type change struct {
	decided, effective int64
	to                 float64
}

// decide runs the target-tracking alarms at the end of minute m, whose
// consumption was u units/s, as DynamoDB auto-scaling does (rules.go names
// the sources): a scale-out after scaleOutPoints (2) consecutive minutes
// above target, to u ÷ target, serving after the policy's delay; a
// scale-in after scaleInPoints (15) consecutive minutes below target −
// scaleInMarginPoints (20) percentage points, to the highest consumption of
// the last scaleInLookback (15) minutes ÷ target, for the next minute
// (DynamoDB's decrease limits are applied by the server when it takes
// effect).
func (s *dirState) decide(m int64, u float64) {
	p := s.policy
	s.recent[s.recentPos] = u
	s.recentPos = (s.recentPos + 1) % scaleInLookback
	hi := u > p.target*s.cap
	lo := u < p.scaleInBelow()*s.cap
	s.above, s.below = run(s.above, hi), run(s.below, lo)
	if s.above >= scaleOutPoints && m-s.lastOut >= p.outCooldown {
		top := s.cap
		if n := len(s.pending); n > 0 {
			top = s.pending[n-1].to
		}
		if want := p.desired(u); want > top {
			s.pending = append(s.pending, change{decided: m, effective: m + 1 + p.delay, to: want})
			s.lastOut = m
		}
		return
	}
	if p.noScaleIn || len(s.pending) > 0 || s.below < scaleInPoints || m-s.lastIn < p.inCooldown {
		return
	}
	if want := p.desired(s.recentMax()); want < s.cap {
		s.decrease = &change{decided: m, effective: m + 1, to: want}
	}
}

// scaleInBelow is the utilization (a ratio) under which a minute counts
// toward a scale-in: the target minus scaleInMarginPoints percentage
// points (0.50 at a 0.70 target).
func (p *policy) scaleInBelow() float64 {
	return p.target - scaleInMarginPoints/100.0
}

// recentMax is the highest consumption (units/s) of the last
// scaleInLookback minutes.
func (s *dirState) recentMax() float64 {
	var x float64
	for _, v := range s.recent {
		x = math.Max(x, v)
	}
	return x
}

func run(n int, hit bool) int {
	if hit {
		return n + 1
	}
	return 0
}

// due returns the capacity this dimension should have from minute m on
// (true if it changes), taking the scale-outs and scale-in that fall due.
func (s *dirState) due(m int64) (float64, *change, bool) {
	c := s.cap
	var last *change
	for len(s.pending) > 0 && s.pending[0].effective <= m {
		if s.pending[0].to > c {
			ch := s.pending[0]
			c, last = ch.to, &ch
		}
		s.pending = s.pending[1:]
	}
	if last == nil && s.decrease != nil && s.decrease.effective <= m {
		last = s.decrease
		c = last.to
	}
	s.decrease = nil
	if s.rebound && s.policy != nil {
		// A scheduled action changed the bounds: "if the current
		// capacity is below the minimum capacity, Application Auto
		// Scaling scales out to the minimum capacity. If the current
		// capacity is above the maximum capacity, Application Auto
		// Scaling scales in to the maximum capacity" (scheduled.go in
		// awssim names the sources). A scale-out decided before and
		// falling due now is held to the new maximum as well.
		if cc := s.policy.clamp(c); cc != c {
			c, last = cc, &change{decided: m - 1, effective: m, to: cc}
		}
	}
	s.rebound = false
	return c, last, last != nil && c != s.cap
}

// schedActions parses a dimension's scheduled actions (validated with the
// scenario) with the simulated Application Auto Scaling's rules.
func (t *tableSim) schedActions(specs []ScheduledSpec) []schedAction {
	var out []schedAction
	start := minuteTime(t.e.start)
	created := start.Add(t.spec.Created.D())
	for _, a := range specs {
		var from, to time.Time
		if a.Start != nil {
			from = start.Add(a.Start.D())
		}
		if a.End != nil {
			to = start.Add(a.End.D())
		}
		sched, err := awssim.ParseSchedule(a.Schedule, a.Timezone, from, to, created)
		if err != nil {
			t.noteErr(fmt.Errorf("scheduled action %s: %w", a.Name, err))
			continue
		}
		out = append(out, schedAction{name: a.Name, sched: sched, min: a.Min, max: a.Max})
	}
	return out
}

// runScheduled runs the scheduled actions due at the minute at: each sets the
// scalable target's bounds (in the server too, as DescribeScalableTargets
// then reports them); the dimension's capacity is brought within them when
// its changes fall due (dirState.due), in the same minute. An action whose minimum would
// exceed the maximum changes nothing.
func (t *tableSim) runScheduled(at time.Time) {
	for _, en := range t.ents {
		for d := range en.dirs {
			s := &en.dirs[d]
			for _, a := range s.actions {
				if s.policy == nil || !a.sched.Due(at) {
					continue
				}
				p := s.policy
				lo, hi := p.min, p.max
				if a.min > 0 {
					lo = a.min
				}
				if a.max > 0 {
					hi = a.max
				}
				run := ScheduledRun{Table: t.name, Index: en.index, Read: d == 0, Action: a.name, At: at, Min: lo, Max: hi}
				if lo > hi {
					run.Refused = fmt.Sprintf("MinCapacity %v would exceed MaxCapacity %v", lo, hi)
					run.Min, run.Max = p.min, p.max
					t.runs = append(t.runs, run)
					continue
				}
				p.min, p.max, s.rebound = lo, hi, true
				id, dim := scalingResource(t.name, en.index, d == 0)
				if err := t.e.srv.SetScalableTargetBounds(t.region, id, dim, int32(lo), int32(hi)); err != nil {
					t.noteErr(err)
				}
				t.runs = append(t.runs, run)
			}
		}
	}
}

// scalingResource is the Application Auto Scaling resource ID and
// scalable dimension of a table's or GSI's read or write capacity.
func scalingResource(table, index string, read bool) (id, dim string) {
	id = "table/" + table
	dims := [2]string{awssim.DimTableRead, awssim.DimTableWrite}
	if index != "" {
		id += "/index/" + index
		dims = [2]string{awssim.DimIndexRead, awssim.DimIndexWrite}
	}
	if read {
		return id, dims[0]
	}
	return id, dims[1]
}
