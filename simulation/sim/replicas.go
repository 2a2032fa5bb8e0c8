package sim

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Global tables: a TableSpec with Replicas is simulated as one tableSim in
// its own region (the source, where the writes are made) and one in each
// replica's region (the replicas). AWS's rules, with their sources, are
// stated in awssim/replicas.go; here:
//
//   - every write the source accepted in a minute is a replicated write in
//     each replica in that minute: it consumes the replica's write capacity
//     (and its GSIs'), shows in its ConsumedWriteCapacityUnits, and is
//     throttled there like any write when the replica lacks capacity;
//   - the replicas share the source's billing mode: a scheduled switch is
//     made once, in the source's region (the server switches every
//     replica), and each replica follows when the server applied it; a
//     switch made through the API in any region reaches the others through
//     the server (tableSim.sync);
//   - every TTL deletion of the source in a minute is a replicated delete
//     in each replica in that minute, of ceil(size/1 KB) write units for an
//     item of the source's TTL item size: "The delete operation is
//     performed without consuming write units on the source table, but the
//     replica tables will get a replicated write of that delete operation
//     and will incur replicated write unit costs" (AWS, DynamoDB Developer
//     Guide, "Throughput capacity planning for DynamoDB global tables"),
//     and a write unit is one write of up to 1 KB (rounded up) ("DynamoDB
//     throughput capacity", write capacity units). It consumes the
//     replica's table write capacity, shows in its
//     ConsumedWriteCapacityUnits and is throttled like any write; it
//     writes no GSI of the replica: the TTL items the simulator stores
//     carry only the key, the padding and the TTL attribute, none of a
//     GSI's key attributes, so they are in no GSI ("For any item in a
//     table, DynamoDB writes a corresponding index entry only if the index
//     sort key value is present in the item", Developer Guide, "Take
//     advantage of sparse indexes"), and deleting them writes no index;
//   - ReplicationLatency is published in the source's region with the
//     dimensions TableName and ReceivingRegion, in milliseconds, in every
//     minute the source wrote, from the replica's latency profile.
//
// A replica has no TTL items, no PITR setting and no system errors of its
// own: it carries the replicated writes and deletes, and its own reads.

// replicaSpec is the TableSpec a replica of src in r's region is simulated
// with: src's settings and GSIs (no index build), r's reads shaped like
// src's traffic; its writes are src's (tableSim.step).
func replicaSpec(src *TableSpec, r *ReplicaSpec) *TableSpec {
	c := *src
	c.Region = r.Region
	c.Traffic.Read = r.Read
	c.Traffic.Events = slices.Clone(src.Traffic.Events)
	c.GSIs = slices.Clone(src.GSIs)
	for i := range c.GSIs {
		c.GSIs[i].Backfill = nil
	}
	c.TTL, c.PITR, c.Replicas, c.SystemErrorsPerHour = nil, nil, nil, 0
	c.BillingSwitches = slices.Clone(src.BillingSwitches)
	return &c
}

// peersOf lists, for a table of region in a global table of the replicas
// all, the others.
func peersOf(region string, all []awssim.Replica) []awssim.Replica {
	var out []awssim.Replica
	for _, r := range all {
		if r.RegionName != region {
			out = append(out, r)
		}
	}
	return out
}

// newReplicaSims builds the replicas of the source table t.
func (e *Engine) newReplicaSims(t *tableSim) []*tableSim {
	spec := t.spec
	if len(spec.Replicas) == 0 {
		return nil
	}
	all := []awssim.Replica{{RegionName: spec.Region, Status: awssim.StatusActive}}
	for _, r := range spec.Replicas {
		all = append(all, awssim.Replica{RegionName: r.Region, Status: r.Status})
	}
	t.peers = peersOf(spec.Region, all)
	t.ttlUnits = ttlDeleteUnits(spec, minuteTime(e.start))
	var out []*tableSim
	for i := range spec.Replicas {
		r := &spec.Replicas[i]
		rs := newTableSim(e, replicaSpec(spec, r), e.h0)
		rs.source, rs.peers = t, peersOf(r.Region, all)
		t.replicas = append(t.replicas, replicaOut{region: r.Region, lat: newLatencyProfile(&r.ReplicationLatency, e.start,
			hashString(fmt.Sprintf("%d/%s/%s/replication/%s", e.sc.Seed, spec.Region, spec.Name, r.Region)))})
		out = append(out, rs)
	}
	return out
}

// ttlDeleteUnits is the write units a replicated delete of one of spec's
// TTL items consumes: one per KB of the item, rounded up (0 without TTL).
// The items of a table differ only in a few bytes of key and TTL value;
// they are sized like the first item of the first population.
func ttlDeleteUnits(spec *TableSpec, at time.Time) float64 {
	tt := spec.TTL
	if tt == nil {
		return 0
	}
	size, err := awssim.ItemSize(ttlItem("pop0-000000", tt.Attribute, ClassSeconds, at, padding(tt.ItemSize)))
	if err != nil {
		return 0
	}
	return math.Ceil(float64(size) / 1024)
}

