package awssim

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Dimension is one name/value pair of a CloudWatch metric.
type Dimension struct {
	Name  string
	Value string
}

// Metric identifies a CloudWatch metric within a region. Two metrics with
// the same dimensions in a different order are the same metric.
type Metric struct {
	Namespace  string
	Name       string
	Dimensions []Dimension
}

// Key returns a canonical, order-independent identity of m.
func (m Metric) Key() string {
	dims := slices.Clone(m.Dimensions)
	slices.SortFunc(dims, func(a, b Dimension) int { return cmp.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString(m.Namespace)
	b.WriteByte(0)
	b.WriteString(m.Name)
	for _, d := range dims {
		b.WriteByte(0)
		b.WriteString(d.Name)
		b.WriteByte(1)
		b.WriteString(d.Value)
	}
	return b.String()
}

// Dim returns the value of dimension name, or "".
func (m Metric) Dim(name string) string {
	for _, d := range m.Dimensions {
		if d.Name == name {
			return d.Value
		}
	}
	return ""
}

// canonical returns m with its dimensions sorted by name.
func (m Metric) canonical() Metric {
	m.Dimensions = slices.Clone(m.Dimensions)
	slices.SortFunc(m.Dimensions, func(a, b Dimension) int { return cmp.Compare(a.Name, b.Name) })
	return m
}

// Datapoint is the statistic set of one metric in one minute, the storage
// resolution of the simulator.
type Datapoint struct {
	// Time is the start of the minute (other times are truncated).
	Time        time.Time
	Sum         float64
	SampleCount float64
	Minimum     float64
	Maximum     float64
	// Percentiles holds optional percentile values keyed "p99", "p50",
	// "p99.9", ... (see PercentileKey).
	Percentiles map[string]float64
}

// Sample returns the datapoint of a single observation v at t.
func Sample(t time.Time, v float64) Datapoint {
	return Datapoint{Time: t, Sum: v, SampleCount: 1, Minimum: v, Maximum: v}
}

// PercentileKey normalises a percentile statistic ("p99", "P99.0") to the
// key used in Datapoint.Percentiles, reporting whether it is one.
func PercentileKey(stat string) (string, bool) {
	if len(stat) < 2 || (stat[0] != 'p' && stat[0] != 'P') {
		return "", false
	}
	v, err := strconv.ParseFloat(stat[1:], 64)
	if err != nil || v < 0 || v > 100 {
		return "", false
	}
	return "p" + strconv.FormatFloat(v, 'f', -1, 64), true
}

// MetricSource produces CloudWatch data. Sources are consulted lazily, so a
// generator can answer for any time without storing anything. All methods
// must be safe for concurrent use.
type MetricSource interface {
	// ListMetrics returns the metrics that exist in region.
	ListMetrics(region string) []Metric
	// Datapoints returns the per-minute datapoints of m in region whose
	// minute starts in [start, end), in any order. m's dimensions may be in
	// any order; a source matches them as a set.
	Datapoints(region string, m Metric, start, end time.Time) []Datapoint
}

// MetricStore is an in-memory MetricSource that tests append datapoints to.
// It is safe for concurrent use.
type MetricStore struct {
	mu     sync.RWMutex
	series map[string]map[string]*series // region -> metric key -> series
}

type series struct {
	metric Metric
	points map[int64]Datapoint // unix minute start -> datapoint
}

// NewMetricStore returns an empty store.
func NewMetricStore() *MetricStore {
	return &MetricStore{series: make(map[string]map[string]*series)}
}

func (ms *MetricStore) seriesOf(region string, m Metric) *series {
	r := ms.series[region]
	if r == nil {
		r = make(map[string]*series)
		ms.series[region] = r
	}
	k := m.Key()
	s := r[k]
	if s == nil {
		s = &series{metric: m.canonical(), points: make(map[int64]Datapoint)}
		r[k] = s
	}
	return s
}

// Put stores datapoints of m in region, replacing any datapoint of the same
// minute.
func (ms *MetricStore) Put(region string, m Metric, dps ...Datapoint) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	s := ms.seriesOf(region, m)
	for _, dp := range dps {
		dp.Time = dp.Time.UTC().Truncate(time.Minute)
		dp.Percentiles = maps.Clone(dp.Percentiles)
		s.points[dp.Time.Unix()] = dp
	}
}

// AddSample merges one observation v at t into the statistic set of its
// minute, as PutMetricData with a single value would.
func (ms *MetricStore) AddSample(region string, m Metric, t time.Time, v float64) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	s := ms.seriesOf(region, m)
	dp := Sample(t.UTC().Truncate(time.Minute), v)
	if old, ok := s.points[dp.Time.Unix()]; ok {
		dp = mergeDatapoints(old, dp)
	}
	s.points[dp.Time.Unix()] = dp
}

