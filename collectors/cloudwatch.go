// CloudWatch metrics: ListMetrics (RecentlyActive=PT3H) to learn which series
// exist, then GetMetricData, in batches of up to 500 queries, for those series
// only. A series absent from ListMetrics had no datapoint for three hours, so
// its counter stays flat without being requested: zeros are proven, never
// invented, and never billed. ListMetrics can list a new series up to 15
// minutes late, so a series that turns from proven zero to listed is fetched
// back over that window. Consumed* series are the exception to "quiet means
// unlisted": DynamoDB keeps publishing zero-valued Consumed datapoints for an
// idle table or index, so they stay listed and are queried every time their
// tier is due.
//
// Series are polled in tiers (metricTiers in cloudwatch_specs.go): the fast
// tier, every cycle, holds the events alerts page on; the slow tier, every
// SlowInterval, holds consumed capacity and latency. A query of either tier
// fetches every minute since that series' last fetch, so counters stay
// exact; a latency gauge shows the latest minute with requests among those
// fetched, held until the next fetch. A throttle cause that cannot occur in
// a table's billing mode is neither queried nor shown, unless ListMetrics
// lists it (it happened) or the table was in a mode where it can occur
// within modeGrace.
package collectors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// MaxQueriesPerRequest is GetMetricData's limit of queries per request.
const MaxQueriesPerRequest = 500

// period is the resolution requested: DynamoDB publishes one point a minute.
const period = time.Minute

// CloudWatchSettings tune the CloudWatch collector.
type CloudWatchSettings struct {
	// Interval is the time between cycles, and the fast tier's cadence; a
	// cycle fetches every minute since the previous one, so counters lose
	// nothing at any interval.
	Interval time.Duration
	// SlowInterval is the slow tier's cadence, a multiple of Interval
	// (raised to Interval when shorter).
	SlowInterval time.Duration
	// Delay is how old a minute must be before it is read.
	Delay time.Duration
	// MaxCatchUp bounds the window fetched after failures.
	MaxCatchUp time.Duration
	// SkipAccountLevel leaves out the series with no table (UserErrors):
	// set on every shard but the first, so that one replica of a sharded
	// set reports them.
	SkipAccountLevel bool
}

// seriesKey identifies one CloudWatch metric, statistic and dimension set.
type seriesKey struct {
	spec  int // index in specs
	table string
	index string
	// operation is the Operation dimension (perOperation) or the
	// ReceivingRegion dimension (perReceivingRegion).
	operation string
}

// listKey is the ListMetrics identity of a metric: its name and dimension
// set (statistics are not listed). It is comparable, so a series' key is
// built without allocating.
type listKey struct {
	metric, table, index, operation string
	// dims says which of TableName, GlobalSecondaryIndexName and
	// Operation are present (dimTable, dimIndex, dimOperation).
	dims uint8
	// other is, for a listed dimension set with a dimension the collector
	// does not know or one named twice, the canonical form of the whole
	// set (otherDims); empty otherwise. No series has one, so such a
	// metric matches no series.
	other string
}

// The dimensions a series key may have, as bits of listKey.dims.
const (
	dimTable uint8 = 1 << iota
	dimIndex
	dimOperation
	dimReceiving // ReceivingRegion, held in listKey.operation
)

// listKey is the ListMetrics identity of a series.
func (k seriesKey) listKey() listKey {
	lk := listKey{metric: specs[k.spec].metric}
	switch specs[k.spec].shape {
	case perTableAndIndex:
		lk.table, lk.dims = k.table, dimTable
		if k.index != "" {
			lk.index, lk.dims = k.index, dimTable|dimIndex
		}
	case perTable, perTableOnlyIndexLabel:
		lk.table, lk.dims = k.table, dimTable
	case perBuildingIndex:
		lk.table, lk.index, lk.dims = k.table, k.index, dimTable|dimIndex
	case perOperation:
		lk.table, lk.operation, lk.dims = k.table, k.operation, dimTable|dimOperation
	case perReceivingRegion:
		lk.table, lk.operation, lk.dims = k.table, k.operation, dimTable|dimReceiving
	}
	return lk
}

// Dimension names, shared by the queries' dimensions (read only).
var (
	nameTableName = aws.String("TableName")
	nameIndexName = aws.String("GlobalSecondaryIndexName")
	nameOperation = aws.String("Operation")
	nameReceiving = aws.String("ReceivingRegion")
)