// sweepForReplicas applies the source's TTL deletions due before minute b,
// so that its replicas read them (replicatedDeletes): the server applies
// them lazily otherwise.
func (t *tableSim) sweepForReplicas(b int64) {
	if len(t.replicas) > 0 && t.ttlUnits > 0 && !t.deleted {
		t.e.srv.SweepTTLUntil(t.region, t.name, minuteTime(b))
	}
}

// replicatedDeletes fills t.dbuf with the replicated delete demand of
// minutes [a, b) (units per second): the source's TimeToLiveDeletedItemCount
// in each minute times its units per item.
func (t *tableSim) replicatedDeletes(a, b int64) {
	t.dbuf, t.dfrom = t.dbuf[:0], a
	s := t.source
	if s.ttlUnits == 0 {
		return
	}
	m := awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: "TimeToLiveDeletedItemCount",
		Dimensions: []awssim.Dimension{{Name: "TableName", Value: s.name}}}
	dps := t.e.srv.Metrics().Datapoints(s.region, m, minuteTime(a), minuteTime(b))
	if len(dps) == 0 {
		return
	}
	t.dbuf = append(t.dbuf, make([]float64, b-a)...)
	for _, dp := range dps {
		if i := dp.Time.Unix()/60 - a; i >= 0 && i < b-a {
			// A whole number of units in the minute: the nudge keeps the
			// published half-unit floor from losing one to rounding.
			t.dbuf[i] = (dp.Sum*s.ttlUnits + 1e-9) / 60
		}
	}
}

// replicatedDelete is the replicated delete demand of minute m (units per
// second).
func (t *tableSim) replicatedDelete(m int64) float64 {
	i := m - t.dfrom
	if i < 0 || i >= int64(len(t.dbuf)) {
		return 0
	}
	return t.dbuf[i]
}

// replicaOut is a receiving region of a source table and the latency of
// its replication.
type replicaOut struct {
	region string
	lat    *latencyProfile
}

// replicatedWrite is the write demand a replica receives in minute m: the
// units per second its source accepted then (0 outside the source's
// current run, or after the source was deleted).
func (t *tableSim) replicatedWrite(m int64) float64 {
	s := t.source
	i := m - s.wfrom
	if i < 0 || i >= int64(len(s.wbuf)) {
		return 0
	}
	return s.wbuf[i]
}

// sourceSwitched reports whether the source's scheduled switch at minute m
// was applied by the server (and so switched this replica).
func (t *tableSim) sourceSwitched(m int64) bool {
	for i := len(t.source.results) - 1; i >= 0; i-- {
		r := t.source.results[i]
		if r.At.Unix()/60 == m {
			return r.ErrorCode == ""
		}
	}
	return false
}

// latencyProfile is a LatencySpec in absolute minutes.
type latencyProfile struct {
	base  float64 // milliseconds
	noise float64
	seed  uint64
	lags  []lag
}

type lag struct {
	at, ramp, dur int64 // dur 0: held to the end
	peak          float64
}

func newLatencyProfile(l *LatencySpec, start int64, seed uint64) *latencyProfile {
	p := &latencyProfile{base: float64(l.Base.D().Milliseconds()), noise: l.Noise, seed: seed}
	for _, g := range l.Lags {
		p.lags = append(p.lags, lag{at: start + minutesOf(g.At.D()), ramp: max(0, minutesOf(g.Ramp.D())),
			dur: minutesOf(g.Duration.D()), peak: float64(g.Peak.D().Milliseconds())})
	}
	return p
}

// at is the replication latency in minute m, in milliseconds: the base,
// or the highest lag then (rising over its ramp, held, falling over its
// ramp), times the minute's noise.
func (p *latencyProfile) at(m int64) float64 {
	v := p.base
	for _, g := range p.lags {
		if m < g.at {
			continue
		}
		x := m - g.at
		var f float64
		switch {
		case x < g.ramp:
			f = float64(x) / float64(g.ramp)
		case g.dur == 0 || x < g.ramp+g.dur:
			f = 1
		case x < 2*g.ramp+g.dur:
			f = 1 - float64(x-g.ramp-g.dur)/float64(g.ramp)
		}
		v = math.Max(v, p.base+(g.peak-p.base)*f)
	}
	if p.noise > 0 {
		v *= 1 + p.noise*(2*unit(p.seed, m)-1)
	}
	return v
}

// replicationDatapoint is the ReplicationLatency statistic set of a step:
// one sample per replicated write request, averaging the profile over the
// step's minutes with writes; none when the source wrote nothing.
func (r *seriesRef) replicationDatapoint(st step) (awssim.Datapoint, bool) {
	src := r.t.ents[0].store
	p := r.t.replicas[r.op].lat
	var n, sum, lo, hi float64
	lo = math.Inf(1)
	for m := st.minute; m < st.minute+st.length; m++ {
		v := p.at(m)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		sum += v
	}
	w := src.value(chConsumed+1, st)
	if w <= 0 {
		return awssim.Datapoint{}, false
	}
	n = math.Max(1, math.Round(w/writeUnitsPerRequest))
	avg := sum / float64(st.length)
	return awssim.Datapoint{Sum: avg * n, SampleCount: n, Minimum: lo * 0.8, Maximum: hi * 1.25}, true
}
