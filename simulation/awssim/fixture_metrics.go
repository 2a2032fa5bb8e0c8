package awssim

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"time"
)

// NamespaceDynamoDB is the CloudWatch namespace DynamoDB publishes to.
const NamespaceDynamoDB = "AWS/DynamoDB"

// fxTable drives the generated traffic of one fixture table. Rates are
// capacity units per second.
type fxTable struct {
	region, name string
	provisioned  bool
	rcu, wcu     float64 // provisioned capacity (0 for on-demand)
	readRate     float64 // typical consumed read units/s (at the daily mean)
	writeRate    float64
	phase        float64 // daily-curve phase in radians
	gsis         map[string]float64
	ttl          bool
	spike        bool // a daily 20-minute spike above provisioned capacity
	// replicas are the receiving regions of a global table: its
	// ReplicationLatency (milliseconds) to each.
	replicas []string
}

// fxTables is the traffic model of the fixture tables (see fixtureTables).
var fxTables = []fxTable{
	{region: FixtureRegion, name: "orders", provisioned: true, rcu: 100, wcu: 50, readRate: 35, writeRate: 17, phase: 0.3,
		gsis: map[string]float64{"by-customer": 0.55, "by-status": 0.2}, ttl: true, spike: true},
	{region: FixtureRegion, name: "sessions", readRate: 320, writeRate: 140, phase: 1.1, ttl: true},
	{region: FixtureRegion, name: "audit-log", provisioned: true, rcu: 5, wcu: 5, readRate: 0.8, writeRate: 2.2, phase: 2.0},
	{region: FixtureRegion, name: "events-archive", readRate: 3, writeRate: 24, phase: 0.7, replicas: []string{FixtureRegionAP}},
	{region: FixtureRegionEU, name: "orders-eu", provisioned: true, rcu: 40, wcu: 20, readRate: 12, writeRate: 6, phase: 2.6, ttl: true},
}

// Spike window of fxTable.spike tables, minutes of the UTC day.
const (
	spikeStartMinute = 14 * 60
	spikeEndMinute   = 14*60 + 20
)

// fxGen produces the datapoint of one metric in one minute; ok is false
// when the metric has no datapoint in that minute.
type fxGen func(minute time.Time) (dp Datapoint, ok bool)

type fxSeries struct {
	metric Metric
	gen    fxGen
}

// fixtureSource generates the fixture's CloudWatch data as a pure function
// of table, metric and minute.
type fixtureSource struct {
	byRegion map[string]map[string]fxSeries
}

// FixtureSource returns the deterministic MetricSource of the fixture
// account: namespace AWS/DynamoDB, a smooth daily curve plus pseudo-noise,
// a daily spike of table orders between 14:00 and 14:20 UTC that exceeds
// its provisioned capacity and causes throttle events (which exist only in
// minutes with events), rare SystemErrors, account-level UserErrors and
// TimeToLiveDeletedItemCount for tables with TTL enabled.
func FixtureSource() MetricSource {
	fs := &fixtureSource{byRegion: map[string]map[string]fxSeries{}}
	add := func(region string, m Metric, g fxGen) {
		if fs.byRegion[region] == nil {
			fs.byRegion[region] = map[string]fxSeries{}
		}
		fs.byRegion[region][m.Key()] = fxSeries{metric: m.canonical(), gen: g}
	}
	for _, region := range []string{FixtureRegion, FixtureRegionEU} {
		seed := "UserErrors/" + region
		add(region, Metric{Namespace: NamespaceDynamoDB, Name: "UserErrors"}, eventGen(seed, 0.25, 4))
	}
	for i := range fxTables {
		t := &fxTables[i]
		for _, m := range t.metrics() {
			add(t.region, m.metric, m.gen)
		}
	}
	return fs
}

// ListMetrics implements MetricSource.
func (fs *fixtureSource) ListMetrics(region string) []Metric {
	out := make([]Metric, 0, len(fs.byRegion[region]))
	for _, s := range fs.byRegion[region] {
		out = append(out, s.metric.canonical())
	}
	return out
}