func (k seriesKey) dimensions() []cwtypes.Dimension {
	switch specs[k.spec].shape {
	case perTableAndIndex:
		if k.index != "" {
			return []cwtypes.Dimension{
				{Name: nameTableName, Value: aws.String(k.table)},
				{Name: nameIndexName, Value: aws.String(k.index)}}
		}
		return []cwtypes.Dimension{{Name: nameTableName, Value: aws.String(k.table)}}
	case perTable, perTableOnlyIndexLabel:
		return []cwtypes.Dimension{{Name: nameTableName, Value: aws.String(k.table)}}
	case perBuildingIndex:
		return []cwtypes.Dimension{
			{Name: nameTableName, Value: aws.String(k.table)},
			{Name: nameIndexName, Value: aws.String(k.index)}}
	case perOperation:
		return []cwtypes.Dimension{
			{Name: nameTableName, Value: aws.String(k.table)},
			{Name: nameOperation, Value: aws.String(k.operation)}}
	case perReceivingRegion:
		return []cwtypes.Dimension{
			{Name: nameTableName, Value: aws.String(k.table)},
			{Name: nameReceiving, Value: aws.String(k.operation)}}
	}
	return nil
}

// appendLabelValues appends the series' label values for target t to lv.
func (k seriesKey) appendLabelValues(lv []string, t *awsclient.Target) []string {
	s := specs[k.spec]
	switch s.shape {
	case perTableAndIndex, perTableOnlyIndexLabel, perBuildingIndex:
		lv = append(lv, t.Account, t.Region, k.table, k.index)
	case perTable:
		lv = append(lv, t.Account, t.Region, k.table)
	case perOperation, perReceivingRegion:
		lv = append(lv, t.Account, t.Region, k.table, k.operation)
	case perAccount:
		lv = append(lv, t.Account, t.Region)
	}
	return append(lv, s.extra...)
}

// listKeyOf returns the ListMetrics identity of a listed metric.
func listKeyOf(metric string, dims []cwtypes.Dimension) listKey {
	lk := listKey{metric: metric}
	odd := false
	for _, d := range dims {
		var bit uint8
		switch aws.ToString(d.Name) {
		case "TableName":
			bit, lk.table = dimTable, aws.ToString(d.Value)
		case "GlobalSecondaryIndexName":
			bit, lk.index = dimIndex, aws.ToString(d.Value)
		case "Operation":
			bit, lk.operation = dimOperation, aws.ToString(d.Value)
		case "ReceivingRegion":
			bit, lk.operation = dimReceiving, aws.ToString(d.Value)
		}
		odd = odd || bit == 0 || lk.dims&bit != 0
		lk.dims |= bit
	}
	if odd {
		lk.other = otherDims(dims)
	}
	return lk
}

