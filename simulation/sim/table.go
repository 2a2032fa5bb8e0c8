package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// dirState is the simulation state of one dimension (read or write) of a
// table or GSI.
type dirState struct {
	read        bool
	cap         float64 // provisioned capacity in effect (units/s)
	policy      *policy // nil: fixed capacity
	pending     []change
	decrease    *change
	above       int
	below       int
	lastOut     int64
	lastIn      int64
	burst       float64 // unit-seconds
	maxOnDemand float64
	ring        [peakWindow]float64
	ringN       int
	ringPos     int
	oldPeak     float64
	capLog      []capPoint
	recent      [scaleInLookback]float64 // consumption of the last minutes (units/s)
	recentPos   int
	actions     []schedAction // scheduled actions on the dimension's scalable target
	rebound     bool          // a scheduled action changed the bounds this minute
}

// schedAction is a scheduled action of a dimension: the bounds it sets
// (0: unchanged) at each minute its schedule is due.
type schedAction struct {
	name     string
	sched    *awssim.Schedule
	min, max float64
}

// capPoint is a capacity in effect from a minute on.
type capPoint struct {
	minute int64
	value  float64
}

// Channels stored per entity (table or GSI). GSIs store the first
// numGSIChannels.
const (
	chConsumed     = 0 // + dir (0 read, 1 write): consumed units in the step
	chThrottle     = 2 // + dir*numCauses + cause: throttle events
	numGSIChannels = chThrottle + 2*numCauses
	chLatMean      = numGSIChannels     // mean latency factor (computed, see latencyAt)
	chLatP99       = numGSIChannels + 1 // p99 latency factor (max; computed)
	chSysErr       = numGSIChannels + 2 // system errors
	chBackPressure = numGSIChannels + 3 // write throttle events caused by a GSI
	chRejected     = numGSIChannels + 4 // write units refused because of a GSI
	numChannels    = numGSIChannels + 5
)

// Average capacity units per request, to turn units into requests.
const (
	readUnitsPerRequest  = 1.5
	writeUnitsPerRequest = 1.2
)

func channelAgg(n int) []aggKind {
	agg := make([]aggKind, n)
	if n > chLatMean {
		agg[chLatMean], agg[chLatP99] = aggMean, aggMax
	}
	return agg
}

// entity is a table or one of its GSIs.
type entity struct {
	index      string // "" for the table
	dirs       [2]dirState
	warmSent   [2]int64 // the on-demand peaks last given to the server (noteWarm)
	store      *tiered
	lastNZ     []int64 // last minute with a non-zero value, per channel
	share      ReadWrite
	hot        float64
	partitions int
}

// modePoint is a billing mode in effect from a minute on.
type modePoint struct {
	minute   int64
	onDemand bool
}

// tableSim simulates one table minute by minute.
type tableSim struct {
	e        *Engine
	spec     *TableSpec
	region   string
	name     string
	gen      *trafficGen
	seed     uint64
	onDemand bool
	ents     []*entity
	modeLog  []modePoint
	switches []scheduledSwitch
	next     int // next switch
	deleteAt int64
	deleted  bool
	begun    int64 // last minute whose start-of-minute actions ran
	writes   *writeStream
	pending  []awssim.ItemWrite
	vals     []float32
	outs     [][2]served // per entity, reused every minute
	scaling  []ScalingEvent
	runs     []ScheduledRun
	results  []SwitchResult
	err      error // first unexpected server error

	// Global tables (replicas.go): source is the table whose writes a
	// replica receives (nil for any other table); replicas are a source's
	// receiving regions; peers are the other regions of the global table,
	// as the server answers them.
	source   *tableSim
	replicas []replicaOut
	peers    []awssim.Replica
	// wbuf holds the write units per second a source accepted in each
	// minute of its current run, from minute wfrom, for its replicas.
	wbuf  []float64
	wfrom int64
	// ttlUnits is the write units of a replicated delete of one of a
	// source's TTL items (0: no TTL); dbuf holds the replicated delete
	// demand (units per second) a replica receives in each minute of its
	// current run, from minute dfrom.
	ttlUnits float64
	dbuf     []float64
	dfrom    int64
}

type scheduledSwitch struct {
	minute   int64
	onDemand bool
	capacity ReadWrite
}

// ScalingEvent is one auto-scaling change of a table or GSI dimension.
type ScalingEvent struct {
	Table, Index string
	Read         bool
	Decided      time.Time // end of the minute whose datapoint triggered it
	Effective    time.Time // when the new capacity started serving
	From, To     float64
	// Refused is AWS's message when DynamoDB refused the change (a
	// decrease beyond the daily limit); the capacity did not change.
	Refused string
}