// Datapoints implements MetricSource.
func (fs *fixtureSource) Datapoints(region string, m Metric, start, end time.Time) []Datapoint {
	s, ok := fs.byRegion[region][m.Key()]
	if !ok {
		return nil
	}
	var out []Datapoint
	first := start.UTC().Truncate(time.Minute)
	if first.Before(start) {
		first = first.Add(time.Minute)
	}
	for t := first; t.Before(end); t = t.Add(time.Minute) {
		if dp, ok := s.gen(t); ok {
			dp.Time = t
			out = append(out, dp)
		}
	}
	return out
}

// unit returns a deterministic pseudo-random number in [0,1) for seed and
// minute.
func unit(seed string, minute time.Time) float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(minute.Unix()))
	_, _ = h.Write(b[:])
	// FNV alone barely changes its high bits between adjacent minutes;
	// the splitmix64 finalizer spreads every input bit over the output.
	return float64(mix64(h.Sum64())>>11) / (1 << 53)
}

// daily is a smooth daily curve around 1 (0.6 .. 1.4).
func daily(minute time.Time, phase float64) float64 {
	m := float64(minute.UTC().Hour()*60 + minute.UTC().Minute())
	return 1 + 0.4*math.Sin(2*math.Pi*m/1440-phase)
}

// inSpike reports whether minute is in the daily spike window.
func inSpike(minute time.Time) bool {
	m := minute.UTC().Hour()*60 + minute.UTC().Minute()
	return m >= spikeStartMinute && m < spikeEndMinute
}

// demand is the requested capacity units/s of one direction in minute.
func (t *fxTable) demand(read bool, minute time.Time) float64 {
	rate, prov, dir := t.writeRate, t.wcu, "w"
	if read {
		rate, prov, dir = t.readRate, t.rcu, "r"
	}
	noise := 1 + 0.2*(unit(t.name+"/demand/"+dir, minute)-0.5)
	if t.spike && inSpike(minute) {
		return prov * 1.3 * noise
	}
	return rate * daily(minute, t.phase) * noise
}

// consumed and throttled units/s: provisioned tables consume at most 110%
// of their capacity (burst), the rest of the demand is throttled.
func (t *fxTable) consumed(read bool, minute time.Time) (used, throttled float64) {
	d := t.demand(read, minute)
	if !t.provisioned {
		return d, 0
	}
	limit := t.wcu * 1.1
	if read {
		limit = t.rcu * 1.1
	}
	if d <= limit {
		return d, 0
	}
	return limit, d - limit
}

// unitsPerRequest is the average capacity a request consumes.
func unitsPerRequest(read bool) float64 {
	if read {
		return 1.5
	}
	return 1.2
}

// capacityDatapoint is the statistic set of consumed capacity: Sum is
// units in the minute, SampleCount requests, Min/Max per request.
func capacityDatapoint(unitsPerSecond float64, read bool) Datapoint {
	sum := math.Round(unitsPerSecond*60*2) / 2
	count := math.Max(1, math.Round(sum/unitsPerRequest(read)))
	dp := Datapoint{Sum: sum, SampleCount: count, Minimum: 0.5, Maximum: 8}
	if !read {
		dp.Minimum, dp.Maximum = 1, 5
	}
	return dp
}

// countDatapoint is an event count: every event is one sample of 1.
func countDatapoint(n float64) Datapoint {
	return Datapoint{Sum: n, SampleCount: n, Minimum: 1, Maximum: 1}
}

// eventGen produces an event metric present in a fraction p of minutes with
// 1..maxN events.
func eventGen(seed string, p float64, maxN int) fxGen {
	return func(minute time.Time) (Datapoint, bool) {
		if unit(seed, minute) >= p {
			return Datapoint{}, false
		}
		return countDatapoint(1 + math.Floor(unit(seed+"/n", minute)*float64(maxN))), true
	}
}

// fxOps are the operations with per-operation metrics and their share of
// the read or write requests.
var fxOps = []struct {
	name    string
	read    bool
	share   float64
	latency float64 // mean latency in ms
}{
	{"GetItem", true, 0.6, 3.2},
	{"Query", true, 0.4, 6.5},
	{"PutItem", false, 1.0, 5.1},
}

