// GetMetricData requests of the capacity collector: one query per series
// (table or GSI, read or write) and window, Period 60/300/3600, Stat Sum,
// packed into requests of at most 500 queries and 100,800 datapoints so that
// no request paginates and every query is billed once. The requests of one
// account and region run on a bounded pool of workers, paced under the
// GetMetricData quota, with throttled requests retried after a pause, and
// their progress logged and exposed as self-metrics.
package collectors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
)

// historyKey identifies one consumed-capacity series, or, with prov, one
// provisioned-capacity series of a base table (modeHistory).
type historyKey struct {
	table, index string
	write        bool
	prov         bool
}

func (k historyKey) metric() string {
	if k.prov {
		if k.write {
			return "ProvisionedWriteCapacityUnits"
		}
		return "ProvisionedReadCapacityUnits"
	}
	if k.write {
		return "ConsumedWriteCapacityUnits"
	}
	return "ConsumedReadCapacityUnits"
}

// stat is the statistic fetched: the Sum of consumed units, the Average of
// the provisioned capacity (a gauge CloudWatch samples while the table is
// provisioned, every 5 minutes).
func (k historyKey) stat() string {
	if k.prov {
		return "Average"
	}
	return "Sum"
}

func (k historyKey) dimensions() []cwtypes.Dimension {
	d := []cwtypes.Dimension{{Name: aws.String("TableName"), Value: aws.String(k.table)}}
	if k.index != "" {
		d = append(d, cwtypes.Dimension{Name: aws.String("GlobalSecondaryIndexName"), Value: aws.String(k.index)})
	}
	return d
}

// historyQuery is one series over one window.
type historyQuery struct {
	key historyKey
	w   fetchWindow
}

// FetchCost counts GetMetricData requests and metrics requested (queries).
type FetchCost struct {
	Requests, Metrics int
}

// Add returns the sum of two costs.
func (c FetchCost) Add(o FetchCost) FetchCost {
	return FetchCost{Requests: c.Requests + o.Requests, Metrics: c.Metrics + o.Metrics}
}

// batchQueries groups queries by window, then packs each group into requests
// of at most MaxQueriesPerRequest queries and MaxDatapointsPerRequest points.
func batchQueries(qs []historyQuery) [][]historyQuery {
	byWindow := map[fetchWindow][]historyQuery{}
	for _, q := range qs {
		byWindow[q.w] = append(byWindow[q.w], q)
	}
	windows := make([]fetchWindow, 0, len(byWindow))
	for w := range byWindow {
		windows = append(windows, w)
	}
	sort.Slice(windows, func(i, j int) bool {
		a, b := windows[i], windows[j]
		if !a.start.Equal(b.start) {
			return a.start.Before(b.start)
		}
		return a.period < b.period
	})
	var out [][]historyQuery
	for _, w := range windows {
		group := byWindow[w]
		per := min(MaxQueriesPerRequest, max(1, MaxDatapointsPerRequest/max(1, w.points())))
		for lo := 0; lo < len(group); lo += per {
			out = append(out, group[lo:min(lo+per, len(group))])
		}
	}
	return out
}

// costOf returns the requests and metrics of a set of queries.
func costOf(qs []historyQuery) FetchCost {
	return FetchCost{Requests: len(batchQueries(qs)), Metrics: len(qs)}
}

// queryResult is the datapoints of one query inside its window, as compact
// as the history keeps them: 12 bytes a point instead of the SDK's 32 (a
// time.Time and a float64), so that the requests in flight in a first
// fetch (8 by default, up to 100,800 points each) hold 1.2 MB each, not
// 3.2 MB plus the SDK's own copy. The values are float32 because every
// consumer stores float32(value) (tier.set, tier.add, history.apply,
// modeHistory.apply), and float32(float64(float32(x))) is float32(x): what
// they store is unchanged, bit for bit.
type queryResult struct {
	ns []int64   // timestamps, Unix nanoseconds
	v  []float32 // values, float32(value)
}