// otherDims is the canonical form of a dimension set: its sorted
// "name=value" pairs, joined by commas.
func otherDims(dims []cwtypes.Dimension) string {
	parts := make([]string, 0, len(dims))
	for _, d := range dims {
		parts = append(parts, aws.ToString(d.Name)+"="+aws.ToString(d.Value))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// listingDelay is how late ListMetrics may list a new series: "it can take
// up to 15 minutes for a new metric to appear in ListMetrics" (CloudWatch
// API reference, ListMetrics). A series that turns from proven zero to
// listed is fetched back this far.
const listingDelay = 15 * time.Minute

// revisionWindow is how far back each cycle reads again the minutes it has
// already read: CloudWatch datapoints "may be revised for a few minutes"
// after they first appear (late data points of a minute already answered).
// A counter adds what a revision adds; a revision downwards cannot be taken
// back from a counter: it is counted (revisions_total{direction="down"})
// with the difference left counted (unretracted_total), and logged at debug.
const revisionWindow = 5 * time.Minute

// unixTime is an instant held as Unix nanoseconds, 8 bytes instead of a
// time.Time's 24 (a collector holds a few per series, about 77,000 series
// at 1,000 tables); 0 is the zero time.Time.
type unixTime int64

func toUnixTime(t time.Time) unixTime {
	if t.IsZero() {
		return 0
	}
	return unixTime(t.UnixNano())
}

// time returns the instant, in UTC.
func (u unixTime) time() time.Time {
	if u == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(u)).UTC()
}

// seriesState is what the collector holds for one series.
type seriesState struct {
	// next is the first minute not yet ingested (zero: never queried).
	next unixTime
	// fetched is the end of the last window actually read from
	// GetMetricData (zero: never): minutes before it are never read twice.
	fetched unixTime
	// value is the counter total or the gauge value.
	value float64
	// read holds, for a counter, the values ingested for the minutes of
	// the last revisionWindow, to tell a revision from a new datapoint.
	read minuteReads
	// readSince is the first minute the counter ever read: minutes before
	// it are not its to count.
	readSince unixTime
	// created is the creation time of the table the series belongs to,
	// as DescribeTable last answered it (zero: not known yet). When it
	// changes, the table was deleted and re-created under the same name.
	created unixTime
	// The flags last, together: 72 bytes, not 88 (a state per series,
	// about 55,000 at 1,000 tables).
	//
	// unlisted is true while the series has been proven zero since its
	// last fetch: when it is listed again, its data may have started up
	// to listingDelay before the listing showed it.
	unlisted bool
	// present is false for a gauge with nothing to show.
	present bool
	// retry is set when the last fetch failed: the series is fetched
	// again the next cycle, whatever its tier.
	retry bool
}

// restart makes the series start again at 0 from the creation minute of a
// table re-created under its name (created): CloudWatch keys its series by
// table name, so they would otherwise carry the old table's totals on.
// Prometheus sees a counter reset. The minutes from the creation minute on
// are read again (within max_catch_up), this cycle, whatever the tier.
func (s *seriesState) restart(created time.Time) {
	from := toUnixTime(created.Truncate(period))
	*s = seriesState{next: from, fetched: from, retry: true, created: toUnixTime(created)}
}

// targetState is the collector's memory for one account and region.
type targetState struct {
	series map[seriesKey]*seriesState
	// modeSeen is, per table and billing mode ("table|MODE"), the end of
	// the last cycle that saw the table in that mode.
	modeSeen map[string]time.Time
	// lastEnd is the end of the last cycle that listed metrics successfully.
	lastEnd time.Time
	// queried and provenZero count the last plan's series.
	queried, provenZero int
	// revisions counts the counter datapoints CloudWatch revised, by
	// direction ("up", "down"); unretracted sums, per family, what the
	// downward revisions left counted.
	revisions   map[string]float64
	unretracted map[string]float64
	// dayEarlier holds, per table with TTL deletions, its deletions of
	// the same hour a day earlier (fetchDayEarlier).
	dayEarlier map[string]*dayEarlier
}

// Plan is what the collector requests for a target, each series at its
// tier's cadence.
type Plan struct {
	// Queried are the series that ListMetrics shows as recently active.
	Queried []seriesKey
	// ProvenZero are the candidate series absent from ListMetrics.
	ProvenZero []seriesKey
	// ListMetricsPages is how many ListMetrics calls listing took.
	ListMetricsPages int
}

// IdleFloor returns how many of the candidate series DynamoDB publishes even
// for an idle table or index (consumed read and write capacity): they are
// queried at every fetch of their (slow) tier whatever the traffic, the floor
// of the bill.
func (p Plan) IdleFloor() int {
	n := 0
	for _, ks := range [][]seriesKey{p.Queried, p.ProvenZero} {
		for _, k := range ks {
			if specs[k.spec].publishedWhenIdle {
				n++
			}
		}
	}
	return n
}

// Requests returns the GetMetricData requests the plan needs when every
// series shares one window.
func (p Plan) Requests() int {
	return (len(p.Queried) + MaxQueriesPerRequest - 1) / MaxQueriesPerRequest
}

// TierPlan is what one polling tier requests for a target.
type TierPlan struct {
	Tier Tier
	// Interval is the tier's cadence.
	Interval time.Duration
	// Metrics names what the tier polls, for people.
	Metrics string
	// Queried and ProvenZero count the tier's series of the plan.
	Queried, ProvenZero int
}

// MetricsPerHour is how many metrics the tier requests in an hour.
func (tp TierPlan) MetricsPerHour() float64 {
	return float64(tp.Queried) * float64(time.Hour) / float64(tp.Interval)
}

// Requests is how many GetMetricData requests one fetch of the tier takes.
func (tp TierPlan) Requests() int {
	return (tp.Queried + MaxQueriesPerRequest - 1) / MaxQueriesPerRequest
}

// Tiers splits the plan by polling tier, at the collector's cadences.
func (c *CloudWatch) Tiers(p Plan) []TierPlan {
	out := make([]TierPlan, numTiers)
	for t := range numTiers {
		out[t] = TierPlan{Tier: t, Interval: c.tierInterval(t), Metrics: t.Summary()}
	}
	for _, k := range p.Queried {
		out[specs[k.spec].tier].Queried++
		if specs[k.spec].family == catalogue.TTLDeletedItemsTotal {
			out[DayEarlierTier].Queried++ // fetchDayEarlier
		}
	}
	for _, k := range p.ProvenZero {
		out[specs[k.spec].tier].ProvenZero++
	}
	return out
}

// tierInterval is a tier's cadence.
func (c *CloudWatch) tierInterval(t Tier) time.Duration {
	if t == DayEarlierTier {
		return time.Hour
	}
	if t == SlowTier {
		return c.settings.SlowInterval
	}
	return c.settings.Interval
}

// modeGrace is how long after the collector last saw a table in a billing
// mode the throttle causes of that mode stay planned (proven zero, so not
// billed) once the table has switched: an event just before the switch
// may be listed up to listingDelay late, and is then fetched back as far
// as MaxCatchUp.
func (c *CloudWatch) modeGrace() time.Duration {
	return listingDelay + c.settings.MaxCatchUp
}

// CloudWatch is the CloudWatch collector.
type CloudWatch struct {
	targets   []*awsclient.Target
	inventory *Inventory
	settings  CloudWatchSettings
	logger    *slog.Logger
	snap      targetSnapshot

	mu    sync.Mutex
	state map[string]*targetState
}

// NewCloudWatch returns the CloudWatch collector.
func NewCloudWatch(deps Deps, s CloudWatchSettings) *CloudWatch {
	if s.Interval < period {
		s.Interval = period
	}
	if s.SlowInterval < s.Interval {
		s.SlowInterval = s.Interval
	}
	if s.MaxCatchUp < s.SlowInterval {
		s.MaxCatchUp = s.SlowInterval
	}
	c := &CloudWatch{targets: deps.Targets, inventory: deps.Inventory, settings: s, state: map[string]*targetState{}}
	c.logger = deps.logger(c.Name())
	return c
}

// Name implements Collector.
func (c *CloudWatch) Name() string { return "cloudwatch" }

// Metrics implements Collector.
func (c *CloudWatch) Metrics() []prometheus.Metric { return c.snap.Metrics() }

// Run implements Collector. Every target runs at once (each account and
// region has its own CloudWatch quota), and each one's figures are
// published as soon as it is done: a region whose calls hang for the
// whole run leaves the others their data.
func (c *CloudWatch) Run(ctx context.Context, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := now.Add(-c.settings.Delay).Truncate(period)
	states := targetStates(c.targets, c.state, func() *targetState {
		return &targetState{series: map[seriesKey]*seriesState{}, modeSeen: map[string]time.Time{}}
	})
	return eachTarget(c.targets, len(c.targets), &c.snap, func(i int, t *awsclient.Target) ([]prometheus.Metric, error) {
		err := c.runTarget(ctx, t, states[i], end)
		return states[i].metrics(t), err
	})
}

// PlanTarget lists the target's metrics and returns what a cycle would
// request for its monitored tables. The check command uses it.
func (c *CloudWatch) PlanTarget(ctx context.Context, t *awsclient.Target) (Plan, error) {
	listed, pages, err := listActive(ctx, t.CloudWatch)
	if err != nil {
		return Plan{ListMetricsPages: pages}, fmt.Errorf("listing CloudWatch metrics in %s: %w", t.Key(), err)
	}
	p := plan(c.inventory.Tables(t.Key()), c.accountLevel(t), listed, currentMode)
	p.ListMetricsPages = pages
	return p, nil
}

func (c *CloudWatch) runTarget(ctx context.Context, t *awsclient.Target, st *targetState, end time.Time) error {
	listed, _, err := listActive(ctx, t.CloudWatch)
	if err != nil {
		// The previous values stay.
		return fmt.Errorf("listing CloudWatch metrics in %s: %w", t.Key(), err)
	}
	tables := c.inventory.Tables(t.Key())
	p := plan(tables, c.accountLevel(t), listed, st.possibleIn(tables, end, c.modeGrace()))
	st.queried, st.provenZero = len(p.Queried), len(p.ProvenZero)

	// Forget series of tables, indexes and operations that left the plan.
	keep := make(map[seriesKey]bool, len(p.Queried)+len(p.ProvenZero))
	for _, k := range p.Queried {
		keep[k] = true
	}
	for _, k := range p.ProvenZero {
		keep[k] = true
	}
	for k := range st.series {
		if !keep[k] {
			delete(st.series, k)
		}
	}
	c.restartRecreated(t, st, tables, keep)

	// Proven zeros: counters exist and stay flat, latency has nothing to
	// show. They are up to date as of end, unless the listing was late.
	for _, k := range p.ProvenZero {
		s := st.state(k)
		switch specs[k.spec].kind {
		case sumCounter:
			s.present = true
		case millisecondsGauge, percentGauge:
			s.present = false
		}
		s.next, s.unlisted = toUnixTime(end), true
	}

	// Queried series whose tier is due, grouped by the start of the window
	// they still need. Each window also reads again the last
	// revisionWindow.
	windows := map[time.Time][]seriesKey{}
	from := map[seriesKey]time.Time{}
	for _, k := range p.Queried {
		s := st.state(k)
		if !c.due(k, s, end) {
			continue
		}
		if start, ok := c.windowStart(st, s, end); ok {
			from[k] = start
			ws := start.Add(-revisionWindow)
			if min := end.Add(-c.settings.MaxCatchUp); ws.Before(min) {
				ws = min
			}
			windows[ws] = append(windows[ws], k)
		}
	}
	starts := make([]time.Time, 0, len(windows))
	for s := range windows {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })

	var errs []error
	for _, start := range starts {
		keys := windows[start]
		for lo := 0; lo < len(keys); lo += MaxQueriesPerRequest {
			hi := min(lo+MaxQueriesPerRequest, len(keys))
			if err := c.fetch(ctx, t, st, keys[lo:hi], from, start, end); err != nil {
				// The window is fetched again next cycle.
				errs = append(errs, err)
			}
		}
	}
	if err := c.fetchDayEarlier(ctx, t, st, p.Queried, end); err != nil {
		errs = append(errs, err)
	}
	st.lastEnd = end
	return errors.Join(errs...)
}

