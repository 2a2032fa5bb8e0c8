// TTL health: samples random segments of a parallel Scan of every table with
// TTL enabled (or a configured attribute), classifies each item's TTL value,
// and estimates how many expired items DynamoDB has not deleted yet and how
// many items TTL will never delete. Reads are capped per sample, per account
// and region per hour, and per second.
package collectors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// LifetimeBuckets are the upper bounds, in seconds, of the remaining-lifetime
// histogram: 1 h, 6 h, 1 d, 3 d, 7 d, 14 d, 30 d, 90 d, 180 d, 365 d.
var LifetimeBuckets = []float64{3600, 21600, 86400, 259200, 604800, 1209600, 2592000, 7776000, 15552000, 31536000}

// NearLatestWindows are the spans below the latest live expiry over which
// the live items of a sample are counted (the within label: 1h and 1d). A
// writer that stopped writing long-lived items leaves the top of the
// expiry span empty; an expiry rounded to a calendar boundary (end of day,
// the 1st of the month) piles its items into the top hour.
var NearLatestWindows = [...]struct {
	Label   string
	Seconds float64
}{{"1h", 3600}, {"1d", 86400}}

// Forecast bins: the live expiries a sample reads are kept, per table, in
// bins of ForecastBin up to ForecastHorizon ahead, and counted in
// dynamodb_ttl_foreseen_expired_items_total as each bin's time passes.
const (
	ForecastBin     = 10 * time.Minute
	ForecastHorizon = 48 * time.Hour
)

// The steady expiry rate of a table (dynamodb_ttl_expiry_rate_estimate_items_per_second)
// is read from the live expiries of its last sample over the fewest whole
// days ahead holding at least ExpiryRateItems sampled items (whole days:
// a writer's daily cycle averages out), up to ExpiryRateMaxDays; over the
// whole span of live expiries when that is shorter (every live item expires
// within it). Fewer than ExpiryRateMinItems sampled items give no figure.
const (
	ExpiryRateItems    = 100
	ExpiryRateMinItems = 30
	ExpiryRateMaxDays  = 30
)

// TTLSettings tune the TTL collector.
type TTLSettings struct {
	Interval       time.Duration
	TableInterval  time.Duration
	SampleItems    int
	MaxReadRate    float64
	PerTableSample float64
	PerHour        float64
	// Attributes maps table names to a TTL attribute for tables whose TTL is disabled.
	Attributes map[string]string
	// Pace waits between Scan pages; nil waits on the wall clock. A replay
	// passes a function that returns at once.
	Pace func(ctx context.Context, d time.Duration) error
	// Seed makes segment choice reproducible when non-zero.
	Seed uint64
	// Prices override the built-in storage prices that price the expired
	// backlog (capacity.StoragePriceFor).
	Prices []capacity.PriceOverride
}

// TTL is the TTL health collector.
type TTL struct {
	targets   []*awsclient.Target
	inventory *Inventory
	settings  TTLSettings
	logger    *slog.Logger
	rng       *rand.Rand
	snap      targetSnapshot

	mu    sync.Mutex
	state map[string]*ttlTargetState
}

type ttlSpend struct {
	at    time.Time
	units float64
}

type ttlTargetState struct {
	cursor   string // name of the last table sampled; the next run starts after it
	spends   []ttlSpend
	tables   map[string]*ttlTableState
	outcomes map[string]float64
}

type ttlTableState struct {
	sampled  time.Time
	failed   time.Time // last failed attempt: retried after a few runs, not every run
	counts   [ttl.NumClasses]int64
	expired  ttl.Estimate
	never    ttl.Estimate
	haveEst  bool
	oldest   float64 // TTL value of the oldest expired item seen, 0 if none
	consumed float64
	lifetime histogram
	// latest is the TTL value of the live item expiring last in the last
	// sample (0 if it read no live item), and nearLatest how many live
	// items it read within NearLatestWindows of it.
	latest     float64
	nearLatest [len(NearLatestWindows)]int
	// expiryRate is the table's estimated steady expiry rate, in items per
	// second, from the last sample (expiryRateOf), when haveRate.
	expiryRate float64
	haveRate   bool
	// cand is the likely intended TTL attribute, when haveCand.
	cand     ttl.Candidate
	haveCand bool
	// foreseen holds the expiries the samples foresaw a lead ahead (half
	// the retention, at most a day; every one for the first sample), and
	// counts them as they come due.
	foreseen forecast
	// backlog is the storage the expired items hold, in bytes, in the base
	// table (index "") and each GSI (backlogIndexes), with class the
	// table's class; nil when unknown.
	backlog        []float64
	backlogIndexes []string
	class          capacity.TableClass
}