// add appends the points of one page inside w: every consumer drops the
// points outside its window (and a timestamp far outside it may not be
// representable in nanoseconds); a point without a value (fewer values
// than timestamps) is dropped, as the consumers do.
func (r *queryResult) add(w fetchWindow, ts []time.Time, vs []float64) {
	// Room for this page's points at once: grown by appending, a result
	// of a 100,800-point request would leave up to twice its size behind.
	n := 0
	for i, at := range ts {
		if i < len(vs) && !at.Before(w.start) && at.Before(w.end) {
			n++
		}
	}
	r.ns, r.v = slices.Grow(r.ns, n), slices.Grow(r.v, n)
	for i, at := range ts {
		if i < len(vs) && !at.Before(w.start) && at.Before(w.end) {
			r.ns = append(r.ns, at.UnixNano())
			r.v = append(r.v, float32(vs[i]))
		}
	}
}

// len returns the number of points.
func (r queryResult) len() int { return len(r.ns) }

// at returns the timestamp and the value of point i.
func (r queryResult) at(i int) (time.Time, float64) {
	return time.Unix(0, r.ns[i]).UTC(), float64(r.v[i])
}

// fetchBatch runs one request (all queries share a window), following
// NextToken should CloudWatch paginate anyway. pace, when not nil, holds
// back every attempt (the SDK's retries too) until the pacer releases it,
// after signing, just before it is sent.
func fetchBatch(ctx context.Context, t *awsclient.Target, batch []historyQuery, pace *pacer) ([]queryResult, error) {
	w := batch[0].w
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(w.start),
		EndTime:   aws.Time(w.end),
		ScanBy:    cwtypes.ScanByTimestampAscending,
	}
	for i, q := range batch {
		in.MetricDataQueries = append(in.MetricDataQueries, cwtypes.MetricDataQuery{
			Id: aws.String(fmt.Sprintf("h%d", i)),
			MetricStat: &cwtypes.MetricStat{
				Metric: &cwtypes.Metric{
					Namespace:  aws.String(CloudWatchNamespace),
					MetricName: aws.String(q.key.metric()),
					Dimensions: q.key.dimensions(),
				},
				Period: aws.Int32(int32(w.period / time.Second)),
				Stat:   aws.String(q.key.stat()),
			},
			ReturnData: aws.Bool(true),
		})
	}
	out := make([]queryResult, len(batch))
	var opts []func(*cloudwatch.Options)
	if pace != nil {
		opts = append(opts, func(o *cloudwatch.Options) {
			o.APIOptions = append(o.APIOptions, pace.stackOption(len(batch)*w.points(), bucketOf(w)))
		})
	}
	pager := cloudwatch.NewGetMetricDataPaginator(t.CloudWatch, in)
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("GetMetricData for capacity history in %s (%d queries, %s from %s): %w",
				t.Key(), len(batch), w.period, w.start.Format(time.RFC3339), err)
		}
		for _, r := range page.MetricDataResults {
			var i int
			if _, err := fmt.Sscanf(aws.ToString(r.Id), "h%d", &i); err != nil || i < 0 || i >= len(batch) {
				continue
			}
			if r.StatusCode != cwtypes.StatusCodeComplete && r.StatusCode != cwtypes.StatusCodePartialData {
				q := batch[i].key
				return nil, fmt.Errorf("GetMetricData in %s: history query for table %s index %q answered status %s", t.Key(), q.table, q.index, r.StatusCode)
			}
			out[i].add(w, r.Timestamps, r.Values)
		}
	}
	return out, nil
}