// due reports whether a listed series is fetched this cycle: always in the
// fast tier; in a slower tier when it was never fetched, when it was proven
// zero until now (its data may have started up to listingDelay ago), after
// a failed fetch, and once its tier's interval has passed since the first
// minute it still needs.
func (c *CloudWatch) due(k seriesKey, s *seriesState, end time.Time) bool {
	iv := c.tierInterval(specs[k.spec].tier)
	if iv <= c.settings.Interval || s.next == 0 || s.unlisted || s.retry {
		return true
	}
	return !end.Before(s.next.time().Add(iv))
}

// windowStart returns the first minute a listed series still needs, and
// false when it needs none. A series seen for the first time starts at the
// end of the last cycle; one that was proven zero and is now listed goes
// back listingDelay (never before what it already read), because its first
// datapoints may predate its listing; every window is bounded by
// max_catch_up.
func (c *CloudWatch) windowStart(st *targetState, s *seriesState, end time.Time) (time.Time, bool) {
	start := s.next.time()
	if start.IsZero() {
		start = st.lastEnd
		if start.IsZero() {
			start = end.Add(-c.settings.Interval)
		}
	}
	if s.unlisted {
		start = start.Add(-listingDelay)
		if fetched := s.fetched.time(); start.Before(fetched) {
			start = fetched
		}
	}
	if min := end.Add(-c.settings.MaxCatchUp); start.Before(min) {
		start = min
	}
	return start, start.Before(end)
}