// metrics lists every generated series of the table.
func (t *fxTable) metrics() []fxSeries {
	dim := []Dimension{{Name: "TableName", Value: t.name}}
	metric := func(name string, extra ...Dimension) Metric {
		return Metric{Namespace: NamespaceDynamoDB, Name: name, Dimensions: append(append([]Dimension{}, dim...), extra...)}
	}
	var out []fxSeries
	for _, read := range []bool{true, false} {
		name := "ConsumedWriteCapacityUnits"
		if read {
			name = "ConsumedReadCapacityUnits"
		}
		out = append(out, fxSeries{metric(name), func(m time.Time) (Datapoint, bool) {
			used, _ := t.consumed(read, m)
			return capacityDatapoint(used, read), true
		}})
		for gsi, share := range t.gsis {
			out = append(out, fxSeries{metric(name, Dimension{Name: "GlobalSecondaryIndexName", Value: gsi}), func(m time.Time) (Datapoint, bool) {
				used, _ := t.consumed(read, m)
				return capacityDatapoint(used*share, read), true
			}})
		}
	}
	for _, op := range fxOps {
		opDim := Dimension{Name: "Operation", Value: op.name}
		out = append(out, fxSeries{metric("SuccessfulRequestLatency", opDim), t.latencyGen(op.name, op.read, op.share, op.latency)})
		out = append(out, fxSeries{metric("SystemErrors", opDim), eventGen(t.name+"/SystemErrors/"+op.name, 0.002, 2)})
		if t.spike {
			out = append(out, fxSeries{metric("ThrottledRequests", opDim), t.throttleGen(op.read, op.share*0.8)})
		}
	}
	if t.spike {
		for _, read := range []bool{true, false} {
			dir := "Write"
			if read {
				dir = "Read"
			}
			out = append(out,
				fxSeries{metric(dir + "ThrottleEvents"), t.throttleGen(read, 1)},
				fxSeries{metric(dir + "ProvisionedThroughputThrottleEvents"), t.throttleGen(read, 0.9)},
				fxSeries{metric(dir + "KeyRangeThroughputThrottleEvents"), t.throttleGen(read, 0.1)})
		}
	}
	if t.ttl {
		out = append(out, fxSeries{metric("TimeToLiveDeletedItemCount"), eventGen(t.name+"/ttl", 0.7, 30)})
	}
	for _, rg := range t.replicas {
		seed := t.name + "/replication/" + rg
		out = append(out, fxSeries{metric("ReplicationLatency", Dimension{Name: "ReceivingRegion", Value: rg}), func(m time.Time) (Datapoint, bool) {
			used, _ := t.consumed(false, m)
			n := math.Max(1, math.Round(used*60/unitsPerRequest(false)))
			avg := math.Round(900 * (1 + 0.2*(unit(seed, m)-0.5)))
			return Datapoint{Sum: avg * n, SampleCount: n, Minimum: math.Round(avg * 0.6), Maximum: math.Round(avg * 1.8)}, true
		}})
	}
	return out
}

// throttleGen counts throttled requests (share of them) in a minute; there
// is no datapoint when nothing was throttled.
func (t *fxTable) throttleGen(read bool, share float64) fxGen {
	return func(m time.Time) (Datapoint, bool) {
		_, thr := t.consumed(read, m)
		n := math.Round(thr * 60 / unitsPerRequest(read) * share)
		if n <= 0 {
			return Datapoint{}, false
		}
		return countDatapoint(n), true
	}
}

// latencyGen produces SuccessfulRequestLatency with Average and p99; the
// spike slows requests down.
func (t *fxTable) latencyGen(op string, read bool, share, mean float64) fxGen {
	seed := t.name + "/latency/" + op
	return func(m time.Time) (Datapoint, bool) {
		used, _ := t.consumed(read, m)
		count := math.Max(1, math.Round(used*60/unitsPerRequest(read)*share))
		avg := mean * (1 + 0.3*(unit(seed, m)-0.5))
		if t.spike && inSpike(m) {
			avg *= 1.4
		}
		avg = math.Round(avg*100) / 100
		p99 := math.Round(avg*(2.5+unit(seed+"/p99", m))*100) / 100
		return Datapoint{
			Sum:         math.Round(avg*count*100) / 100,
			SampleCount: count,
			Minimum:     math.Round(avg*30) / 100,
			Maximum:     math.Round(p99*140) / 100,
			Percentiles: map[string]float64{"p99": p99, "p90": math.Round(avg*180) / 100, "p50": math.Round(avg*90) / 100},
		}, true
	}
}