// FetchSettings bound the history fetch of one account and region: the
// first one reads weeks of history (about 1,900 requests for 1,000 tables
// with 2 GSIs each over 90 days), so its requests run concurrently, paced
// under CloudWatch's GetMetricData quota.
//
// Quota (Amazon CloudWatch User Guide, "CloudWatch service quotas",
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html):
// GetMetricData is limited to 50 transactions per second per account and
// Region (adjustable), and separately in datapoints per second (DPS):
// 396,000 for a request whose StartTime is more than three hours old,
// 180,000 for one within the last three hours. The defaults take half the
// TPS quota, leaving the rest to the CloudWatch collector and to dashboards
// and alarms sharing the account, and most of each DPS quota (the history
// fetch is nearly all of an exporter's old datapoints).
type FetchSettings struct {
	// Concurrency is how many GetMetricData requests are in flight at once.
	Concurrency int
	// RequestsPerSecond paces the requests (a token bucket holding one
	// token: no burst above the rate).
	RequestsPerSecond float64
	// DatapointsPerSecond, when positive, also paces the requests whose
	// window starts more than three hours before it ends (DPSOldAfter) by
	// the datapoints each one asks for; RecentDatapointsPerSecond those of
	// a shorter window (CloudWatch's two DPS quotas). 0: no datapoint pace
	// of that kind.
	DatapointsPerSecond       float64
	RecentDatapointsPerSecond float64
	// ProgressEvery is how often a long fetch logs its progress.
	ProgressEvery time.Duration
	// ThrottleBackoff is the pause after a throttled request; it doubles
	// with each throttle in a row, up to maxThrottleBackoff.
	ThrottleBackoff time.Duration
	// MaxThrottles is how many times one request may be throttled and put
	// back in the queue before it counts as failed (fetched next run).
	MaxThrottles int
}

// DPSOldAfter is the age of a GetMetricData StartTime from which CloudWatch
// counts the request's datapoints against its larger DPS quota. A history
// request's window ends at or before the fetch's end, so a window longer
// than this starts more than this before now; a shorter one is paced as
// recent (the lower quota), whatever its age.
const DPSOldAfter = 3 * time.Hour

// Defaults of FetchSettings.
const (
	DefaultFetchConcurrency       = config.DefaultCapacityFetchConcurrency
	DefaultFetchRequestsPerSecond = config.DefaultCapacityFetchRequestsPerSecond
	DefaultFetchProgressEvery     = 30 * time.Second
	DefaultFetchThrottleBackoff   = time.Second
	DefaultFetchMaxThrottles      = 8
	maxThrottleBackoff            = 30 * time.Second
	// progressLogRequests is the size from which a fetch logs its start,
	// progress and end at Info (smaller refreshes log at Debug).
	progressLogRequests = 20
)

func (s FetchSettings) withDefaults() FetchSettings {
	if s.Concurrency < 1 {
		s.Concurrency = DefaultFetchConcurrency
	}
	if s.RequestsPerSecond <= 0 {
		s.RequestsPerSecond = DefaultFetchRequestsPerSecond
	}
	if s.ProgressEvery <= 0 {
		s.ProgressEvery = DefaultFetchProgressEvery
	}
	if s.ThrottleBackoff <= 0 {
		s.ThrottleBackoff = DefaultFetchThrottleBackoff
	}
	if s.MaxThrottles <= 0 {
		s.MaxThrottles = DefaultFetchMaxThrottles
	}
	return s
}

// pacer is a token bucket of capacity one per limit (requests, and
// datapoints of old and of recent windows when set): a request is released
// no sooner than one interval after the one before it was actually
// released, so that no second ever holds more than the rate, even when
// workers wake late and together. A throttle pushes the next release back.
type pacer struct {
	mu         sync.Mutex
	perRequest time.Duration
	// perPoint is seconds per datapoint, of old windows then recent ones;
	// 0: no datapoint pace of that kind.
	perPoint  [2]float64
	nextReq   time.Time
	nextPoint [2]time.Time
}

func newPacer(s FetchSettings) *pacer {
	p := &pacer{perRequest: time.Duration(float64(time.Second) / s.RequestsPerSecond)}
	for k, dps := range []float64{s.DatapointsPerSecond, s.RecentDatapointsPerSecond} {
		if dps > 0 {
			p.perPoint[k] = 1 / dps
		}
	}
	return p
}