// restartRecreated restarts the series of every table whose creation time
// changed since the series last saw it: the table was deleted and re-created
// under the same name. A series that had not seen a creation time records
// it. Series of the old table's indexes the new one lacks have left the
// plan (keep) already.
func (c *CloudWatch) restartRecreated(t *awsclient.Target, st *targetState, tables []*Table, keep map[seriesKey]bool) {
	created := make(map[string]time.Time, len(tables))
	for _, tb := range tables {
		if tb.Description != nil && tb.Description.CreationDateTime != nil {
			created[tb.Name] = *tb.Description.CreationDateTime
		}
	}
	restarted := map[string]time.Time{}
	for k := range keep {
		s := st.state(k)
		at, ok := created[k.table]
		switch {
		case k.table == "" || !ok || s.created.time().Equal(at):
		case s.created == 0:
			s.created = toUnixTime(at)
		default:
			restarted[k.table] = s.created.time()
			s.restart(at)
		}
	}
	for table, old := range restarted {
		c.logger.Info("table re-created under the same name; its CloudWatch counters restart at 0 from its creation minute", "account", t.Account, "region", t.Region, "table", table, "old_creation", old, "creation", created[table])
	}
}

func (st *targetState) state(k seriesKey) *seriesState {
	s := st.series[k]
	if s == nil {
		s = &seriesState{}
		st.series[k] = s
	}
	return s
}

