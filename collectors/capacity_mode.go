// Billing-mode history of a base table, read off CloudWatch's
// ProvisionedReadCapacityUnits and ProvisionedWriteCapacityUnits: DynamoDB
// publishes them only while the table is provisioned, so an hour with a
// sample is a provisioned hour (at the capacity paid), an hour without one
// an on-demand hour. DescribeTable gives only the time of the latest switch
// to on-demand; this history gives every switch, both ways, and what each
// mode cost.
//
// Only the base table is read: a GSI follows its table's billing mode. The
// series are fetched hourly (Stat Average: the mean capacity of the
// provisioned samples of the hour), over the last modeKeep, then a refresh
// fetches the hours since the last one held (once an hour at most: a run
// within the same hour fetches nothing). An hour holding a switch counts as
// the mode of its first sample: the switch times are those of the first
// whole hour in the new mode, and the hour of a switch is priced in the mode
// that has samples.
package collectors

import (
	"math"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/packedsums"
)

const (
	// modeJudgeWithin is how old a switch may be and still be judged.
	modeJudgeWithin = 14 * day
	// modeBefore is how much history before a switch it is judged against.
	modeBefore = week
	// modeMinAfter is how long after a switch before it is judged.
	modeMinAfter = day
	// modeKeep is how much provisioned-capacity history a table keeps.
	modeKeep = modeJudgeWithin + modeBefore
)

// ModeSwitchWindows are the windows over which mode switches are counted
// (dynamodb_capacity_mode_switches).
var ModeSwitchWindows = []struct {
	Label string
	D     time.Duration
}{{"1d", day}, {"3d", 3 * day}, {"7d", week}, {"14d", 2 * week}}

// modeHistory is the provisioned capacity of a base table, hour by hour from
// start: the mean read and write capacity of the hour's samples, NaN for an
// hour without a sample (on-demand). Packed (internal/packedsums): a block
// of 64 hours without a sample, or at one capacity, takes a few bytes, not
// 256 (8 bytes an hour held about 4 KB per table for modeKeep, up to twice
// that with the room of appending).
type modeHistory struct {
	start       time.Time
	read, write packedsums.Sums
}

func (m *modeHistory) end() time.Time {
	return m.start.Add(time.Duration(m.read.Len()) * time.Hour)
}

// window returns the hourly window a mode history (nil: none yet) needs for
// history ending at end: everything from keepFrom for a new one, otherwise
// the hours since the last one held and that last hour again (CloudWatch
// may still have been filling it); nothing within the same hour.
func (m *modeHistory) window(end, keepFrom time.Time) (fetchWindow, bool) {
	e := end.Truncate(time.Hour)
	from := keepFrom
	if m != nil {
		if !m.end().Before(e) {
			return fetchWindow{}, false
		}
		if f := m.end().Add(-time.Hour); f.After(from) {
			from = f
		}
	}
	if !from.Before(e) {
		return fetchWindow{}, false
	}
	return fetchWindow{period: time.Hour, start: from, end: e}, true
}

// modeKeepFrom is the first hour a mode history keeps for history ending at
// end, for a table created at created.
func modeKeepFrom(end, created time.Time) time.Time {
	k := end.Truncate(time.Hour).Add(-modeKeep)
	if c := ceilHour(created); c.After(k) {
		k = c
	}
	return k
}

// apply stores the datapoints of one dimension over w: the hours of w are
// reset first (a refetched hour may have gained samples).
func (m *modeHistory) apply(write bool, w fetchWindow, r queryResult) {
	if m.start.IsZero() || w.start.Before(m.start) {
		m.start = w.start
		m.read, m.write = packedsums.Sums{}, packedsums.Sums{}
	}
	nan := float32(math.NaN())
	if n := int(w.end.Sub(m.start) / time.Hour); n > m.read.Len() {
		for m.read.Len() < n {
			m.read.Append(nan)
			m.write.Append(nan)
		}
	}
	dst := &m.read
	if write {
		dst = &m.write
	}
	lo, hi := int(w.start.Sub(m.start)/time.Hour), int(w.end.Sub(m.start)/time.Hour)
	if lo >= hi {
		return
	}
	hours := make([]float32, hi-lo)
	for i := range hours {
		hours[i] = nan
	}
	for i := range r.len() {
		at, v := r.at(i)
		j := int(at.Sub(m.start) / time.Hour)
		if at.Before(m.start) || j < lo || j >= hi {
			continue
		}
		hours[j-lo] = float32(v)
	}
	dst.Update(lo, hi, func(i int, _ float32) float32 { return hours[i-lo] })
	m.read.Trim(16)
	m.write.Trim(16)
}

// forget drops the hours before keepFrom.
func (m *modeHistory) forget(keepFrom time.Time) {
	n := int(keepFrom.Sub(m.start) / time.Hour)
	if n <= 0 {
		return
	}
	if n >= m.read.Len() {
		// Nothing held is kept: start again at keepFrom, not with
		// a run of hours that would read as on-demand.
		m.start, m.read, m.write = keepFrom, packedsums.Sums{}, packedsums.Sums{}
		return
	}
	m.read.DropFront(n)
	m.write.DropFront(n)
	m.start = m.start.Add(time.Duration(n) * time.Hour)
}

// modeCursor reads a mode history's hours in increasing order.
type modeCursor struct {
	m      *modeHistory
	cr, cw packedsums.Cursor
}