// bucketOf returns the datapoint bucket of a request window: 0 for one
// longer than DPSOldAfter (CloudWatch's quota of old StartTimes), 1 for a
// recent one.
func bucketOf(w fetchWindow) int {
	if w.end.Sub(w.start) > DPSOldAfter {
		return 0
	}
	return 1
}

// wait blocks until a request of points datapoints of bucket k may be sent.
func (p *pacer) wait(ctx context.Context, points, k int) error {
	for {
		p.mu.Lock()
		now := time.Now()
		at := p.nextReq
		if p.nextPoint[k].After(at) {
			at = p.nextPoint[k]
		}
		if !now.Before(at) {
			p.nextReq = now.Add(p.perRequest)
			p.nextPoint[k] = now.Add(time.Duration(p.perPoint[k] * float64(points) * float64(time.Second)))
			p.mu.Unlock()
			return ctx.Err()
		}
		p.mu.Unlock()
		t := time.NewTimer(at.Sub(now))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// stackOption adds the pacer to an SDK call, at the end of the Finalize
// step: inside the retry loop and after signing, so that every attempt is
// paced and leaves as soon as it is released.
func (p *pacer) stackOption(points, bucket int) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("dynamodbExporterPaceHistoryFetch",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if err := p.wait(ctx, points, bucket); err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	}
}

// pause keeps every request back for d from now.
func (p *pacer) pause(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if until := time.Now().Add(d); until.After(p.nextReq) {
		p.nextReq = until
	}
}

// isThrottle reports whether err is AWS refusing the request rate (the SDK
// has already retried it within its own budget).
func isThrottle(err error) bool {
	_, ok := retry.DefaultThrottleErrorCodes[awsclient.ErrorCode(err)]
	return ok
}

// fetchProgress is what one target's history fetch has done: the running
// fetch's tables and requests, and the requests of every fetch since start.
type fetchProgress struct {
	tablesPending, tablesDone, tablesFailed int
	requestsTotal, requestsDone             int
	// counters since start, by outcome
	ok, throttled, failed float64
}

// historyFetcher runs the history requests of every target and keeps their
// progress for the self-metrics.
type historyFetcher struct {
	settings FetchSettings
	logger   *slog.Logger

	mu       sync.Mutex
	progress map[*awsclient.Target]*fetchProgress
	order    []*awsclient.Target
}

func newHistoryFetcher(s FetchSettings, logger *slog.Logger) *historyFetcher {
	return &historyFetcher{settings: s.withDefaults(), logger: logger, progress: map[*awsclient.Target]*fetchProgress{}}
}

// update changes t's progress under the lock.
func (f *historyFetcher) update(t *awsclient.Target, fn func(p *fetchProgress)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.progress[t]
	if p == nil {
		p = &fetchProgress{}
		f.progress[t] = p
		f.order = append(f.order, t)
	}
	fn(p)
}

// metrics returns the fetch self-metrics; they move while a fetch runs.
func (f *historyFetcher) metrics() []prometheus.Metric {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ms []prometheus.Metric
	for _, t := range f.order {
		p := f.progress[t]
		for _, s := range []struct {
			state string
			n     int
		}{{"pending", p.tablesPending}, {"done", p.tablesDone}, {"failed", p.tablesFailed}} {
			ms = append(ms, catalogue.MustMetric(catalogue.ExporterCapacityHistoryFetchTables, float64(s.n), t.Account, t.Region, s.state))
		}
		ms = append(ms,
			catalogue.MustMetric(catalogue.ExporterCapacityHistoryFetchRequestsPending, float64(p.requestsTotal-p.requestsDone), t.Account, t.Region),
			catalogue.MustMetric(catalogue.ExporterCapacityHistoryFetchRequestsTotal, p.ok, t.Account, t.Region, "ok"),
			catalogue.MustMetric(catalogue.ExporterCapacityHistoryFetchRequestsTotal, p.throttled, t.Account, t.Region, "throttled"),
			catalogue.MustMetric(catalogue.ExporterCapacityHistoryFetchRequestsTotal, p.failed, t.Account, t.Region, "error"),
		)
	}
	return ms
}

// fetchJob is one request and how often it was throttled.
type fetchJob struct {
	batch     []historyQuery
	throttles int
}

// fetchOutcome is what a worker reports for one attempt of a job.
type fetchOutcome struct {
	job *fetchJob
	res []queryResult
	err error
}

// fetch runs the requests of qs (packed by batchQueries: every query billed
// once, none paginating) on a pool of Concurrency workers paced under the
// GetMetricData quota, calling apply for each request that succeeded, one
// at a time, in the caller's goroutine. It returns the keys whose history
// is incomplete (a request failed; fetched again next run) and the errors.
// A throttled request is put back in the queue after a pause of every
// worker; one that fails otherwise fails alone: the other tables go on.
func (f *historyFetcher) fetch(ctx context.Context, t *awsclient.Target, qs []historyQuery,
	apply func(batch []historyQuery, res []queryResult)) (failed map[historyKey]bool, errs []error) {
	s := f.settings
	failed = map[historyKey]bool{}
	batches := batchQueries(qs)

	orderBatches(qs, batches)
	// Requests left per table, and the tables of each request.
	left := map[string]int{}
	for _, b := range batches {
		for _, name := range tablesOf(b) {
			left[name]++
		}
	}
	tableFailed := map[string]bool{}
	f.update(t, func(p *fetchProgress) {
		p.tablesPending, p.tablesDone, p.tablesFailed = len(left), 0, 0
		p.requestsTotal, p.requestsDone = len(batches), 0
	})
	if len(batches) == 0 {
		return failed, nil
	}

	level := slog.LevelDebug
	if len(batches) >= progressLogRequests {
		level = slog.LevelInfo
	}
	log := f.logger.With("account", t.Account, "region", t.Region)
	start := time.Now()
	log.Log(ctx, level, "fetching capacity history", "tables", len(left), "requests", len(batches), "queries", len(qs),
		"concurrency", s.Concurrency, "requests_per_second", s.RequestsPerSecond,
		"datapoints_per_second", s.DatapointsPerSecond, "recent_datapoints_per_second", s.RecentDatapointsPerSecond)

	pace := newPacer(s)
	jobs := make(chan *fetchJob, len(batches))
	for _, b := range batches {
		jobs <- &fetchJob{batch: b}
	}
	outcomes := make(chan fetchOutcome)
	var wg sync.WaitGroup
	for range min(s.Concurrency, len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				o := fetchOutcome{job: j}
				o.res, o.err = fetchBatch(ctx, t, j.batch, pace)
				outcomes <- o
			}
		}()
	}
	defer func() {
		close(jobs)
		wg.Wait()
	}()

	var (
		done, throttledInRow, throttles, canceled int
		ticker                                    = time.NewTicker(s.ProgressEvery)
		nextQuarter                               = 1
	)
	defer ticker.Stop()
	logProgress := func(msg string) {
		f.mu.Lock()
		p := *f.progress[t]
		f.mu.Unlock()
		log.Log(ctx, level, msg, "tables_done", p.tablesDone, "tables_failed", p.tablesFailed, "tables", len(left),
			"requests_done", done, "requests", len(batches), "throttled", throttles, "errors", len(errs),
			"elapsed", time.Since(start).Round(time.Millisecond))
	}
	for done < len(batches) {
		var o fetchOutcome
		select {
		case o = <-outcomes:
		case <-ticker.C:
			logProgress("fetching capacity history: progress")
			continue
		}
		j := o.job
		if o.err != nil && isThrottle(o.err) && ctx.Err() == nil && j.throttles < s.MaxThrottles {
			// Back off every worker, and ask again later.
			j.throttles++
			throttles++
			throttledInRow++
			f.update(t, func(p *fetchProgress) { p.throttled++ })
			d := min(maxThrottleBackoff, s.ThrottleBackoff<<min(throttledInRow-1, 16))
			pace.pause(d)
			log.Debug("capacity history request throttled; retrying later", "queries", len(j.batch), "throttles", j.throttles, "backoff", d)
			jobs <- j
			continue
		}
		done++
		tables := tablesOf(j.batch)
		switch {
		case o.err != nil:
			if ctx.Err() != nil && errors.Is(o.err, ctx.Err()) {
				canceled++
			} else {
				// Fetched again next run.
				errs = append(errs, o.err)
			}
			// A table fails with its consumed history; a failed
			// billing-mode history (prov) leaves its figures whole and
			// is fetched again next run (modeHistory).
			for _, q := range j.batch {
				failed[q.key] = true
				if !q.key.prov {
					tableFailed[q.key.table] = true
				}
			}
			f.update(t, func(p *fetchProgress) { p.failed++ })
		default:
			throttledInRow = 0
			apply(j.batch, o.res)
			f.update(t, func(p *fetchProgress) { p.ok++ })
		}
		f.update(t, func(p *fetchProgress) {
			p.requestsDone++
			for _, name := range tables {
				if left[name]--; left[name] == 0 {
					p.tablesPending--
					if tableFailed[name] {
						p.tablesFailed++
					} else {
						p.tablesDone++
					}
				}
			}
		})
		if done*4 >= nextQuarter*len(batches) && done < len(batches) {
			for done*4 >= nextQuarter*len(batches) {
				nextQuarter++
			}
			logProgress("fetching capacity history: progress")
		}
	}
	if canceled > 0 {
		errs = append(errs, fmt.Errorf("capacity history fetch in %s stopped with %d of %d requests not done: %w", t.Key(), canceled, len(batches), context.Cause(ctx)))
	}
	logProgress("capacity history fetched")
	return failed, errs
}