// Delete removes every datapoint of m in region.
func (ms *MetricStore) Delete(region string, m Metric) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	delete(ms.series[region], m.Key())
}

// ListMetrics implements MetricSource.
func (ms *MetricStore) ListMetrics(region string) []Metric {
	ms.mu.RLock()
	defer ms.mu.RUnlock()
	out := make([]Metric, 0, len(ms.series[region]))
	for _, s := range ms.series[region] {
		if len(s.points) > 0 {
			out = append(out, s.metric.canonical())
		}
	}
	return out
}

// Datapoints implements MetricSource.
func (ms *MetricStore) Datapoints(region string, m Metric, start, end time.Time) []Datapoint {
	ms.mu.RLock()
	defer ms.mu.RUnlock()
	s := ms.series[region][m.Key()]
	if s == nil {
		return nil
	}
	var out []Datapoint
	s.each(start, end, func(dp Datapoint) bool {
		dp.Percentiles = maps.Clone(dp.Percentiles)
		out = append(out, dp)
		return true
	})
	return out
}

// HasData implements ActivityReporter.
func (ms *MetricStore) HasData(region string, m Metric, start, end time.Time) bool {
	ms.mu.RLock()
	defer ms.mu.RUnlock()
	s := ms.series[region][m.Key()]
	found := false
	if s != nil {
		s.each(start, end, func(Datapoint) bool { found = true; return false })
	}
	return found
}