// forecast holds, by bin of ForecastBin, the estimated number of items
// that expire in the bin as the last sample taken at least a lead before
// the bin saw them, up to ForecastHorizon ahead; due counts the items of
// the bins whose time has passed.
//
// The lead is half the table's retention, at most half the horizon: the
// table's retention at a sample is the remaining lifetime of the live item
// expiring last in it (the latest live expiry minus the sample's time). A
// retention bug writes items whose lifetime is far shorter than the
// table's usual one (and than a day): no sample sees them a lead before
// they expire, so they are never counted here, while TTL deletes them. A
// batch of items ending the lifetime it was written with (a campaign's
// tokens or vouchers) was seen by earlier samples long before it expires:
// its expiries are counted here as they come due, as many as TTL then
// deletes. A bug whose items live longer than a day is left to
// DynamoDBTTLDeletingLiveData's stall branch, which sees it before its
// first item expires.
//
// The first sample after the exporter starts (or after the table becomes
// eligible) fills every bin up to the horizon: what it reads was written
// before the exporter started, and no later sample could see it a lead
// ahead. A bug under way before the start is then counted for the items
// the first sample read; its items written after that are not.
type forecast struct {
	first  int64     // bin index (Unix seconds / ForecastBin) of bins[0]
	bins   []float32 // estimated items expiring in each bin
	due    float64
	seeded bool // a sample has filled the bins
}

// advance counts the bins whose end is at or before now as due.
func (f *forecast) advance(now time.Time) {
	bin := int64(ForecastBin / time.Second)
	cur := now.Unix() / bin // the bin holding now: not due yet
	for len(f.bins) > 0 && f.first < cur {
		f.due += float64(f.bins[0])
		f.bins = f.bins[1:]
		f.first++
	}
	if len(f.bins) == 0 {
		f.bins = nil
		f.first = cur
	}
}

// update records what a sample taken at now says about the bins that start
// at least the lead ahead (remaining: the remaining lifetimes of the live
// items read, in seconds; scale: table items per item read), or about
// every bin ahead for the first sample. Bins nearer than the lead keep
// what earlier samples saw.
func (f *forecast) update(now time.Time, remaining []float64, scale float64) {
	f.advance(now)
	if len(remaining) == 0 || scale <= 0 {
		return
	}
	retention := remaining[0]
	for _, v := range remaining[1:] {
		retention = max(retention, v)
	}
	bin := int64(ForecastBin / time.Second)
	t := now.Unix()
	lead := min(int64(retention/2), int64(ForecastHorizon/time.Second)/2)
	if !f.seeded {
		lead = 0
	}
	from := (t + lead + bin - 1) / bin                   // first bin starting at least lead ahead
	to := (t + int64(ForecastHorizon/time.Second)) / bin // bins before it end within the horizon
	if !f.seeded {
		from = t / bin // the bin holding now: not due yet
		f.seeded = true
	}
	if from >= to {
		return
	}
	if need := int(to - f.first); need > len(f.bins) {
		f.bins = append(f.bins, make([]float32, need-len(f.bins))...)
	}
	for i := from; i < to; i++ {
		f.bins[i-f.first] = 0
	}
	for _, v := range remaining {
		if i := (t + int64(v)) / bin; i >= from && i < to {
			f.bins[i-f.first] += float32(scale)
		}
	}
}

type histogram struct {
	count   uint64
	sum     float64
	buckets []uint64 // cumulative, one per LifetimeBuckets bound
}

func (h *histogram) observe(v float64) {
	if h.buckets == nil {
		h.buckets = make([]uint64, len(LifetimeBuckets))
	}
	h.count++
	h.sum += v
	for i, b := range LifetimeBuckets {
		if v <= b {
			h.buckets[i]++
		}
	}
}