// ScheduledRun is one run of a scheduled action: the bounds it gave the
// scalable target. The capacity change it caused, if any, is a
// ScalingEvent at the same time.
type ScheduledRun struct {
	Table, Index string
	Read         bool
	Action       string
	At           time.Time
	// Min and Max are the scalable target's bounds after the run.
	Min, Max float64
	// Refused says why the run changed nothing (a minimum above the
	// maximum); "" when it ran.
	Refused string
}

// SwitchResult is one scheduled billing-mode switch and its outcome.
type SwitchResult struct {
	Table string
	At    time.Time
	Mode  string // on_demand or provisioned
	// ErrorCode is the AWS error code when the switch was refused (e.g.
	// LimitExceededException), "" when it was applied.
	ErrorCode string
	Message   string
}

func minuteTime(m int64) time.Time { return time.Unix(m*60, 0).UTC() }

// newTableSim builds the simulation of spec from minute h0 on.
func newTableSim(e *Engine, spec *TableSpec, h0 int64) *tableSim {
	t := &tableSim{
		e: e, spec: spec, region: spec.Region, name: spec.Name,
		seed:     hashString(fmt.Sprintf("%d/%s/%s", e.sc.Seed, spec.Region, spec.Name)),
		onDemand: spec.Billing == modeOnDemand,
		deleteAt: math.MaxInt64,
		begun:    h0 - 1,
	}
	t.gen = newTrafficGen(&spec.Traffic, spec.HotKeyShare, t.seed, e.start, e.start+minutesOf(e.sc.Horizon.D()))
	t.modeLog = []modePoint{{h0, t.onDemand}}
	mk := func(index string, c ReadWrite, od ReadWrite, sc *ScalingSpec, nch int) *entity {
		en := &entity{index: index, store: newTiered(h0, channelAgg(nch)), lastNZ: make([]int64, nch)}
		for i := range en.lastNZ {
			en.lastNZ[i] = math.MinInt64
		}
		var rp, wp *PolicySpec
		if sc != nil {
			rp, wp = sc.Read, sc.Write
		}
		for d, x := range []struct {
			c, od float64
			ps    *PolicySpec
		}{{c.Read, od.Read, rp}, {c.Write, od.Write, wp}} {
			s := &en.dirs[d]
			s.read = d == 0
			s.policy = newPolicy(x.ps)
			s.cap = x.c
			if s.policy != nil {
				s.cap = s.policy.clamp(s.cap)
			}
			s.burst = burstSeconds * s.cap
			s.maxOnDemand = x.od
			s.lastOut, s.lastIn = math.MinInt32, math.MinInt32
			s.capLog = []capPoint{{h0, s.cap}}
			if x.ps != nil {
				s.actions = t.schedActions(x.ps.Scheduled)
			}
		}
		return en
	}
	tab := mk("", spec.Capacity, spec.OnDemandMax, spec.AutoScaling, numChannels)
	tab.hot, tab.partitions = spec.HotKeyShare, spec.Partitions
	tab.store.gen = make([]func(int64) float32, numChannels)
	tab.store.gen[chLatMean] = func(m int64) float32 { avg, _ := t.latencyAt(m); return avg }
	tab.store.gen[chLatP99] = func(m int64) float32 { _, p99 := t.latencyAt(m); return p99 }
	t.ents = append(t.ents, tab)
	for i := range spec.GSIs {
		g := &spec.GSIs[i]
		en := mk(g.Name, g.Capacity, spec.OnDemandMax, g.AutoScaling, numGSIChannels)
		en.share, en.hot = *g.Share, g.HotKeyShare
		t.ents = append(t.ents, en)
	}
	for _, s := range spec.BillingSwitches {
		t.switches = append(t.switches, scheduledSwitch{minute: e.start + minutesOf(s.At.D()), onDemand: s.Mode == modeOnDemand, capacity: s.Capacity})
	}
	if spec.TTL != nil {
		t.writes = newWriteStream(t, spec.TTL)
	}
	t.vals = make([]float32, numChannels)
	t.outs = make([][2]served, len(t.ents))
	return t
}

// run simulates minutes [a, b) and runs the start-of-minute actions of b.
func (t *tableSim) run(a, b int64) {
	t.wbuf, t.wfrom = t.wbuf[:0], a
	if t.source != nil {
		t.replicatedDeletes(a, b)
	}
	for m := a; m < b && !t.deleted; m++ {
		t.begin(m)
		if !t.deleted {
			t.step(m)
		}
		if len(t.pending) >= 4096 {
			t.flushWrites()
		}
	}
	if !t.deleted {
		t.begin(b)
	}
	t.flushWrites()
	t.sweepForReplicas(b)
}