// at returns the read and write capacity of hour i (0 ≤ i < the hours
// held).
func (c *modeCursor) at(i int) (read, write float32) {
	c.m.read.Seek(&c.cr, i)
	c.m.write.Seek(&c.cw, i)
	return c.cr.Next(), c.cw.Next()
}

// hourProvisioned reports whether an hour of read and write capacity read and
// write has a provisioned-capacity sample.
func hourProvisioned(read, write float32) bool {
	return !math.IsNaN(float64(read)) || !math.IsNaN(float64(write))
}

// ModeSwitch is one change of billing mode seen in the history: At is the
// first whole hour in the new mode.
type ModeSwitch struct {
	At         time.Time
	ToOnDemand bool
}

// ModeSwitchJudgement compares the cost a table paid in the week before a
// switch with the cost it paid since, per day, and per unit of traffic: the
// cost over the on-demand price of the units consumed (1 for an on-demand
// hour), so that a change of traffic is not taken for a change of price.
// Base table only (its GSIs follow its mode but are not priced here).
type ModeSwitchJudgement struct {
	Switch ModeSwitch
	// BeforePerDay and SincePerDay are the USD paid per day in the week
	// before the switch (less when the history is shorter) and since it:
	// provisioned hours at the capacity paid, on-demand hours at the
	// on-demand price of the units consumed. NaN when the region has no
	// price (the cost change is still judged: modeFigures).
	BeforePerDay, SincePerDay float64
	// CostChange is the cost per unit of traffic since the switch over the
	// one before it, minus 1: positive when the switch made the table dearer
	// for the same traffic.
	CostChange float64
}

// ModeFigures are the billing-mode figures of a table's history.
type ModeFigures struct {
	// ToOnDemand and ToProvisioned count the switches within each of
	// ModeSwitchWindows, ending at the last hour held.
	ToOnDemand, ToProvisioned []int
	// Judged is the latest switch, judged when it is at least a day and
	// at most 14 days old; nil otherwise, or when its before or after
	// hold no traffic.
	Judged *ModeSwitchJudgement
}

// switches lists the mode changes between held hours, in time order.
func (m *modeHistory) switches() []ModeSwitch {
	var out []ModeSwitch
	var p bool
	c := modeCursor{m: m}
	for i := range m.read.Len() {
		q := hourProvisioned(c.at(i))
		if i > 0 && p != q {
			out = append(out, ModeSwitch{At: m.start.Add(time.Duration(i) * time.Hour), ToOnDemand: p})
		}
		p = q
	}
	return out
}

// figures derives the mode figures; consumedRead and consumedWrite return
// the base table's hourly consumed units over [from, to).
func (m *modeHistory) figures(p capacity.Prices, consumedRead, consumedWrite func(from, to time.Time) []float64) ModeFigures {
	f := ModeFigures{ToOnDemand: make([]int, len(ModeSwitchWindows)), ToProvisioned: make([]int, len(ModeSwitchWindows))}
	end := m.end()
	sw := m.switches()
	for _, s := range sw {
		for k, w := range ModeSwitchWindows {
			if !s.At.Before(end.Add(-w.D)) {
				if s.ToOnDemand {
					f.ToOnDemand[k]++
				} else {
					f.ToProvisioned[k]++
				}
			}
		}
	}
	// Only the latest switch is judged, once it is a day old: on a table
	// that switches again within a day (a churn, DynamoDBBillingModeChurn)
	// no period holds one mode long enough to be judged.
	if len(sw) == 0 {
		return f
	}
	s := sw[len(sw)-1]
	if age := end.Sub(s.At); age < modeMinAfter || age > modeJudgeWithin {
		return f
	}
	from := s.At.Add(-modeBefore)
	if from.Before(m.start) {
		from = m.start
	}
	if s.At.Sub(from) < modeMinAfter {
		return f
	}
	paidB, odB, hB := m.cost(p, from, s.At, consumedRead, consumedWrite)
	paidS, odS, hS := m.cost(p, s.At, end, consumedRead, consumedWrite)
	if odB > 0 && odS > 0 && paidB > 0 {
		f.Judged = &ModeSwitchJudgement{
			Switch:       s,
			BeforePerDay: paidB / hB * 24, SincePerDay: paidS / hS * 24,
			CostChange: (paidS/odS)/(paidB/odB) - 1,
		}
	}
	return f
}

// cost returns the USD paid over [from, to), the on-demand cost of the units
// consumed in it, and its hours.
func (m *modeHistory) cost(p capacity.Prices, from, to time.Time, consumedRead, consumedWrite func(from, to time.Time) []float64) (paid, onDemand, hours float64) {
	reads, writes := consumedRead(from, to), consumedWrite(from, to)
	lo := int(from.Sub(m.start) / time.Hour)
	c := modeCursor{m: m}
	for h := range reads {
		i := lo + h
		if i < 0 || i >= m.read.Len() {
			continue
		}
		r32, w32 := c.at(i)
		var w float64
		if h < len(writes) {
			w = writes[h]
		}
		od := reads[h]*p.OnDemandReadPerMillion/1e6 + w*p.OnDemandWritePerMillion/1e6
		onDemand += od
		hours++
		if !hourProvisioned(r32, w32) {
			paid += od
			continue
		}
		if r := float64(r32); !math.IsNaN(r) {
			paid += r * p.ProvisionedRCUHour
		}
		if wc := float64(w32); !math.IsNaN(wc) {
			paid += wc * p.ProvisionedWCUHour
		}
	}
	return paid, onDemand, hours
}