func (h *histogram) bucketMap() map[float64]uint64 {
	m := make(map[float64]uint64, len(LifetimeBuckets))
	for i, b := range LifetimeBuckets {
		if h.buckets == nil {
			m[b] = 0
		} else {
			m[b] = h.buckets[i]
		}
	}
	return m
}

// TTL outcomes counted by dynamodb_exporter_ttl_samples_total.
const (
	OutcomeComplete      = "complete"
	OutcomePartial       = "partial"
	OutcomeSkippedBudget = "skipped_budget"
	// OutcomeSkippedUnknownSize: DynamoDB reports neither the item count
	// nor the size of the table yet and it holds more than one sample.
	OutcomeSkippedUnknownSize = "skipped_unknown_size"
	OutcomeError              = "error"
)

// NewTTL returns the TTL health collector.
func NewTTL(deps Deps, s TTLSettings) *TTL {
	seed := s.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	c := &TTL{
		targets: deps.Targets, inventory: deps.Inventory, settings: s,
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		state: map[string]*ttlTargetState{},
	}
	c.logger = deps.logger(c.Name())
	return c
}

// Name implements Collector.
func (c *TTL) Name() string { return "ttl" }

// Metrics implements Collector.
func (c *TTL) Metrics() []prometheus.Metric { return c.snap.Metrics() }

// TTLAttribute returns the TTL attribute a table is sampled with, if any:
// the one of an enabled (or enabling) TTL setting, else a configured one.
func TTLAttribute(tb *Table, configured map[string]string) (string, bool) {
	if tb.TTL != nil && (tb.TTL.TimeToLiveStatus == types.TimeToLiveStatusEnabled || tb.TTL.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		if a := aws.ToString(tb.TTL.AttributeName); a != "" {
			return a, true
		}
	}
	a, ok := configured[tb.Name]
	return a, ok && a != ""
}

// Run implements Collector: for every target, sample the due tables in
// round-robin order within the run's share of the hourly budget. The
// targets run one after the other (they share the random source that
// picks the segments, so that a seed reproduces a run), and each one's
// figures are published as soon as it is done.
func (c *TTL) Run(ctx context.Context, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	states := targetStates(c.targets, c.state, func() *ttlTargetState {
		return &ttlTargetState{tables: map[string]*ttlTableState{}, outcomes: map[string]float64{}}
	})
	return eachTarget(c.targets, 1, &c.snap, func(i int, t *awsclient.Target) ([]prometheus.Metric, error) {
		err := c.runTarget(ctx, t, states[i], now)
		return states[i].metrics(t, c.settings.Prices), err
	})
}