// begin runs what happens at the start of minute m: deletion, billing-mode
// switches and capacity changes falling due, applied to the server at m.
func (t *tableSim) begin(m int64) {
	if m <= t.begun {
		return
	}
	t.begun = m
	at := minuteTime(m)
	if m >= t.deleteAt {
		t.e.srv.DeleteTable(t.region, t.name)
		t.deleted = true
		return
	}
	for t.next < len(t.switches) && t.switches[t.next].minute <= m {
		t.applySwitch(t.switches[t.next], at)
		t.next++
	}
	t.runScheduled(at)
	if t.onDemand {
		return
	}
	for _, en := range t.ents {
		var caps [2]float64
		var chs [2]*change
		changed := false
		for d := range en.dirs {
			c, ch, ok := en.dirs[d].due(m)
			caps[d], chs[d] = c, ch
			changed = changed || ok
		}
		if !changed {
			continue
		}
		// One UpdateTable for the table or GSI: a decrease of read, write
		// or both counts once against DynamoDB's decrease limits, which
		// the server enforces per table and per GSI.
		err := t.e.srv.SetThroughput(t.region, t.name, en.index, awssim.Capacity{Read: int64(caps[0]), Write: int64(caps[1])}, at)
		var errs [2]error
		if err != nil {
			errs = [2]error{err, err}
			if k, _, ok := awssim.ErrorKindOf(err); ok && k == awssim.ErrLimitExceeded && (caps[0] > en.dirs[0].cap || caps[1] > en.dirs[1].cap) {
				// The decrease was refused: apply the increase alone,
				// as its own scalable target would.
				up := caps
				for d := range en.dirs {
					if up[d] < en.dirs[d].cap {
						up[d] = en.dirs[d].cap
					} else {
						errs[d] = nil
					}
				}
				if e2 := t.e.srv.SetThroughput(t.region, t.name, en.index, awssim.Capacity{Read: int64(up[0]), Write: int64(up[1])}, at); e2 != nil {
					errs, err = [2]error{e2, e2}, e2
				}
			}
		}
		for d := range en.dirs {
			s := &en.dirs[d]
			if chs[d] == nil || caps[d] == s.cap {
				continue
			}
			ev := ScalingEvent{Table: t.name, Index: en.index, Read: d == 0, Decided: minuteTime(chs[d].decided + 1), Effective: at, From: s.cap, To: caps[d]}
			if errs[d] != nil {
				ev.Refused = errMessage(errs[d])
				t.scaling = append(t.scaling, ev)
				continue
			}
			t.scaling = append(t.scaling, ev)
			if caps[d] < s.cap {
				s.lastIn = chs[d].decided
			}
			s.cap, s.below = caps[d], 0
			s.capLog = append(s.capLog, capPoint{m, s.cap})
		}
		if err != nil {
			if k, _, ok := awssim.ErrorKindOf(err); !ok || k != awssim.ErrLimitExceeded {
				t.noteErr(err)
			}
		}
	}
}

func errMessage(err error) string {
	if _, msg, ok := awssim.ErrorKindOf(err); ok {
		return msg
	}
	return err.Error()
}

func (t *tableSim) noteErr(err error) {
	if t.err == nil {
		t.err = fmt.Errorf("table %s: %w", t.name, err)
	}
}

// applySwitch switches the billing mode through the server, which enforces
// DynamoDB's limits.
func (t *tableSim) applySwitch(s scheduledSwitch, at time.Time) {
	if t.source != nil {
		// A replica: the source's switch switched it, if it was applied.
		if m := at.Unix() / 60; t.sourceSwitched(m) && s.onDemand != t.onDemand {
			if !s.onDemand {
				t.ents[0].dirs[0].cap, t.ents[0].dirs[1].cap = s.capacity.Read, s.capacity.Write
			}
			t.setMode(m, s.onDemand)
		}
		return
	}
	res := SwitchResult{Table: t.name, At: at, Mode: modeProvisioned}
	mode := awssim.BillingProvisioned
	if s.onDemand {
		res.Mode, mode = modeOnDemand, awssim.BillingPayPerRequest
	}
	gsis := map[string]awssim.Capacity{}
	for _, en := range t.ents[1:] {
		gsis[en.index] = awssim.Capacity{Read: int64(en.dirs[0].cap), Write: int64(en.dirs[1].cap)}
	}
	err := t.e.srv.SetBillingMode(t.region, t.name, mode, awssim.Capacity{Read: int64(s.capacity.Read), Write: int64(s.capacity.Write)}, gsis, at)
	if err != nil {
		res.ErrorCode, res.Message = errorCode(err), errMessage(err)
		t.results = append(t.results, res)
		return
	}
	t.results = append(t.results, res)
	if s.onDemand == t.onDemand {
		return
	}
	m := at.Unix() / 60
	if !s.onDemand {
		t.ents[0].dirs[0].cap, t.ents[0].dirs[1].cap = s.capacity.Read, s.capacity.Write
	}
	t.setMode(m, s.onDemand)
}

