package sim

import (
	"math"
	"slices"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// seriesKind is what a CloudWatch series is computed from.
type seriesKind int

const (
	kConsumed          seriesKind = iota // Consumed{Read,Write}CapacityUnits
	kThrottleAll                         // {Read,Write}ThrottleEvents
	kThrottleCause                       // {Read,Write}<cause>ThrottleEvents
	kThrottledRequests                   // ThrottledRequests by operation
	kLatency                             // SuccessfulRequestLatency by operation
	kSystemErrors                        // SystemErrors by operation
	kProvisioned                         // Provisioned{Read,Write}CapacityUnits
	kUserErrors                          // UserErrors (account)
	kReplication                         // ReplicationLatency of a global table, per receiving region (op: the replica)
)

// seriesRef locates one CloudWatch series in the simulation.
type seriesRef struct {
	metric         awssim.Metric
	kind           seriesKind
	t              *tableSim
	en             *entity
	dir, cause, op int
	rg             *regionSim
}

// listWindow is how long a metric without data stays listed.
const listWindow = 14 * 1440

var dirName = [2]string{"Read", "Write"}

// buildSeries indexes every series the scenario can produce.
func (e *Engine) buildSeries() {
	e.series = map[string]map[string]*seriesRef{}
	add := func(region string, r *seriesRef) {
		if e.series[region] == nil {
			e.series[region] = map[string]*seriesRef{}
		}
		e.series[region][r.metric.Key()] = r
	}
	metric := func(name string, dims ...awssim.Dimension) awssim.Metric {
		return awssim.Metric{Namespace: awssim.NamespaceDynamoDB, Name: name, Dimensions: dims}
	}
	for _, r := range e.regions {
		add(r.name, &seriesRef{metric: metric("UserErrors"), kind: kUserErrors, rg: r})
	}
	for _, t := range e.tables {
		for _, en := range t.ents {
			dims := []awssim.Dimension{{Name: "TableName", Value: t.name}}
			if en.index != "" {
				dims = append(dims, awssim.Dimension{Name: "GlobalSecondaryIndexName", Value: en.index})
			}
			for d := range 2 {
				add(t.region, &seriesRef{metric: metric("Consumed"+dirName[d]+"CapacityUnits", dims...), kind: kConsumed, t: t, en: en, dir: d})
				add(t.region, &seriesRef{metric: metric("Provisioned"+dirName[d]+"CapacityUnits", dims...), kind: kProvisioned, t: t, en: en, dir: d})
				add(t.region, &seriesRef{metric: metric(dirName[d]+"ThrottleEvents", dims...), kind: kThrottleAll, t: t, en: en, dir: d})
				for c := range numCauses {
					if en.index != "" && d == 1 && c == causeAccountLimit {
						// WriteAccountLimitThrottleEvents has the
						// TableName dimension only (Amazon DynamoDB
						// Developer Guide, "DynamoDB Metrics and
						// dimensions").
						continue
					}
					add(t.region, &seriesRef{metric: metric(dirName[d]+causeMetric[c]+"ThrottleEvents", dims...), kind: kThrottleCause, t: t, en: en, dir: d, cause: c})
				}
			}
			if en.index != "" {
				continue
			}
			for i, r := range t.replicas {
				add(t.region, &seriesRef{metric: metric("ReplicationLatency", awssim.Dimension{Name: "ReceivingRegion", Value: r.region},
					awssim.Dimension{Name: "TableName", Value: t.name}), kind: kReplication, t: t, en: en, dir: 1, op: i})
			}
			for i, op := range operations {
				od := append(slices.Clone(dims), awssim.Dimension{Name: "Operation", Value: op.name})
				d := 0
				if op.write {
					d = 1
				}
				for _, k := range []struct {
					name string
					kind seriesKind
				}{{"ThrottledRequests", kThrottledRequests}, {"SuccessfulRequestLatency", kLatency}, {"SystemErrors", kSystemErrors}} {
					add(t.region, &seriesRef{metric: metric(k.name, od...), kind: k.kind, t: t, en: en, dir: d, op: i})
				}
			}
		}
	}
}

// ListMetrics implements awssim.MetricSource: the series with a datapoint
// in the last 14 days.
func (e *Engine) ListMetrics(region string) []awssim.Metric {
	e.catchUp()
	e.mu.RLock()
	defer e.mu.RUnlock()
	cutoff := e.next.Load() - listWindow
	var out []awssim.Metric
	for _, r := range e.series[region] {
		if r.exists(cutoff) {
			out = append(out, r.metric)
		}
	}
	return out
}

// HasData implements awssim.ActivityReporter from the last non-zero minute
// of each series, without building datapoints.
func (e *Engine) HasData(region string, m awssim.Metric, start, end time.Time) bool {
	r := e.series[region][m.Key()]
	if r == nil {
		return false
	}
	e.catchUp()
	e.mu.RLock()
	a := ceilDiv(start.Unix(), 60)
	b := min(ceilDiv(end.Unix(), 60), e.next.Load())
	recent := a < b && r.exists(a)
	exact := b >= e.next.Load() || r.kind == kProvisioned
	e.mu.RUnlock()
	if !recent || exact {
		// No datapoint since a, or since a until now: the answer is exact.
		return recent
	}
	// A datapoint after a exists, but maybe only after end: look.
	return len(e.Datapoints(region, m, start, end)) > 0
}

// exists reports whether the series had a datapoint since minute cutoff.
func (r *seriesRef) exists(cutoff int64) bool {
	switch r.kind {
	case kUserErrors:
		return r.rg.lastNZ >= cutoff
	case kConsumed, kLatency, kReplication:
		return r.en.lastNZ[chConsumed+r.dir] >= cutoff
	case kThrottleCause:
		return r.en.lastNZ[chThrottle+r.dir*numCauses+r.cause] >= cutoff
	case kThrottleAll, kThrottledRequests:
		for c := range numCauses {
			if r.en.lastNZ[chThrottle+r.dir*numCauses+c] >= cutoff {
				return true
			}
		}
		return r.dir == 1 && r.en.index == "" && r.en.lastNZ[chBackPressure] >= cutoff
	case kSystemErrors:
		return r.en.lastNZ[chSysErr] >= cutoff
	case kProvisioned:
		log := r.t.modeLog
		for i, p := range log {
			end := int64(math.MaxInt64)
			if i+1 < len(log) {
				end = log[i+1].minute
			}
			if !p.onDemand && end > cutoff {
				return true
			}
		}
	}
	return false
}

// Datapoints implements awssim.MetricSource. Minutes within 15 days are
// answered per minute, older ones as one datapoint per 5-minute step (to
// 63 days) or hour, whose sums are those of their minutes.
func (e *Engine) Datapoints(region string, m awssim.Metric, start, end time.Time) []awssim.Datapoint {
	r := e.series[region][m.Key()]
	if r == nil {
		return nil
	}
	e.catchUp()
	e.mu.RLock()
	defer e.mu.RUnlock()
	a := ceilDiv(start.Unix(), 60)
	b := min(ceilDiv(end.Unix(), 60), e.next.Load())
	if a >= b {
		return nil
	}
	var out []awssim.Datapoint
	if r.kind == kProvisioned {
		return r.provisioned(a, b)
	}
	store := r.rg.storeOr(r.en)
	if r.kind == kConsumed || r.kind == kLatency || r.kind == kReplication {
		// A datapoint in nearly every step of an active table: one
		// allocation rather than a slice grown and copied twenty times.
		n := 0
		store.steps(a, b, func(step) { n++ })
		out = make([]awssim.Datapoint, 0, n)
	}
	store.steps(a, b, func(st step) {
		if dp, ok := r.datapoint(store, st); ok {
			dp.Time = minuteTime(st.minute)
			out = append(out, dp)
		}
	})
	return out
}

func (r *regionSim) storeOr(en *entity) *tiered {
	if r != nil {
		return r.store
	}
	return en.store
}

func countDatapoint(n float64) awssim.Datapoint {
	return awssim.Datapoint{Sum: n, SampleCount: n, Minimum: 1, Maximum: 1}
}

func unitsPerRequest(dir int) float64 {
	if dir == 1 {
		return writeUnitsPerRequest
	}
	return readUnitsPerRequest
}

// throttles is the throttle events of a dimension in a step: those of
// every cause and, for a table's writes, those a GSI's lack of write
// capacity caused.
func throttles(s *tiered, dir int, st step) float64 {
	var n float64
	for c := range numCauses {
		n += s.value(chThrottle+dir*numCauses+c, st)
	}
	if dir == 1 && len(s.agg) > chBackPressure {
		n += s.value(chBackPressure, st)
	}
	return n
}

// opShare splits n requests of a direction between its two operations
// without losing any.
func opShare(n float64, op int) float64 {
	first := op
	if op%2 == 1 {
		first = op - 1
	}
	lead := math.Round(n * operations[first].share)
	if op == first {
		return lead
	}
	return n - lead
}

// datapoint computes the series' statistic set of one step.
func (r *seriesRef) datapoint(s *tiered, st step) (awssim.Datapoint, bool) {
	switch r.kind {
	case kUserErrors:
		v := s.value(0, st)
		return countDatapoint(v), v > 0
	case kConsumed:
		v := s.value(chConsumed+r.dir, st)
		if v <= 0 {
			return awssim.Datapoint{}, false
		}
		dp := awssim.Datapoint{Sum: v, SampleCount: math.Max(1, math.Round(v/unitsPerRequest(r.dir))), Minimum: 0.5, Maximum: 8}
		if r.dir == 1 {
			dp.Minimum, dp.Maximum = 1, 5
		}
		return dp, true
	case kThrottleCause:
		v := s.value(chThrottle+r.dir*numCauses+r.cause, st)
		return countDatapoint(v), v > 0
	case kThrottleAll:
		v := throttles(s, r.dir, st)
		return countDatapoint(v), v > 0
	case kThrottledRequests:
		v := opShare(throttles(s, r.dir, st), r.op)
		return countDatapoint(v), v > 0
	case kSystemErrors:
		v := s.value(chSysErr, st)
		if v <= 0 || int(unit(r.t.seed^0x0b, st.minute)*float64(len(operations))) != r.op {
			return awssim.Datapoint{}, false
		}
		return countDatapoint(v), true
	case kReplication:
		return r.replicationDatapoint(st)
	case kLatency:
		op := operations[r.op]
		n := math.Round(s.value(chConsumed+r.dir, st) / unitsPerRequest(r.dir) * op.share)
		if n < 1 {
			return awssim.Datapoint{}, false
		}
		avg := op.latency * s.value(chLatMean, st)
		p99 := op.latency * s.value(chLatP99, st)
		return awssim.Datapoint{
			Sum: avg * n, SampleCount: n, Minimum: avg * 0.3, Maximum: p99 * 1.6,
			Percentiles: map[string]float64{"p50": avg * 0.8, "p90": avg * 1.6, "p99": p99},
		}, true
	}
	return awssim.Datapoint{}, false
}

// provisioned returns ProvisionedCapacityUnits samples every 5 minutes
// while the table is provisioned.
func (r *seriesRef) provisioned(a, b int64) []awssim.Datapoint {
	var out []awssim.Datapoint
	h0 := r.t.modeLog[0].minute
	for k := max(ceilDiv(a, 5)*5, ceilDiv(h0, 5)*5); k < b; k += 5 {
		if r.t.onDemandAt(k) {
			continue
		}
		if k >= r.en.store.end() {
			break // the table was deleted
		}
		out = append(out, awssim.Sample(minuteTime(k), r.en.dirs[r.dir].capacityAt(k)))
	}
	return out
}

// onDemandAt reports the billing mode in minute m.
func (t *tableSim) onDemandAt(m int64) bool {
	i, _ := slices.BinarySearchFunc(t.modeLog, m+1, func(p modePoint, x int64) int { return cmpInt(p.minute, x) })
	if i == 0 {
		return t.modeLog[0].onDemand
	}
	return t.modeLog[i-1].onDemand
}

// capacityAt is the provisioned capacity in minute m.
func (s *dirState) capacityAt(m int64) float64 {
	i, _ := slices.BinarySearchFunc(s.capLog, m+1, func(p capPoint, x int64) int { return cmpInt(p.minute, x) })
	if i == 0 {
		return s.capLog[0].value
	}
	return s.capLog[i-1].value
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
