package sim

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Minute is the simulated truth of one table or GSI in one minute.
type Minute struct {
	Time     time.Time
	OnDemand bool
	// Demand is what clients asked for, in units per second.
	ReadDemand, WriteDemand float64
	// Capacity is the provisioned capacity in effect (units per second),
	// 0 while on-demand.
	ReadCapacity, WriteCapacity float64
	// Consumed is the CloudWatch Sum of the minute (units).
	ReadConsumed, WriteConsumed float64
	// Throttled is the demand not served (units in the minute).
	ReadThrottled, WriteThrottled float64
	// ThrottleEvents by cause (key range, provisioned, max on-demand,
	// account limit), as published.
	ReadEvents, WriteEvents [numCauses]float64
	// BackPressureEvents is the table's write throttle events caused by a
	// GSI's lack of write capacity (tables only): they count in the
	// table's WriteThrottleEvents and ThrottledRequests, not in its cause
	// metrics (the GSI's cause metric has them).
	BackPressureEvents float64
	// LatencyFactor is the average latency over its value at rest (tables
	// only).
	LatencyFactor float64
}

// Truth returns the simulated minutes of a table (index "") or GSI in
// [from, to), within the last 15 days (older minutes are only kept rolled
// up). region may be "" when the table name is unique.
func (e *Engine) Truth(region, table, index string, from, to time.Time) ([]Minute, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := e.table(region, table)
	if t == nil {
		return nil, fmt.Errorf("sim: no table %q in the scenario", table)
	}
	i := slices.IndexFunc(t.ents, func(en *entity) bool { return en.index == index })
	if i < 0 {
		return nil, fmt.Errorf("sim: table %s has no index %q", table, index)
	}
	en, tab := t.ents[i], t.ents[0]
	var out []Minute
	a, b := ceilDiv(from.Unix(), 60), ceilDiv(to.Unix(), 60)
	en.store.steps(max(a, en.store.fine.start), b, func(st step) {
		if st.tier != 0 {
			return
		}
		m := st.minute
		d := t.gen.at(m)
		rd, wd := d.read, d.write
		if i > 0 {
			// The GSI was asked to write its share of the writes the
			// table accepted, including those refused because a GSI
			// lacked write capacity.
			accepted := tab.store.value(chConsumed+1, st) + tab.store.value(chRejected, st)
			rd, wd = d.read*en.share.Read, accepted/60*en.share.Write
		}
		x := Minute{
			Time: minuteTime(m), OnDemand: t.onDemandAt(m), ReadDemand: rd, WriteDemand: wd,
			ReadConsumed: en.store.value(chConsumed, st), WriteConsumed: en.store.value(chConsumed+1, st),
		}
		if !x.OnDemand {
			x.ReadCapacity, x.WriteCapacity = en.dirs[0].capacityAt(m), en.dirs[1].capacityAt(m)
		}
		x.ReadThrottled = math.Max(0, rd*60-x.ReadConsumed)
		x.WriteThrottled = math.Max(0, wd*60-x.WriteConsumed)
		for c := range numCauses {
			x.ReadEvents[c] = en.store.value(chThrottle+c, st)
			x.WriteEvents[c] = en.store.value(chThrottle+numCauses+c, st)
		}
		if i == 0 {
			x.LatencyFactor = en.store.value(chLatMean, st)
			x.BackPressureEvents = en.store.value(chBackPressure, st)
		}
		out = append(out, x)
	})
	return out, nil
}

// table finds a table by region (optional) and name.
func (e *Engine) table(region, name string) *tableSim {
	for _, t := range e.tables {
		if t.name == name && (region == "" || region == t.region) {
			return t
		}
	}
	return nil
}

// ScalingEvents returns the auto-scaling changes of a table and its GSIs
// so far, in time order.
func (e *Engine) ScalingEvents(table string) []ScalingEvent {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if t := e.table("", table); t != nil {
		return slices.Clone(t.scaling)
	}
	return nil
}

// ScheduledRuns returns the runs of the scheduled actions of a table and
// its GSIs so far, in time order.
func (e *Engine) ScheduledRuns(table string) []ScheduledRun {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if t := e.table("", table); t != nil {
		return slices.Clone(t.runs)
	}
	return nil
}

// SwitchResults returns the scheduled billing-mode switches applied or
// refused so far.
func (e *Engine) SwitchResults(table string) []SwitchResult {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if t := e.table("", table); t != nil {
		return slices.Clone(t.results)
	}
	return nil
}