func (c *TTL) runTarget(ctx context.Context, t *awsclient.Target, st *ttlTargetState, now time.Time) error {
	type eligible struct {
		table *Table
		attr  string
	}
	var tables []eligible
	keep := map[string]bool{}
	for _, tb := range c.inventory.Tables(t.Key()) {
		if attr, ok := TTLAttribute(tb, c.settings.Attributes); ok {
			tables = append(tables, eligible{tb, attr})
			keep[tb.Name] = true
		}
	}
	for name := range st.tables {
		if !keep[name] {
			delete(st.tables, name)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	// Round-robin: start after the table sampled last.
	start := sort.Search(len(tables), func(i int) bool { return tables[i].table.Name > st.cursor })
	ordered := append(append([]eligible{}, tables[start:]...), tables[:start]...)

	// Spend of the last hour, and this run's share of the hourly budget.
	cut := now.Add(-time.Hour)
	kept := st.spends[:0]
	spent := 0.0
	for _, s := range st.spends {
		if s.at.After(cut) {
			kept = append(kept, s)
			spent += s.units
		}
	}
	st.spends = kept
	share := c.settings.PerHour * float64(c.settings.Interval) / float64(time.Hour)
	share = max(share, c.settings.PerTableSample)
	runSpent := 0.0

	for _, ts := range st.tables {
		ts.foreseen.advance(now)
	}
	var errs []error
	for _, e := range ordered {
		ts := st.tables[e.table.Name]
		if ts == nil {
			ts = &ttlTableState{}
			st.tables[e.table.Name] = ts
		}
		if !ts.sampled.IsZero() && now.Sub(ts.sampled) < c.settings.TableInterval {
			continue
		}
		if retry := min(c.settings.TableInterval, 4*c.settings.Interval); !ts.failed.IsZero() && now.Sub(ts.failed) < retry {
			continue
		}
		if runSpent >= share {
			break
		}
		left := c.settings.PerHour - spent
		if left < 1 {
			st.outcomes[OutcomeSkippedBudget]++
			c.logger.Info("TTL sampling paused: the hourly read budget is spent", "account", t.Account, "region", t.Region, "budget_per_hour", c.settings.PerHour)
			break
		}
		res, err := SampleTable(ctx, t.DynamoDB, e.table.Description, SampleOptions{
			Attribute:   e.attr,
			SampleItems: c.settings.SampleItems,
			Budget:      min(c.settings.PerTableSample, left),
			MaxReadRate: c.settings.MaxReadRate,
			Now:         now,
			Rand:        c.rng,
			Pace:        c.settings.Pace,
			// Whole items: a Scan costs the same read units whatever its
			// projection, and the search for the TTL attribute under
			// another name (ttl.ChooseCandidate) then looks at every item
			// lacking it, however few: a writer that puts its expiry under
			// another name on a third of the new items shows within hours
			// on a table whose older items all carry the right one, long
			// before most items lack the attribute.
			WholeItems: true,
		})
		spent += res.ConsumedReadUnits
		runSpent += res.ConsumedReadUnits
		st.spends = append(st.spends, ttlSpend{now, res.ConsumedReadUnits})
		ts.consumed += res.ConsumedReadUnits
		st.cursor = e.table.Name
		if err != nil {
			st.outcomes[OutcomeError]++
			ts.failed = now
			errs = append(errs, fmt.Errorf("TTL sample of table %s in %s: %w", e.table.Name, t.Key(), err))
			continue
		}
		if res.SizeUnknown {
			st.outcomes[OutcomeSkippedUnknownSize]++
			ts.failed = now // try again after a few runs, not every run
			c.logger.Info("TTL sample skipped: DynamoDB reports no item count or size for the table yet (new or imported tables read 0 for up to six hours) and it holds more than one sample",
				"account", t.Account, "region", t.Region, "table", e.table.Name, "read_units", res.ConsumedReadUnits)
			continue
		}
		ts.class, _ = reportedClass(e.table)
		if err := ts.record(res, now); err != nil {
			st.outcomes[OutcomeError]++
			ts.failed = now
			errs = append(errs, fmt.Errorf("TTL sample of table %s in %s: %w", e.table.Name, t.Key(), err))
			continue
		}
		if res.Complete {
			st.outcomes[OutcomeComplete]++
		} else {
			st.outcomes[OutcomePartial]++
			c.logger.Info("TTL sample cut short by its read budget; the segments read form the sample",
				"account", t.Account, "region", t.Region, "table", e.table.Name,
				"segments_read", len(res.Sample.Segments), "segments_planned", res.Planned, "budget", c.settings.PerTableSample)
		}
	}
	return errors.Join(errs...)
}

// record keeps a sample's figures. A sample with no complete segment leaves
// the previous figures in place.
func (ts *ttlTableState) record(res SampleResult, now time.Time) error {
	if len(res.Sample.Segments) == 0 {
		return errors.New("the read budget ran out before one segment was read; raise collectors.ttl.budget.per_table_sample")
	}
	expired, err := res.Sample.Estimate(ttl.SetOf(ttl.Expired))
	if err != nil && !errors.Is(err, ttl.ErrEmptySample) {
		return fmt.Errorf("estimating expired items: %w", err)
	}
	never, err2 := res.Sample.Estimate(ttl.NeverExpiring)
	if err2 != nil && !errors.Is(err2, ttl.ErrEmptySample) {
		return fmt.Errorf("estimating never-expiring items: %w", err2)
	}
	ts.haveEst = err == nil && err2 == nil
	ts.expired, ts.never = expired, never
	ts.counts = res.Counts()
	ts.haveCand = false
	if res.WholeItems {
		cand, err := ttl.ChooseCandidate(res.Sample.TotalSegments, res.Sample.TableItems, res.Candidates, now)
		switch {
		case err == nil:
			ts.cand, ts.haveCand = cand, true
		case !errors.Is(err, ttl.ErrNoCandidate) && !errors.Is(err, ttl.ErrEmptySample):
			return fmt.Errorf("estimating the candidate TTL attribute: %w", err)
		}
	}
	ts.oldest = res.OldestExpiredTTL
	ts.sampled = now
	ts.failed = time.Time{}
	for _, v := range res.LiveRemaining {
		ts.lifetime.observe(v)
	}
	ts.latest, ts.nearLatest = latestExpiry(res.LiveRemaining, now)
	scale := 0.0
	if expired.SampleItems > 0 {
		scale = expired.TableItems / float64(expired.SampleItems)
	}
	ts.foreseen.update(now, res.LiveRemaining, scale)
	ts.expiryRate, ts.haveRate = expiryRateOf(res.LiveRemaining, scale)
	ts.backlog, ts.backlogIndexes = nil, nil
	if ts.haveEst {
		if b, ok := res.BacklogBytes(expired.Items); ok {
			ts.backlog, ts.backlogIndexes = b, append([]string{""}, res.Indexes...)
		}
	}
	return nil
}

// expiryRateOf estimates the rate, in items per second, at which the
// table's live items expire over the days ahead, from the remaining
// lifetimes of the live items a sample read (seconds) and the table items
// each one stands for (scale): the sampled expiries within the fewest whole
// days holding ExpiryRateItems of them (or all of them, over the span to
// the latest, when every one expires sooner), times scale, over that span.
// With ExpiryRateItems sampled items the figure is within about 10% (one
// standard deviation of a Poisson count of 100), where the expiries a
// sample foresees in any one hour of a thinly sampled table are one or
// two items, each standing for hundreds. It is the deletion rate TTL keeps
// up in steady state: a retention bug adds deletions of items too
// short-lived for any sample to see, so that TTL deletes well above it.
// When fewer than ExpiryRateMinItems of them expire within
// ExpiryRateMaxDays (a table whose items live months), it is those few
// over ExpiryRateMaxDays, zero included: rough, but small whatever its
// error (fewer than ExpiryRateMinItems items standing for the table over a
// month), and a rate TTL's deletions can be judged against: a retention
// bug on such a table deletes far above it. ok is false when the sample
// read fewer than ExpiryRateMinItems live items.
func expiryRateOf(remaining []float64, scale float64) (rate float64, ok bool) {
	if scale <= 0 || len(remaining) < ExpiryRateMinItems {
		return 0, false
	}
	sorted := slices.Clone(remaining)
	slices.Sort(sorted)
	latest := sorted[len(sorted)-1]
	const day = 86400.0
	for d := 1; d <= ExpiryRateMaxDays; d++ {
		span := float64(d) * day
		if latest <= span {
			if latest <= 0 {
				return 0, false
			}
			return float64(len(sorted)) * scale / latest, true
		}
		// Items expiring within span (remaining lifetime <= span).
		n, found := slices.BinarySearch(sorted, span)
		for found && n < len(sorted) && sorted[n] == span {
			n++
		}
		if n >= ExpiryRateItems || d == ExpiryRateMaxDays {
			return float64(n) * scale / span, true
		}
	}
	return 0, false
}

// latestExpiry returns the TTL value (Unix seconds) of the live item that
// expires last among remaining (remaining lifetimes at now, in seconds), 0
// when there is none, and how many of them expire within each of
// NearLatestWindows of it (the latest included: a window is (latest - w,
// latest]).
func latestExpiry(remaining []float64, now time.Time) (float64, [len(NearLatestWindows)]int) {
	var near [len(NearLatestWindows)]int
	if len(remaining) == 0 {
		return 0, near
	}
	top := remaining[0]
	for _, v := range remaining[1:] {
		top = max(top, v)
	}
	for _, v := range remaining {
		for i, w := range NearLatestWindows {
			if v > top-w.Seconds {
				near[i]++
			}
		}
	}
	return float64(now.Unix()) + top, near
}

func (st *ttlTargetState) metrics(t *awsclient.Target, prices []capacity.PriceOverride) []prometheus.Metric {
	var ms []prometheus.Metric
	names := make([]string, 0, len(st.tables))
	for n := range st.tables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ts := st.tables[n]
		lv := []string{t.Account, t.Region, n}
		ms = append(ms, catalogue.MustMetric(catalogue.TTLSamplerConsumedReadUnitsTotal, ts.consumed, lv...))
		if ts.sampled.IsZero() {
			continue
		}
		for _, c := range ttl.Classes() {
			ms = append(ms, catalogue.MustMetric(catalogue.TTLSampledItems, float64(ts.counts[c]), t.Account, t.Region, n, c.String()))
		}
		if ts.haveEst {
			ms = append(ms,
				catalogue.MustMetric(catalogue.TTLExpiredItemsEstimate, ts.expired.Items, lv...),
				catalogue.MustMetric(catalogue.TTLExpiredItemsLowerBound, ts.expired.ItemsLower, lv...),
				catalogue.MustMetric(catalogue.TTLExpiredItemsUpperBound, ts.expired.ItemsUpper, lv...),
				catalogue.MustMetric(catalogue.TTLNeverExpiringItemsEstimate, ts.never.Items, lv...),
				catalogue.MustMetric(catalogue.TTLNeverExpiringItemsLowerBound, ts.never.ItemsLower, lv...),
				catalogue.MustMetric(catalogue.TTLNeverExpiringItemsUpperBound, ts.never.ItemsUpper, lv...),
			)
		}
		if ts.haveCand {
			cl := []string{t.Account, t.Region, n, ts.cand.Attribute}
			ms = append(ms,
				catalogue.MustMetric(catalogue.TTLCandidateAttributeItemsRatio, ts.cand.Carried.Fraction, cl...),
				catalogue.MustMetric(catalogue.TTLCandidateExpiredItemsEstimate, ts.cand.Expired.Items, cl...),
				catalogue.MustMetric(catalogue.TTLCandidateExpiredItemsLowerBound, ts.cand.Expired.ItemsLower, cl...),
				catalogue.MustMetric(catalogue.TTLCandidateExpiredItemsUpperBound, ts.cand.Expired.ItemsUpper, cl...),
				catalogue.MustMetric(catalogue.TTLCandidateFutureItemsRatio, ts.cand.FutureFraction, cl...),
			)
		}
		if ts.oldest > 0 {
			ms = append(ms, catalogue.MustMetric(catalogue.TTLOldestExpiredItemTimestamp, ts.oldest, lv...))
		}
		if perGB, err := capacity.StoragePriceFor(t.Region, ts.class, prices...); err == nil {
			for i, b := range ts.backlog {
				ms = append(ms, catalogue.MustMetric(catalogue.TTLExpiredStorageMonthlyCost, capacity.StorageMonthly(b, perGB), t.Account, t.Region, n, ts.backlogIndexes[i]))
			}
		}
		if ts.latest > 0 {
			ms = append(ms, catalogue.MustMetric(catalogue.TTLLatestLiveExpiryTimestamp, ts.latest, lv...))
			for i, w := range NearLatestWindows {
				ms = append(ms, catalogue.MustMetric(catalogue.TTLLiveItemsNearLatestExpiry, float64(ts.nearLatest[i]), t.Account, t.Region, n, w.Label))
			}
		}
		ms = append(ms,
			catalogue.MustMetric(catalogue.TTLForeseenExpiredItemsTotal, ts.foreseen.due, lv...),
		)
		if ts.haveRate {
			ms = append(ms, catalogue.MustMetric(catalogue.TTLExpiryRateEstimate, ts.expiryRate, lv...))
		}
		ms = append(ms,
			catalogue.MustMetric(catalogue.TTLLastSampleTimestamp, float64(ts.sampled.UnixNano())/1e9, lv...),
			catalogue.MustHistogram(catalogue.TTLLiveItemRemainingLifetime, ts.lifetime.count, ts.lifetime.sum, ts.lifetime.bucketMap(), lv...),
		)
	}
	for _, o := range []string{OutcomeComplete, OutcomePartial, OutcomeSkippedBudget, OutcomeSkippedUnknownSize, OutcomeError} {
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterTTLSamplesTotal, st.outcomes[o], t.Account, t.Region, o))
	}
	return ms
}
