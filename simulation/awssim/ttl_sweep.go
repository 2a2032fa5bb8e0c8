package awssim

import (
	"container/heap"
	"math"
	"strconv"
	"time"
)

// The simulated TTL process follows the DynamoDB Developer Guide ("Time to
// Live (TTL)"): only a top-level attribute of the Number type holding epoch
// seconds counts; an item whose value has passed is deleted some time later
// (no SLA, typically within a few days) and each deletion is counted in the
// CloudWatch metric TimeToLiveDeletedItemCount; values more than five years
// in the past are never deleted; other types, nested attributes and values
// far in the future (such as epoch milliseconds) never expire.
//
// The process runs lazily: before any request touches a table (and before
// CloudWatch answers), every deletion that fell due is applied "at" its due
// time, which is when its metric datapoint is counted.

// ttlDeletedMetricName is the CloudWatch metric of TTL deletions.
const ttlDeletedMetricName = "TimeToLiveDeletedItemCount"

// ttlMaxAgeYears is how far in the past a TTL value may be and still be deleted.
const ttlMaxAgeYears = 5

// sweepState holds a table's pending TTL deletions in a min-heap by due
// time, built for one TTL policy. Entries replaced or deleted since they
// were pushed are skipped when they surface.
type sweepState struct {
	known  bool
	policy ttlPolicy
	due    dueHeap
}

type dueEntry struct {
	at time.Time
	e  *itemEntry
}

// dueHeap implements heap.Interface, earliest first.
type dueHeap []dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ttlPolicy is what the TTL process of one table does at the moment.
type ttlPolicy struct {
	attribute string
	enabledAt time.Time // TTL acts on nothing before it
	delay     time.Duration
	jitter    time.Duration
}

// ttlPolicyOf returns t's TTL policy, or false while TTL is not ENABLED.
func ttlPolicyOf(t *Table) (ttlPolicy, bool) {
	if t.TTL.Status != TTLEnabled || t.TTL.AttributeName == "" {
		return ttlPolicy{}, false
	}
	p := ttlPolicy{attribute: t.TTL.AttributeName, enabledAt: t.TTL.LastModified, delay: t.TTLDeletionDelay, jitter: t.TTLDeletionJitter}
	if t.TTL.TransitionEnds.After(p.enabledAt) {
		p.enabledAt = t.TTL.TransitionEnds
	}
	switch {
	case p.delay == 0:
		p.delay = DefaultTTLDeletionDelay
	case p.delay < 0:
		p.delay = 0
	}
	return p, true
}

// dueAt is when the TTL process deletes e, or false if it never does.
func (p ttlPolicy) dueAt(e *itemEntry) (time.Time, bool) {
	v, ok := e.item[p.attribute]
	if !ok || v.kind != kindN {
		return time.Time{}, false
	}
	expiry, ok := ttlExpiry(v.str)
	if !ok {
		return time.Time{}, false
	}
	// The process can only act once the value has passed, TTL is enabled
	// and the item exists.
	eligible := expiry
	if p.enabledAt.After(eligible) {
		eligible = p.enabledAt
	}
	if e.written.After(eligible) {
		eligible = e.written
	}
	if expiry.Before(eligible.AddDate(-ttlMaxAgeYears, 0, 0)) {
		return time.Time{}, false
	}
	d := p.delay
	if p.jitter > 0 {
		d += time.Duration(e.key.hash % uint64(p.jitter))
	}
	return eligible.Add(d), true
}

