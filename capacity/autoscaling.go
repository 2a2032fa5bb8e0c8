package capacity

import (
	"math"
	"time"
)

// SimulateProvisioned simulates target-tracking auto-scaling over a series,
// following AWS's capacity-mode evaluator with a scale-out delay:
//
//   - Utilization of a minute is its demand (Sum ÷ 60) over the capacity in
//     effect during that minute.
//   - Scale-out: at the end of a minute that makes ScaleOutPoints (2)
//     consecutive minutes above Target, capacity is set to demand ÷ Target
//     (rounded up, at most Max) if that exceeds the capacity in effect and any
//     pending scale-out, and ScaleOutCooldown has passed since the previous
//     scale-out decision. The new capacity serves minutes from ScaleOutDelay
//     after the decision (the next minute when the delay is zero).
//   - Scale-in: at the end of a minute that makes ScaleInPoints (15)
//     consecutive minutes at the same capacity below Target × (1 −
//     ScaleInHeadroom), with no scale-out pending, scale-in enabled and
//     ScaleInCooldown passed since the previous scale-in, capacity is set to
//     demand ÷ Target (rounded up, at least Min) for the next minute, if that
//     is lower and DynamoDB allows a decrease: FreeDecreasesPerDay per UTC
//     day at any time, then one when there was none in the preceding hour.
//   - Demand above capacity, after BurstSeconds of banked unused capacity,
//     is throttled. Decisions use the trace's demand, not the throttled
//     consumption CloudWatch would show, as AWS's evaluator does.
func SimulateProvisioned(s Series, a AutoScalingSettings) (Simulation, error) {
	if err := s.Validate(); err != nil {
		return Simulation{}, err
	}
	if err := a.Validate(); err != nil {
		return Simulation{}, err
	}
	delay := ceilMinutes(a.ScaleOutDelay)
	outCooldown := ceilMinutes(a.ScaleOutCooldown)
	inCooldown := ceilMinutes(a.ScaleInCooldown)

	c := a.clamp(a.Initial)
	if a.Initial == 0 {
		c = a.desired(s.Sum[0] / 60)
	}
	sim := newSimulation(s)
	burst := fullBurst(c)
	var (
		pending        []ScalingEvent // decided scale-outs, not yet in effect
		budget         decreaseBudget
		above, below   int // consecutive minutes above target / below scale-in threshold
		lastOut        = math.MinInt32
		lastIn         = math.MinInt32
		scaleInBelow   = a.Target * (1 - ScaleInHeadroom)
		scaleInAllowed = !a.DisableScaleIn
	)
	for i, v := range s.Sum {
		for len(pending) > 0 && pending[0].Effective <= i {
			if pending[0].To > c {
				c, below = pending[0].To, 0
			}
			pending = pending[1:]
		}
		sim.account(i, v, c, &burst)

		u := v / 60
		if c >= a.Max && u > a.Target*a.Max {
			sim.MinutesAtMax++
		}
		above, below = countRun(above, u > a.Target*c), countRun(below, u < scaleInBelow*c)

		// Decisions, taken at the end of minute i.
		if above >= ScaleOutPoints && i-lastOut >= outCooldown {
			top := c
			if len(pending) > 0 {
				top = pending[len(pending)-1].To
			}
			if want := a.desired(u); want > top {
				ev := ScalingEvent{Minute: i, Effective: i + 1 + delay, From: c, To: want}
				pending = append(pending, ev)
				sim.Events = append(sim.Events, ev)
				sim.ScaleOuts++
				lastOut = i
			}
			continue
		}
		if !scaleInAllowed || len(pending) > 0 || below < ScaleInPoints || i-lastIn < inCooldown {
			continue
		}
		want := a.desired(u)
		at := s.minuteStart(i + 1)
		if want >= c || !budget.allow(at) {
			continue
		}
		budget.record(at)
		sim.Events = append(sim.Events, ScalingEvent{Minute: i, Effective: i + 1, From: c, To: want})
		sim.ScaleIns++
		c, below, lastIn = want, 0, i
	}
	sim.finish()
	return sim, nil
}

// countRun extends a run of consecutive minutes or resets it.
func countRun(run int, hit bool) int {
	if hit {
		return run + 1
	}
	return 0
}

// ceilMinutes converts a duration to whole minutes, rounding up.
func ceilMinutes(d time.Duration) int {
	return int((d + time.Minute - 1) / time.Minute)
}

// decreaseBudget enforces DynamoDB's limit on capacity decreases for one
// table or GSI and dimension: FreeDecreasesPerDay per UTC day at any time,
// then one per hour when none happened in the preceding hour.
type decreaseBudget struct {
	day   time.Time // UTC midnight of the day being counted
	count int       // decreases so far that day
	last  time.Time // time of the latest decrease
}

// allow reports whether a decrease is allowed at t.
func (b *decreaseBudget) allow(t time.Time) bool {
	t = t.UTC()
	if day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC); !day.Equal(b.day) {
		b.day, b.count = day, 0
	}
	return b.count < FreeDecreasesPerDay || t.Sub(b.last) >= time.Hour
}

// record counts a decrease at t; allow(t) must have been called first.
func (b *decreaseBudget) record(t time.Time) {
	b.count++
	b.last = t
}