// fetch requests one batch of series over [start, end) and ingests it: for
// each series the minutes from from[k] on are new, those before are the
// revision window (read before: a counter adds what a revision added). On
// failure nothing is ingested and every series keeps from[k] as the first
// minute it needs, so the next cycle asks for the same window again, also
// for a series seen for the first time. A series whose answer is malformed
// (timestamps and values not paired) is not ingested and keeps start, the
// others are ingested; each malformed series is one error.
func (c *CloudWatch) fetch(ctx context.Context, t *awsclient.Target, st *targetState, keys []seriesKey, from map[seriesKey]time.Time, start, end time.Time) (err error) {
	ingested := false
	defer func() {
		if err != nil && !ingested {
			for _, k := range keys {
				s := st.state(k)
				s.next, s.unlisted, s.retry = toUnixTime(from[k]), false, true
			}
		}
	}()
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(start),
		EndTime:   aws.Time(end),
		ScanBy:    cwtypes.ScanByTimestampAscending,
	}
	byID := make(map[string]seriesKey, len(keys))
	for i, k := range keys {
		id := fmt.Sprintf("q%d", i)
		byID[id] = k
		s := specs[k.spec]
		in.MetricDataQueries = append(in.MetricDataQueries, cwtypes.MetricDataQuery{
			Id: aws.String(id),
			MetricStat: &cwtypes.MetricStat{
				Metric: &cwtypes.Metric{
					Namespace:  aws.String(CloudWatchNamespace),
					MetricName: aws.String(s.metric),
					Dimensions: k.dimensions(),
				},
				Period: aws.Int32(int32(period / time.Second)),
				Stat:   aws.String(s.stat),
			},
			ReturnData: aws.Bool(true),
		})
	}
	points := make(map[seriesKey][]point, len(keys))
	seen := make(map[seriesKey]map[time.Time]bool, len(keys))
	malformed := map[seriesKey]error{}
	pager := cloudwatch.NewGetMetricDataPaginator(t.CloudWatch, in)
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("GetMetricData in %s (%d queries): %w", t.Key(), len(keys), err)
		}
		for _, r := range page.MetricDataResults {
			k, ok := byID[aws.ToString(r.Id)]
			if !ok {
				continue
			}
			if r.StatusCode != cwtypes.StatusCodeComplete && r.StatusCode != cwtypes.StatusCodePartialData {
				return fmt.Errorf("GetMetricData in %s: query for %s answered status %s", t.Key(), specs[k.spec].metric, r.StatusCode)
			}
			if len(r.Timestamps) != len(r.Values) {
				// Which value goes with which timestamp is unknown:
				// the series is not ingested and asks for the window
				// again next cycle.
				malformed[k] = fmt.Errorf("GetMetricData in %s: query for %s of table %s answered %d timestamps and %d values", t.Key(), specs[k.spec].metric, k.table, len(r.Timestamps), len(r.Values))
				continue
			}
			for i, ts := range r.Timestamps {
				if ts.Before(start) || !ts.Before(end) {
					continue
				}
				// A timestamp answered twice (on one page or across
				// pages) is one datapoint: counted once.
				if seen[k] == nil {
					seen[k] = map[time.Time]bool{}
				}
				if seen[k][ts] {
					continue
				}
				seen[k][ts] = true
				points[k] = append(points[k], point{ts, r.Values[i]})
			}
		}
	}
	var errs []error
	for _, k := range keys {
		s := st.state(k)
		if e := malformed[k]; e != nil {
			errs = append(errs, e)
			s.next, s.unlisted, s.retry = toUnixTime(from[k]), false, true
			continue
		}
		var ps []point
		switch specs[k.spec].kind {
		case sumCounter:
			for _, p := range points[k] {
				old, had := s.read.get(p.t)
				switch {
				case !p.t.Before(from[k]):
					s.value += p.v
					old.counted = p.v
				case s.read == nil || p.t.Before(s.readSince.time()):
					continue // before the series was first read
				case !had:
					s.value += p.v // a datapoint that came late
					old.counted = p.v
				case p.v == old.answered:
					continue
				case p.v > old.counted:
					s.value += p.v - old.counted // a revision
					old.counted = p.v
					st.revised("up", 0, k)
				case p.v > old.answered:
					st.revised("up", 0, k) // back up, still under what was counted
				default:
					// A counter cannot go down: the difference stays
					// counted, and is shown as such.
					st.revised("down", old.answered-p.v, k)
					c.logger.Debug("CloudWatch revised a datapoint downward after it was counted; the difference stays counted", "account", t.Account, "region", t.Region, "table", k.table, "index", k.index, "metric", specs[k.spec].metric, "minute", p.t, "answered_before", old.answered, "answered", p.v)
				}
				if s.read == nil {
					s.read, s.readSince = minuteReads{}, toUnixTime(from[k])
				}
				old.answered = p.v
				s.read.set(p.t, old)
			}
			if s.read == nil {
				s.read, s.readSince = minuteReads{}, toUnixTime(from[k])
			}
			s.read = s.read.from(end.Add(-revisionWindow))
			s.present = true
		case millisecondsGauge, percentGauge:
			for _, p := range points[k] {
				if !p.t.Before(from[k]) {
					ps = append(ps, p)
				}
			}
			s.present = false
			if l, ok := latest(ps); ok {
				div := 1000.0 // milliseconds to seconds
				if specs[k.spec].kind == percentGauge {
					div = 100 // percent to a ratio
				}
				s.value, s.present = l/div, true
			}
		}
		s.next, s.fetched, s.unlisted, s.retry = toUnixTime(end), toUnixTime(end), false, false
	}
	ingested = true
	return errors.Join(errs...)
}

// revised counts one revised datapoint of the counter k, and what a
// downward revision leaves counted.
func (st *targetState) revised(direction string, unretracted float64, k seriesKey) {
	if st.revisions == nil {
		st.revisions, st.unretracted = map[string]float64{}, map[string]float64{}
	}
	st.revisions[direction]++
	if direction == "down" {
		st.unretracted[specs[k.spec].family] += unretracted
	}
}

// minuteRead is what a counter holds for one minute of its revision window:
// counted is the most the minute ever added to the counter, answered the
// value CloudWatch answered last.
type minuteRead struct {
	counted, answered float64
}

// minuteReads are a counter's minutes of its revision window, a few (the
// minutes of one fetch at most, revisionWindow's after it): a slice in
// arrival order rather than a map, which never shrinks and held room for a
// whole fetch's minutes in every counter (10.5 MiB at 1,000 tables, the
// steady heap profile of issue 24). A minute is the same minute when its
// instant is (unixTime, 8 bytes). nil: the counter has never read; empty
// and not nil: it has.
type minuteReads []minuteEntry