// setMode records a billing-mode change at minute m and resets the
// dimensions' scaling state.
func (t *tableSim) setMode(m int64, onDemand bool) {
	t.onDemand = onDemand
	t.modeLog = append(t.modeLog, modePoint{m, onDemand})
	for _, en := range t.ents {
		for d := range en.dirs {
			s := &en.dirs[d]
			s.pending, s.decrease, s.above, s.below = nil, nil, 0, 0
			if onDemand {
				s.switchedToOnDemand(s.cap)
			} else {
				if s.policy != nil {
					s.cap = s.policy.clamp(s.cap)
				}
				s.burst = burstSeconds * s.cap
				s.capLog = append(s.capLog, capPoint{m, s.cap})
			}
		}
	}
}

// errorCode is the AWS error code of an error of the simulated account.
func errorCode(err error) string {
	k, _, ok := awssim.ErrorKindOf(err)
	if !ok {
		return "InternalError"
	}
	switch k {
	case awssim.ErrLimitExceeded:
		return "LimitExceededException"
	case awssim.ErrValidation:
		return "ValidationException"
	case awssim.ErrResourceNotFound:
		return "ResourceNotFoundException"
	}
	return string(k)
}

// step simulates minute m.
func (t *tableSim) step(m int64) {
	d := t.gen.at(m)
	var deletes float64 // replicated TTL deletes: they write no GSI (replicas.go)
	if t.source != nil {
		d.write, deletes = t.replicatedWrite(m), t.replicatedDelete(m)
	}
	quota := t.e.sc.Account.TableQuota
	quotas := [2]float64{quota.Read, quota.Write}
	outs := t.outs
	// The table first: its GSIs read their share of the table's read
	// demand and write their share of the writes it accepted.
	tab := t.ents[0]
	for dir, dem := range [2]float64{d.read, d.write + deletes} {
		outs[0][dir] = tab.dirs[dir].serve(dem, d.hot, tab.partitions, t.onDemand, quotas[dir])
	}
	accepted := outs[0][1].consumed
	// indexed is the accepted writes that write the GSIs: the writes'
	// share of what the table accepted.
	indexed := accepted
	if deletes > 0 {
		indexed = accepted * d.write / (d.write + deletes)
	}
	var rejected float64
	for i, en := range t.ents[1:] {
		rd, wd := d.read*en.share.Read, indexed*en.share.Write
		for dir, dem := range [2]float64{rd, wd} {
			outs[i+1][dir] = en.dirs[dir].serve(dem, en.hot, en.partitions, t.onDemand, quotas[dir])
		}
		if w := en.share.Write; w > 0 {
			var thr float64
			for _, x := range outs[i+1][1].throttled {
				thr += x
			}
			// The base-table writes this GSI could not take (the
			// GSIs are assumed to refuse the same writes: the largest
			// refusal counts).
			rejected = math.Max(rejected, thr/w)
		}
	}
	// GSI back-pressure: "When a GSI has insufficient write capacity,
	// throttling results in write operations that fail on the base table or
	// any of its GSIs" (AWS re:Post Knowledge Center article on GSI
	// throttling, https://repost.aws/knowledge-center/dynamodb-gsi-throttling-table).
	// A refused write is throttled on the base table (WriteThrottleEvents
	// and ThrottledRequests, no cause metric of its own: the cause is the
	// GSI's) and consumes nothing on the table or any GSI.
	rejected = math.Min(rejected, indexed)
	written := accepted - rejected
	if len(t.replicas) > 0 {
		t.wbuf = append(t.wbuf, written)
	}
	for i, en := range t.ents {
		nch := len(en.lastNZ)
		vals := t.vals[:nch]
		clear(vals)
		for dir := range en.dirs {
			s := &en.dirs[dir]
			out := outs[i][dir]
			served := out.consumed
			if dir == 1 {
				if i == 0 {
					out.consumed = written
				} else {
					out.consumed = math.Min(out.consumed, (indexed-rejected)*en.share.Write)
				}
			}
			s.settle(out.consumed, served-out.consumed, t.onDemand)
			vals[chConsumed+dir] = float32(math.Floor(out.consumed*120) / 2)
			for c, x := range out.throttled {
				if x > 0 {
					vals[chThrottle+dir*numCauses+c] = float32(math.Ceil(x * 60 / unitsPerRequest(dir)))
				}
			}
			if !t.onDemand && s.policy != nil {
				// The alarms see the published datapoint.
				s.decide(m, float64(vals[chConsumed+dir])/60)
			}
		}
		if i == 0 {
			if rejected > 0 {
				vals[chBackPressure] = float32(math.Ceil(rejected * 60 / writeUnitsPerRequest))
				vals[chRejected] = float32(rejected * 60)
			}
			if r := t.spec.SystemErrorsPerHour / 60; r > 0 {
				vals[chSysErr] = float32(math.Floor(r + unit(t.seed^0x5e, m)))
			}
		}
		for c := 0; c < nch; c++ {
			if vals[c] != 0 && c != chLatMean && c != chLatP99 {
				en.lastNZ[c] = m
			}
		}
		en.store.push(vals)
	}
	if t.writes != nil {
		t.writes.minute(m)
	}
}