// orderBatches orders the requests of a fetch, in place, so that tables
// finish one after the other, steadily, and few are held half fetched: a
// table's fetched tiers (its minutes above all, 86 KB a series for 15 days)
// are held until its last request has arrived, when it is derived and
// compacted (Capacity.runTarget). The billing-mode requests (prov: hourly,
// a hundred tables each) go first, so that no table waits for one of them;
// then every request in the order of the first table it reads (the
// hourly-tier requests, which read about 26 tables each but hold 2.6 KB a
// series, go with their first table): a table's 1-minute and 5-minute
// requests then arrive together, and a table waits for no request of tables
// after it. Ordering by the last table instead held the full tiers of every
// table of an hourly request until its last one arrived (26 tables: 12.6 MB
// of tiers in the heap profile of a first fetch at 100 tables, cmd/bench
// -heap-profiles). The requests and their
// content are unchanged: windows are disjoint, so the order they are
// applied in changes nothing held.
func orderBatches(qs []historyQuery, batches [][]historyQuery) {
	tableOrder := map[string]int{}
	for _, q := range qs {
		if _, ok := tableOrder[q.key.table]; !ok {
			tableOrder[q.key.table] = len(tableOrder)
		}
	}
	firstTable := func(b []historyQuery) int {
		if b[0].key.prov {
			return -1
		}
		m := len(tableOrder)
		for _, q := range b {
			m = min(m, tableOrder[q.key.table])
		}
		return m
	}
	sort.SliceStable(batches, func(i, j int) bool { return firstTable(batches[i]) < firstTable(batches[j]) })
}

// tablesOf returns the distinct tables a request reads.
func tablesOf(b []historyQuery) []string {
	var out []string
	for i, q := range b {
		if i == 0 || q.key.table != b[i-1].key.table {
			if !slices.Contains(out, q.key.table) {
				out = append(out, q.key.table)
			}
		}
	}
	return out
}