type minuteEntry struct {
	t unixTime
	minuteRead
}

// get returns what the counter holds for minute t.
func (r minuteReads) get(t time.Time) (minuteRead, bool) {
	u := toUnixTime(t)
	for _, e := range r {
		if e.t == u {
			return e.minuteRead, true
		}
	}
	return minuteRead{}, false
}

// set replaces or adds what the counter holds for minute t.
func (r *minuteReads) set(t time.Time, m minuteRead) {
	u := toUnixTime(t)
	for i := range *r {
		if (*r)[i].t == u {
			(*r)[i].minuteRead = m
			return
		}
	}
	*r = append(*r, minuteEntry{u, m})
}

// from returns the minutes not before at, in a slice of their own size
// (not nil).
func (r minuteReads) from(at time.Time) minuteReads {
	u := toUnixTime(at)
	n := 0
	for _, e := range r {
		if e.t >= u {
			n++
		}
	}
	out := make(minuteReads, 0, n)
	for _, e := range r {
		if e.t >= u {
			out = append(out, e)
		}
	}
	return out
}

// counterFamilies are the counter families the CloudWatch collector fills,
// sorted: each has an unretracted_total series from the start (0).
var counterFamilies = func() []string {
	var out []string
	for _, s := range specs {
		if s.kind == sumCounter && !slices.Contains(out, s.family) {
			out = append(out, s.family)
		}
	}
	sort.Strings(out)
	return out
}()

type point struct {
	t time.Time
	v float64
}

func latest(ps []point) (float64, bool) {
	if len(ps) == 0 {
		return 0, false
	}
	best := ps[0]
	for _, p := range ps[1:] {
		if p.t.After(best.t) {
			best = p
		}
	}
	return best.v, true
}

func (st *targetState) metrics(t *awsclient.Target) []prometheus.Metric {
	keys := make([]seriesKey, 0, len(st.series))
	for k, s := range st.series {
		if s.present {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.spec != b.spec {
			return a.spec < b.spec
		}
		if a.table != b.table {
			return a.table < b.table
		}
		if a.index != b.index {
			return a.index < b.index
		}
		return a.operation < b.operation
	})
	ms := make([]prometheus.Metric, 0, len(keys)+2)
	var lv []string // reused: MustMetric copies the label values
	for _, k := range keys {
		lv = k.appendLabelValues(lv[:0], t)
		ms = append(ms, catalogue.MustMetric(specs[k.spec].family, st.series[k].value, lv...))
	}
	ms = append(ms,
		catalogue.MustMetric(catalogue.ExporterCloudWatchSeries, float64(st.queried), t.Account, t.Region, "queried"),
		catalogue.MustMetric(catalogue.ExporterCloudWatchSeries, float64(st.provenZero), t.Account, t.Region, "proven_zero"),
	)
	for _, d := range []string{"up", "down"} {
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterCloudWatchRevisionsTotal, st.revisions[d], t.Account, t.Region, d))
	}
	for _, f := range counterFamilies {
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterCloudWatchUnretractedTotal, st.unretracted[f], t.Account, t.Region, f))
	}
	return append(ms, st.dayEarlierMetrics(t, st.lastEnd)...)
}