// latencyAt returns the latency factors of the table in minute m: a pure
// function of the minute's demand (the pressure on the hottest partition,
// the larger of read and write, before any throttling) and of a noise draw,
// so that they are computed when read rather than stored.
func (t *tableSim) latencyAt(m int64) (avg, p99 float32) {
	d := t.gen.at(m)
	tab := t.ents[0]
	var pressure float64
	for dir, dem := range [2]float64{d.read, d.write} {
		limit, share := partitionLimit(dir == 0, d.hot, tab.partitions)
		pressure = math.Max(pressure, dem*share/limit)
	}
	f, q := latencyFactors(pressure, unit(t.seed^0x1a7e, m))
	return float32(f), float32(q)
}

// sync adopts changes made to the table through the API (UpdateTable by a
// client, DeleteTable) before simulating from minute m.
func (t *tableSim) sync(m int64) {
	if t.deleted {
		return
	}
	tb, ok := t.e.srv.Table(t.region, t.name)
	if !ok {
		t.deleted = true
		return
	}
	onDemand := tb.BillingMode == awssim.BillingPayPerRequest
	if onDemand != t.onDemand {
		if !onDemand {
			t.adoptCapacity(tb, m, false)
		}
		t.setMode(m, onDemand)
		return
	}
	if !onDemand {
		t.adoptCapacity(tb, m, true)
	}
}

func (t *tableSim) adoptCapacity(tb awssim.Table, m int64, log bool) {
	for _, en := range t.ents {
		th := tb.Throughput
		if en.index != "" {
			for i := range tb.GSIs {
				if tb.GSIs[i].IndexName == en.index {
					th = tb.GSIs[i].Throughput
				}
			}
		}
		for d, v := range []int64{th.ReadCapacityUnits, th.WriteCapacityUnits} {
			s := &en.dirs[d]
			if float64(v) == s.cap || v <= 0 {
				continue
			}
			s.cap, s.pending, s.decrease = float64(v), nil, nil
			if log {
				s.capLog = append(s.capLog, capPoint{m, s.cap})
			}
		}
	}
}

// flushWrites writes the items of the TTL write stream to the server.
func (t *tableSim) flushWrites() {
	if len(t.pending) == 0 || t.deleted {
		t.pending = t.pending[:0]
		return
	}
	if err := t.e.srv.WriteItemsAt(t.region, t.name, t.pending); err != nil {
		t.noteErr(err)
	}
	t.pending = t.pending[:0]
}

// noteWarm gives the server the highest on-demand minute each table and GSI
// has served (units/s, rounded up), when it rose: the simulated warm
// throughput grows with on-demand peaks (awssim.Server.RaiseWarmThroughput).
// A provisioned dimension has none (its capacity raises it).
func (t *tableSim) noteWarm() {
	if t.deleted {
		return
	}
	for _, en := range t.ents {
		var peak [2]int64
		for d := range en.dirs {
			s := &en.dirs[d]
			if s.ringN == 0 {
				continue
			}
			p := s.oldPeak
			for _, v := range s.ring[:s.ringN] {
				p = math.Max(p, v)
			}
			peak[d] = int64(math.Ceil(p))
		}
		if peak[0] <= en.warmSent[0] && peak[1] <= en.warmSent[1] {
			continue
		}
		if err := t.e.srv.RaiseWarmThroughput(t.region, t.name, en.index, peak[0], peak[1]); err != nil && t.err == nil {
			t.err = err
		}
		en.warmSent = [2]int64{max(en.warmSent[0], peak[0]), max(en.warmSent[1], peak[1])}
	}
}