// each calls f with the datapoints in [start, end) in time order until f
// returns false (so that sums over them are the same from call to call),
// visiting whichever is fewer: the minutes of the range or the points held.
func (s *series) each(start, end time.Time, f func(Datapoint) bool) {
	first := start.Truncate(time.Minute)
	if first.Before(start) {
		first = first.Add(time.Minute)
	}
	if minutes := end.Sub(first) / time.Minute; minutes >= 0 && int64(minutes) < int64(len(s.points)) {
		for t := first; t.Before(end); t = t.Add(time.Minute) {
			if dp, ok := s.points[t.Unix()]; ok && !f(dp) {
				return
			}
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(s.points)) {
		if dp := s.points[k]; !dp.Time.Before(start) && dp.Time.Before(end) && !f(dp) {
			return
		}
	}
}

// mergeDatapoints combines two statistic sets of the same minute.
// Percentiles cannot be merged exactly; the larger value is kept.
func mergeDatapoints(a, b Datapoint) Datapoint {
	out := Datapoint{
		Time:        a.Time,
		Sum:         a.Sum + b.Sum,
		SampleCount: a.SampleCount + b.SampleCount,
		Minimum:     min(a.Minimum, b.Minimum),
		Maximum:     max(a.Maximum, b.Maximum),
	}
	if len(a.Percentiles)+len(b.Percentiles) > 0 {
		out.Percentiles = maps.Clone(a.Percentiles)
		if out.Percentiles == nil {
			out.Percentiles = map[string]float64{}
		}
		for k, v := range b.Percentiles {
			if old, ok := out.Percentiles[k]; !ok || v > old {
				out.Percentiles[k] = v
			}
		}
	}
	return out
}

// Metrics returns the server's built-in metric store.
func (s *Server) Metrics() *MetricStore { return s.metrics }

// AddMetricSource plugs another source of CloudWatch data (for example a
// traffic generator) in besides the built-in store. Data of the same metric
// and minute from several sources is merged.
func (s *Server) AddMetricSource(src MetricSource) {
	s.srcMu.Lock()
	defer s.srcMu.Unlock()
	s.sources = append(s.sources, src)
}

// allSources returns the built-in store, the plugged sources, and the idle
// consumed-capacity datapoints of every existing table and index.
func (s *Server) allSources() []MetricSource {
	s.srcMu.RLock()
	defer s.srcMu.RUnlock()
	out := append([]MetricSource{s.metrics}, s.sources...)
	return append(out, idleConsumed{srv: s}, accountMetrics{srv: s}, backfillMetrics{srv: s})
}

// idleConsumed is DynamoDB's rule that an idle table or global secondary
// index keeps publishing ConsumedReadCapacityUnits and
// ConsumedWriteCapacityUnits datapoints with a zero value, so that those
// metrics stay listed and cost a query even when nothing happens
// ("Identifying your unused resources", Amazon DynamoDB Developer Guide:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CostOptimization_UnusedResources.html).
// Every minute since the table's creation in which no other source has a
// datapoint gets one with Sum, SampleCount, Minimum and Maximum all 0. Event
// metrics (throttles, errors) keep having datapoints only in minutes with
// events.
type idleConsumed struct {
	srv *Server
}

// idleEntity is a table or index that publishes consumed capacity.
type idleEntity struct {
	table, index string
	created      time.Time
}

// consumedEntities lists the tables and indexes of region.
func (s *Server) consumedEntities(region string) []idleEntity {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.regions[region]
	if r == nil {
		return nil
	}
	var out []idleEntity
	for _, t := range r.tables {
		out = append(out, idleEntity{table: t.Name, created: t.CreationDateTime})
		for _, g := range t.GSIs {
			out = append(out, idleEntity{table: t.Name, index: g.IndexName, created: t.CreationDateTime})
		}
	}
	return out
}

// consumedMetricNames are the metrics idle tables and indexes keep publishing.
var consumedMetricNames = []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits"}

func (e idleEntity) metric(name string) Metric {
	dims := []Dimension{{Name: "TableName", Value: e.table}}
	if e.index != "" {
		dims = append(dims, Dimension{Name: "GlobalSecondaryIndexName", Value: e.index})
	}
	return Metric{Namespace: NamespaceDynamoDB, Name: name, Dimensions: dims}.canonical()
}

// entity returns the table or index m is the consumed capacity of.
func (ic idleConsumed) entity(region string, m Metric) (idleEntity, bool) {
	if m.Namespace != NamespaceDynamoDB || !slices.Contains(consumedMetricNames, m.Name) {
		return idleEntity{}, false
	}
	for _, d := range m.Dimensions {
		if d.Name != "TableName" && d.Name != "GlobalSecondaryIndexName" {
			return idleEntity{}, false
		}
	}
	table, index := m.Dim("TableName"), m.Dim("GlobalSecondaryIndexName")
	for _, e := range ic.srv.consumedEntities(region) {
		if e.table == table && e.index == index {
			return e, true
		}
	}
	return idleEntity{}, false
}

// ListMetrics implements MetricSource.
func (ic idleConsumed) ListMetrics(region string) []Metric {
	var out []Metric
	for _, e := range ic.srv.consumedEntities(region) {
		for _, n := range consumedMetricNames {
			out = append(out, e.metric(n))
		}
	}
	return out
}

// HasData implements ActivityReporter: an existing table or index has a
// consumed datapoint in every minute since its creation.
func (ic idleConsumed) HasData(region string, m Metric, start, end time.Time) bool {
	e, ok := ic.entity(region, m)
	if !ok {
		return false
	}
	from := start.Truncate(time.Minute)
	if from.Before(start) {
		from = from.Add(time.Minute)
	}
	return from.Before(end) && e.created.Truncate(time.Minute).Before(end) && from.Before(ic.srv.now())
}

// Datapoints implements MetricSource. It returns nothing: GetMetricData
// adds the idle zeros to the periods no source filled (fillIdle), which is
// exact and far cheaper than a zero per minute merged with the others.
func (ic idleConsumed) Datapoints(string, Metric, time.Time, time.Time) []Datapoint { return nil }

// fillIdle adds a zero statistic set (Sum, SampleCount, Minimum and Maximum
// 0) for every period of [from, end) that no source filled, when m is the
// consumed capacity of an existing table or index: from its creation to
// the last complete minute.
func (s *Server) fillIdle(region string, m Metric, buckets []*bucket, from, end time.Time, period time.Duration) []*bucket {
	e, ok := idleConsumed{srv: s}.entity(region, m)
	if !ok {
		return buckets
	}
	if now := s.now().Truncate(time.Minute); end.After(now) {
		end = now
	}
	first := alignDown(from, period)
	if c := alignDown(e.created, period); first.Before(c) {
		first = c
	}
	if !first.Before(end) {
		return buckets
	}
	// buckets is sorted by start: merge the missing periods in.
	out := make([]*bucket, 0, max(len(buckets), int(end.Sub(first)/period)+1))
	i := 0
	for t := first; t.Before(end); t = t.Add(period) {
		for i < len(buckets) && buckets[i].start.Before(t) {
			out = append(out, buckets[i])
			i++
		}
		if i < len(buckets) && buckets[i].start.Equal(t) {
			continue
		}
		out = append(out, &bucket{start: t})
	}
	buckets = append(out, buckets[i:]...)
	return buckets
}