// listActive returns the ListMetrics keys of every AWS/DynamoDB metric with a
// datapoint in the last three hours, and how many pages that took.
func listActive(ctx context.Context, api awsclient.CloudWatchAPI) (map[listKey]struct{}, int, error) {
	out := map[listKey]struct{}{}
	pages := 0
	p := cloudwatch.NewListMetricsPaginator(api, &cloudwatch.ListMetricsInput{
		Namespace:      aws.String(CloudWatchNamespace),
		RecentlyActive: cwtypes.RecentlyActivePt3h,
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		pages++
		if err != nil {
			return nil, pages, err
		}
		for _, m := range page.Metrics {
			out[listKeyOf(aws.ToString(m.MetricName), m.Dimensions)] = struct{}{}
		}
	}
	return out, pages, nil
}

// accountLevel reports whether this replica queries the target's series
// with no table: unless SkipAccountLevel is set (a shard other than the
// first), when it monitors tables there, or when other shards hold some.
func (c *CloudWatch) accountLevel(t *awsclient.Target) bool {
	if c.settings.SkipAccountLevel {
		return false
	}
	key := t.Key()
	return len(c.inventory.Tables(key)) > 0 || c.inventory.Selected(key) > len(c.inventory.Names(key))
}

// possibleFunc reports whether a metric confined to billing mode onlyIn
// can have datapoints for a table.
type possibleFunc func(tb *Table, onlyIn ddbtypes.BillingMode) bool

// describedMode returns the billing mode of a described table, and false
// when the table is not described yet or AWS answered a mode the SDK does
// not know.
func describedMode(tb *Table) (ddbtypes.BillingMode, bool) {
	if tb.Description == nil || tb.BillingModeLabel() == Unknown {
		return "", false
	}
	return ddbtypes.BillingMode(tb.BillingMode()), true
}

// currentMode allows a cause in the table's current billing mode (every
// cause while the mode is unknown).
func currentMode(tb *Table, onlyIn ddbtypes.BillingMode) bool {
	m, ok := describedMode(tb)
	return !ok || onlyIn == "" || m == onlyIn
}

// possibleIn records the billing mode each table is in as of end and
// returns the check the plan uses: a cause is possible in the table's
// current mode, or in a mode the table was seen in within grace (a switch
// must not lose the events just before it).
func (st *targetState) possibleIn(tables []*Table, end time.Time, grace time.Duration) possibleFunc {
	names := make(map[string]bool, len(tables))
	for _, tb := range tables {
		names[tb.Name] = true
		if m, ok := describedMode(tb); ok {
			st.modeSeen[tb.Name+"|"+string(m)] = end
		}
	}
	for k, at := range st.modeSeen {
		table, _, _ := strings.Cut(k, "|")
		if !names[table] || end.Sub(at) > grace {
			delete(st.modeSeen, k)
		}
	}
	return func(tb *Table, onlyIn ddbtypes.BillingMode) bool {
		if currentMode(tb, onlyIn) {
			return true
		}
		_, seen := st.modeSeen[tb.Name+"|"+string(onlyIn)]
		return seen
	}
}

// plan builds the candidate series of the monitored tables, and of the
// account when account is set, and splits them into those to query and
// those proven zero. A series of a throttle cause that possible rules out
// for its table is no candidate: it is left out unless ListMetrics lists
// it, which proves it has datapoints.
func plan(tables []*Table, account bool, listed map[listKey]struct{}, possible possibleFunc) Plan {
	ops := map[string]map[string]bool{}
	for lm := range listed {
		if operationMetrics[lm.metric] && lm.table != "" && lm.operation != "" {
			if ops[lm.table] == nil {
				ops[lm.table] = map[string]bool{}
			}
			ops[lm.table][lm.operation] = true
		}
	}
	// Two passes over the candidates: the first counts, so that the second
	// appends to slices of the right size.
	var p Plan
	counting, queried, provenZero := true, 0, 0
	add := func(k seriesKey) {
		_, ok := listed[k.listKey()]
		switch {
		case counting && ok:
			queried++
		case counting:
			provenZero++
		case ok:
			p.Queried = append(p.Queried, k)
		default:
			p.ProvenZero = append(p.ProvenZero, k)
		}
	}
	addFor := func(tb *Table, k seriesKey) {
		if on := specs[k.spec].onlyIn; on != "" && !possible(tb, on) {
			if _, ok := listed[k.listKey()]; !ok {
				return
			}
		}
		add(k)
	}
	opNames := make(map[string][]string, len(ops))
	for table, set := range ops {
		names := make([]string, 0, len(set))
		for op := range set {
			names = append(names, op)
		}
		sort.Strings(names)
		opNames[table] = names
	}
	indexes := make([][]string, len(tables))
	for i, tb := range tables {
		indexes[i] = tb.IndexNames()
	}
	for pass := range 2 {
		if pass == 1 {
			counting = false
			if queried > 0 {
				p.Queried = make([]seriesKey, 0, queried)
			}
			if provenZero > 0 {
				p.ProvenZero = make([]seriesKey, 0, provenZero)
			}
		}
		for i, s := range specs {
			switch s.shape {
			case perAccount:
				if account {
					add(seriesKey{spec: i})
				}
			case perTable, perTableOnlyIndexLabel:
				for _, tb := range tables {
					addFor(tb, seriesKey{spec: i, table: tb.Name})
				}
			case perTableAndIndex:
				for j, tb := range tables {
					addFor(tb, seriesKey{spec: i, table: tb.Name})
					for _, idx := range indexes[j] {
						addFor(tb, seriesKey{spec: i, table: tb.Name, index: idx})
					}
				}
			case perBuildingIndex:
				for _, tb := range tables {
					for _, idx := range tb.BuildingIndexNames() {
						add(seriesKey{spec: i, table: tb.Name, index: idx})
					}
				}
			case perOperation:
				for _, tb := range tables {
					for _, op := range opNames[tb.Name] {
						add(seriesKey{spec: i, table: tb.Name, operation: op})
					}
				}
			case perReceivingRegion:
				for _, tb := range tables {
					for _, rg := range tb.ReplicaRegions() {
						add(seriesKey{spec: i, table: tb.Name, operation: rg})
					}
				}
			}
		}
	}
	return p
}