// ttlExpiry reads a stored Number as epoch seconds. Values of 1e12 and more
// (epoch milliseconds and beyond, year 33658 onwards as seconds) are never
// due and answer false.
func ttlExpiry(text string) (time.Time, bool) {
	n, err := parseDecNumber(text)
	if err != nil {
		return time.Time{}, false
	}
	if n.exp > 12 {
		if n.neg {
			return time.Unix(-1e12, 0).UTC(), true
		}
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil {
		return time.Time{}, false
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64((f-sec)*1e9)).UTC(), true
}

// settleTable brings table t of region up to now: it ends a finished TTL
// status transition and applies every TTL deletion that fell due. s.mu must
// be held.
func (s *Server) settleTable(region string, t *Table, now time.Time) {
	if st := t.TTL.Status; (st == TTLEnabling || st == TTLDisabling) &&
		!t.TTL.TransitionEnds.IsZero() && !now.Before(t.TTL.TransitionEnds) {
		if st == TTLEnabling {
			t.TTL.Status = TTLEnabled
		} else {
			t.TTL.Status = TTLDisabled
		}
		s.resetSweep(region, t.Name)
	}
	p, ok := ttlPolicyOf(t)
	if !ok {
		return
	}
	_, ti := s.tableData(region, t.Name, false)
	if ti == nil || len(ti.byID) == 0 {
		return
	}
	if !ti.sweep.known || ti.sweep.policy != p {
		ti.sweep = sweepState{known: true, policy: p, due: make(dueHeap, 0, len(ti.byID))}
		for _, e := range ti.byID {
			if due, ok := p.dueAt(e); ok {
				ti.sweep.due = append(ti.sweep.due, dueEntry{due, e})
			}
		}
		heap.Init(&ti.sweep.due)
	}
	perMinute := map[int64]int{}
	for len(ti.sweep.due) > 0 && !ti.sweep.due[0].at.After(now) {
		d := heap.Pop(&ti.sweep.due).(dueEntry)
		if ti.byID[d.e.key.id] != d.e {
			continue // replaced or deleted since
		}
		ti.remove(d.e.key.id)
		perMinute[d.at.Truncate(time.Minute).Unix()]++
	}
	m := Metric{Namespace: NamespaceDynamoDB, Name: ttlDeletedMetricName, Dimensions: []Dimension{{Name: "TableName", Value: t.Name}}}
	for minute, n := range perMinute {
		s.metrics.AddSample(region, m, time.Unix(minute, 0).UTC(), float64(n))
	}
}

// noteWrite schedules the deletion of e, just written, when the table's
// pending deletions are tracked under the current TTL policy.
func (s *Server) noteWrite(t *Table, ti *tableItems, e *itemEntry) {
	p, ok := ttlPolicyOf(t)
	if !ok || !ti.sweep.known || ti.sweep.policy != p {
		return
	}
	if due, ok := p.dueAt(e); ok {
		heap.Push(&ti.sweep.due, dueEntry{due, e})
	}
}

// resetSweep forgets the cached next deletion time of a table, for when its
// TTL policy changed. s.mu must be held.
func (s *Server) resetSweep(region, table string) {
	if r := s.regions[region]; r != nil {
		if ti := r.items[table]; ti != nil {
			ti.sweep = sweepState{}
		}
	}
}

// settleRegion settles every table of region. s.mu must be held.
func (s *Server) settleRegion(region string, now time.Time) {
	r := s.regions[region]
	if r == nil {
		return
	}
	for _, t := range r.tables {
		s.settleTable(region, t, now)
	}
}

// SweepTTL applies, in every table of region, the TTL deletions and status
// transitions that are due by the server clock, and returns how many items
// were deleted. Requests do this on their own for the tables they touch
// (CloudWatch requests for the whole region), so calling it is only needed
// to observe the store without a request.
func (s *Server) SweepTTL(region string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.regionItemCount(region)
	s.settleRegion(region, s.now())
	return before - s.regionItemCount(region)
}

// SweepTTLUntil applies the TTL deletions of one table that fell due by at
// (by the server clock, if earlier), each counted in
// TimeToLiveDeletedItemCount at its due minute. A simulation that writes
// its past in time order calls it once it has written up to at, to read the
// deletions of the minutes before at (package sim: the replicated deletes
// of a global table). A table the region does not hold is ignored.
func (s *Server) SweepTTLUntil(region, table string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.regions[region]
	if r == nil || r.tables[table] == nil {
		return
	}
	s.settleTable(region, r.tables[table], minTime(at.UTC(), s.now()))
}

// regionItemCount is the number of stored items in region. s.mu must be
// held.
func (s *Server) regionItemCount(region string) int {
	n := 0
	if r := s.regions[region]; r != nil {
		for _, ti := range r.items {
			n += len(ti.byID)
		}
	}
	return n
}

// settleRegionNow settles every table of region at the server clock, so
// that CloudWatch answers include every TTL deletion that fell due.
func (s *Server) settleRegionNow(region string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settleRegion(region, s.now())
}
