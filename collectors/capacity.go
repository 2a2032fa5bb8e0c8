// The capacity collector derives the capacity-mode gauges from CloudWatch
// history: read/write-ratio drift, peak-to-average, weekly baselines and
// surge retention per table and GSI, and per table the cost of the last 7 and
// 30 days in each billing mode with a recommendation. The first run fetches
// the whole history (capacity_history.go); later runs fetch only new minutes.
package collectors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/packedsums"
)

// CapacitySettings tune the capacity collector.
type CapacitySettings struct {
	// Delay is how far behind now the history ends.
	Delay time.Duration
	// History is how much history is kept (at least 7 days).
	History time.Duration
	// PeakPercentile is the percentile of 1-minute rates taken as the peak.
	PeakPercentile float64
	// SurgeFactor is the ratio of a week's baseline to the weeks before it
	// that makes it a surge.
	SurgeFactor float64
	// ScaleOutDelay is the simulated time a scale-out takes to apply.
	ScaleOutDelay time.Duration
	// Options are the recommendation thresholds.
	Options capacity.Options
	// Prices override the built-in list prices.
	Prices []capacity.PriceOverride
	// Tables, when not nil, restricts the collector to the tables it accepts.
	Tables func(name string) bool
	// Fetch bounds the concurrency and rate of the history requests.
	Fetch FetchSettings
	// Engineering is the team's time per table and mode; the reports add
	// it to the bill (TableReport.Engineering). Off by default.
	Engineering capacity.Engineering
}

// Capacity is the capacity-mode collector.
type Capacity struct {
	targets   []*awsclient.Target
	inventory *Inventory
	settings  CapacitySettings
	logger    *slog.Logger
	snap      targetSnapshot
	fetcher   *historyFetcher

	mu    sync.Mutex
	state map[string]*capacityState
	// keepSplit keeps every hour of reads and writes apart (no mergeHours),
	// for the tests that compare the figures with and without the merge.
	keepSplit bool
}

// capacityState is the collector's memory for one account and region.
type capacityState struct {
	hist map[historyKey]*history
	// whatIf holds the running what-if of each table or GSI, by the key of
	// its read series.
	whatIf map[historyKey]*whatIf
	// peakRuns holds the what-if of the scheduled actions proposed for
	// the recurring peaks of each table or GSI, by the key of its read
	// series (capacity_peakadvice.go).
	peakRuns map[historyKey]*peakRun
	scaling  map[ScalingResource]scalingPolicy
	reports  []TableReport
	// modes holds the provisioned-capacity history of each base table, by
	// table name (capacity_mode.go).
	modes map[string]*modeHistory
	// warned holds the tables (and billing modes) whose unknown billing
	// mode was logged, so that it is logged once.
	warned map[string]bool
	// created holds, by table name, the creation time the table's history
	// and what-ifs were built for: a table re-created under the same name
	// starts both again (forgetRecreated).
	created map[string]time.Time
	// projections holds each table's trend and projected costs of the
	// day, by table name (capacity_projection.go).
	projections map[string]*projectionCache
}

// TableReport holds every derived figure of one table.
type TableReport struct {
	Account, Region, Table string
	// Mode is the current billing mode.
	Mode capacity.Mode
	// Traffic holds the base table (Index "") then each GSI.
	Traffic []TrafficFigures
	// Switches are the billing-mode figures of the base table's
	// provisioned-capacity history; nil without one (a table created
	// within the hour, a failed fetch: fetched again next run).
	Switches *ModeFigures
	// Costs holds the cost what-if per window; a window without enough
	// history is missing.
	Costs []WindowCost
	// Err is why the cost what-if could not run (unknown billing mode or
	// prices), or nil.
	Err error
	// Hourly is the table's last 30 days hour by hour, for charts: empty
	// without a cost what-if. Reports computes it from the history the
	// collector holds; the reports the collector keeps do not hold it.
	Hourly HourlyHistory
	// Class holds the storage and table-class figures; nil until the
	// table has a traffic history.
	Class *ClassFigures
	// Warm holds the warm throughput and sudden-peak figures of the base
	// table then each GSI.
	Warm []WarmFigures
	// Peaks holds how the peaks of the base table then each GSI are best
	// served (capacity_peakadvice.go).
	Peaks []PeakFigures
	// Projection holds the traffic trend and the projected monthly costs;
	// nil without a cost window or prices.
	Projection *ProjectionFigures
	// Engineering is the team's time per mode the collector was configured
	// with (CapacitySettings.Engineering); off when not set.
	Engineering capacity.Engineering
	// Replicas are the other regions holding a replica of the table (a
	// global table), as DescribeTable lists them; nil for a table of one
	// region.
	Replicas []string
	// Global is the one decision of the global table the table is a
	// replica of (capacity_global.go), shared by the reports of its
	// replicas; nil for a table of one region.
	Global *GlobalDecision
	// chart is what Reports computes Hourly from.
	chart chartSpan
	// classWindow and classResults are the longest cost window's label and
	// workload results, from reportCosts to classFigures.
	classWindow  string
	classResults []capacity.WorkloadResult
}

// chartSpan is the span of a table's chart (hourlyHistory): the history's
// end and the what-if's first minute at the run that derived the report;
// on is false without a chart.
type chartSpan struct {
	end, first time.Time
	on         bool
}

// HourlyHistory is a table's history hour by hour (UTC clock hours from
// Start), its GSIs summed with the base table: consumed capacity and the
// provisioned capacity of the what-if's auto-scaling simulation (the
// table's own policy, or the default one for an on-demand table), in
// units per second.
type HourlyHistory struct {
	Start                             time.Time
	ConsumedRead, ConsumedWrite       []float64
	ProvisionedRead, ProvisionedWrite []float64
}

// chartHours is how much history HourlyHistory keeps.
const chartHours = 30 * 24

// NewCapacity returns the capacity collector.
func NewCapacity(deps Deps, s CapacitySettings) *Capacity {
	if s.History < week {
		s.History = week
	}
	if s.PeakPercentile <= 0 || s.PeakPercentile > 100 {
		s.PeakPercentile = 99
	}
	if s.SurgeFactor <= 1 {
		s.SurgeFactor = 3
	}
	c := &Capacity{targets: deps.Targets, inventory: deps.Inventory, settings: s, state: map[string]*capacityState{}}
	c.logger = deps.logger(c.Name())
	c.fetcher = newHistoryFetcher(s.Fetch, c.logger)
	return c
}

// Name implements Collector.
func (c *Capacity) Name() string { return "capacity" }

// Metrics implements Collector: the last run's figures, and the history
// fetch's progress, which moves while a run fetches.
func (c *Capacity) Metrics() []prometheus.Metric { return c.snap.Metrics() }

// LiveMetrics implements LiveReporter: the progress of the history fetch,
// which moves during a run.
func (c *Capacity) LiveMetrics() []prometheus.Metric { return c.fetcher.metrics() }

// Reports returns the figures of the last run, per target then table, each
// with its chart (Hourly) computed from the history the collector holds.
// The charts cost about 0.75 ms and 46 KB of garbage per table with 2 GSIs
// (BenchmarkCapacityChart), under the collector's lock: a caller
// that does not show them should use ReportFigures.
func (c *Capacity) Reports() []TableReport { return c.reports(true) }

// ReportFigures returns the figures of the last run as Reports does, without
// the charts (Hourly empty).
func (c *Capacity) ReportFigures() []TableReport { return c.reports(false) }

func (c *Capacity) reports(charts bool) []TableReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []TableReport
	for _, t := range c.targets {
		st := c.state[t.Key()]
		if st == nil {
			continue
		}
		for _, r := range st.reports {
			if charts {
				r.Hourly = st.chart(&r)
			}
			out = append(out, r)
		}
	}
	globalDecisions(out, c.settings.Options)
	return out
}

// end returns the end of the history at now: a whole minute, Delay behind.
func (c *Capacity) end(now time.Time) time.Time {
	return now.Add(-c.settings.Delay).Truncate(time.Minute)
}

// tables returns the monitored tables of a target that the collector covers.
func (c *Capacity) tables(t *awsclient.Target) []*Table {
	var out []*Table
	for _, tb := range c.inventory.Tables(t.Key()) {
		if c.settings.Tables == nil || c.settings.Tables(tb.Name) {
			out = append(out, tb)
		}
	}
	return out
}

// PlanCost returns what fetching history for the target's monitored tables
// costs: the first run at now, and a refresh every interval after it. The
// check command prints it; it calls no AWS API.
func (c *Capacity) PlanCost(t *awsclient.Target, now time.Time, interval time.Duration) (first, refresh FetchCost) {
	b := boundsAt(c.end(now), c.settings.History)
	next := boundsAt(c.end(now.Add(interval)), c.settings.History)
	var qf, qr []historyQuery
	for _, tb := range c.tables(t) {
		created := creation(tb)
		for _, k := range historyKeys(tb) {
			for _, w := range windowsFor(nil, b, created) {
				qf = append(qf, historyQuery{k, w})
			}
			h := newHistory(b)
			h.finish(b)
			for _, w := range windowsFor(h, next, created) {
				qr = append(qr, historyQuery{k, w})
			}
		}
		// The billing-mode history: hourly, so a refresh fetches it once
		// an hour.
		kf := modeKeepFrom(b.end, created)
		if w, ok := (*modeHistory)(nil).window(b.end, kf); ok {
			qf = append(qf, modeQueries(tb.Name, w)...)
			m := &modeHistory{start: w.start}
			m.apply(false, w, queryResult{})
			m.apply(true, w, queryResult{})
			if w, ok := m.window(next.end, modeKeepFrom(next.end, created)); ok {
				qr = append(qr, modeQueries(tb.Name, w)...)
			}
		}
	}
	return costOf(qf), costOf(qr)
}

// creation returns the table's creation time (zero when unknown).
func creation(tb *Table) time.Time {
	if tb.Description != nil {
		return aws.ToTime(tb.Description.CreationDateTime)
	}
	return time.Time{}
}

// modeQueries returns the queries of a table's provisioned read and write
// capacity over w (base table only: a GSI follows its table's mode).
func modeQueries(table string, w fetchWindow) []historyQuery {
	return []historyQuery{
		{historyKey{table: table, prov: true}, w},
		{historyKey{table: table, write: true, prov: true}, w},
	}
}

// historyKeys lists the series of a table: read and write of the table and
// of each GSI.
func historyKeys(tb *Table) []historyKey {
	var out []historyKey
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		out = append(out, historyKey{table: tb.Name, index: idx, write: false}, historyKey{table: tb.Name, index: idx, write: true})
	}
	return out
}

// Run implements Collector.
func (c *Capacity) Run(ctx context.Context, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	states := targetStates(c.targets, c.state, func() *capacityState {
		return &capacityState{hist: map[historyKey]*history{}, whatIf: map[historyKey]*whatIf{}, warned: map[string]bool{}}
	})
	// Targets run concurrently (each its own state, its own GetMetricData
	// quota: CloudWatch's is per account and Region), and each one's
	// figures are published as soon as it is done: a region that hangs or
	// fetches a long first history delays no other.
	return eachTarget(c.targets, maxTargetsInFlight, &c.snap, func(i int, t *awsclient.Target) ([]prometheus.Metric, error) {
		err := c.runTarget(ctx, t, states[i], now)
		return states[i].metrics(), err
	})
}

func (c *Capacity) runTarget(ctx context.Context, t *awsclient.Target, st *capacityState, now time.Time) error {
	var errs []error
	tables := c.tables(t)
	b := boundsAt(c.end(now), c.settings.History)

	// The auto-scaling settings come first: a what-if whose settings changed
	// starts again from a new fetch of its history.
	if scaling, schedErr, err := readScaling(ctx, t); err != nil {
		// The what-if uses the last known settings.
		errs = append(errs, fmt.Errorf("cost what-if: %w", err))
	} else {
		if schedErr != nil {
			// The scheduled actions alone are unknown (denied, or a
			// failed call): the policies stand, with the last known
			// actions (none if never read); the error is counted.
			errs = append(errs, fmt.Errorf("cost what-if: %w", schedErr))
			for r, p := range scaling {
				p.scheduled = st.scaling[r].scheduled
				scaling[r] = p
			}
		}
		st.scaling = scaling
	}
	if st.whatIf == nil {
		st.whatIf = map[historyKey]*whatIf{}
	}
	c.forgetRecreated(t, st, tables)

	// Forget series of tables and indexes no longer monitored.
	keep := map[historyKey]bool{}
	for _, tb := range tables {
		for _, k := range historyKeys(tb) {
			keep[k] = true
		}
		for _, idx := range append([]string{""}, tb.IndexNames()...) {
			k := historyKey{table: tb.Name, index: idx, write: false}
			if w := st.whatIf[k]; w != nil && !w.runs(settingsFor(tb, idx, st.scaling, c.settings.ScaleOutDelay), provisioned(tb)) {
				delete(st.whatIf, k)
				delete(st.hist, k)
				delete(st.hist, historyKey{table: tb.Name, index: idx, write: true})
			}
		}
	}
	for k := range st.hist {
		if !keep[k] {
			delete(st.hist, k)
		}
	}
	for k := range st.whatIf {
		if !keep[k] {
			delete(st.whatIf, k)
		}
	}
	for k := range st.peakRuns {
		if !keep[k] {
			delete(st.peakRuns, k)
		}
	}
	if st.modes == nil {
		st.modes = map[string]*modeHistory{}
	}
	for name := range st.modes {
		if !keep[historyKey{table: name}] {
			delete(st.modes, name)
		}
	}
	for name := range st.projections {
		if !keep[historyKey{table: name}] {
			delete(st.projections, name)
		}
	}

	// Plan: roll what is held, fetch what is missing.
	var qs []historyQuery
	fresh := map[historyKey]*history{}
	for _, tb := range tables {
		created := creation(tb)
		for _, k := range historyKeys(tb) {
			h := st.hist[k]
			if h != nil && !h.roll(b) {
				delete(st.hist, k)
				h = nil
				if !k.write {
					// Its write series' older hours are held merged in
					// it (splitFrom): both are fetched again.
					delete(st.hist, historyKey{table: k.table, index: k.index, write: true})
				}
			}
			for _, w := range windowsFor(h, b, created) {
				qs = append(qs, historyQuery{k, w})
			}
			if h == nil {
				fresh[k] = newHistory(b.since(created))
			}
		}
		kf := modeKeepFrom(b.end, created)
		m := st.modes[tb.Name]
		if m != nil {
			m.forget(kf)
		}
		if w, ok := m.window(b.end, kf); ok {
			if m == nil {
				st.modes[tb.Name] = &modeHistory{start: w.start}
			}
			qs = append(qs, modeQueries(tb.Name, w)...)
		}
	}
	// A table is derived, and its history compacted, as soon as its last
	// window has arrived, so that the tiers of a first fetch are held for
	// a few tables at a time rather than for all of them.
	pending := map[string]int{}
	for _, q := range qs {
		pending[q.key.table]++
	}
	failed := map[historyKey]bool{}
	reports := make([]*TableReport, len(tables))
	index := map[string]int{}
	for i, tb := range tables {
		index[tb.Name] = i
	}
	complete := func(i int) {
		tb := tables[i]
		own := b.since(creation(tb))
		for _, k := range modeQueries(tb.Name, fetchWindow{}) {
			if failed[k.key] {
				// Hours without samples read as on-demand: fetched
				// again, whole, next run.
				delete(st.modes, tb.Name)
			}
		}
		for _, k := range historyKeys(tb) {
			if failed[k] {
				continue
			}
			if h := fresh[k]; h != nil {
				st.hist[k] = h
				delete(fresh, k)
			}
			st.hist[k].finish(own)
		}
		r, err := c.report(t, st, tb, b)
		if err != nil {
			errs = append(errs, err)
		}
		reports[i] = r
		// The what-if has read the minutes it needs: keep what the
		// figures need from now on.
		for _, k := range historyKeys(tb) {
			if h := st.hist[k]; h != nil {
				end := b.end
				if e := h.end(); e.Before(end) {
					end = e
				}
				h.compact(end, c.peakK(), creation(tb))
				h.forget(c.keepFrom(b))
				h.settle(end)
			}
		}
		c.merge(st, tb, b)
	}
	done := make([]bool, len(tables))
	for i, tb := range tables {
		if pending[tb.Name] == 0 {
			complete(i)
			done[i] = true
		}
	}
	// applyBatch stores a fetched batch and completes the tables whose last
	// window it brought.
	applyBatch := func(batch []historyQuery, res []queryResult) {
		for i, q := range batch {
			if q.key.prov {
				if m := st.modes[q.key.table]; m != nil {
					m.apply(q.key.write, q.w, res[i])
				}
				if pending[q.key.table]--; pending[q.key.table] == 0 {
					j := index[q.key.table]
					complete(j)
					done[j] = true
				}
				continue
			}
			h := fresh[q.key]
			if h == nil {
				h = st.hist[q.key]
			}
			h.apply(q.w, res[i])
			if pending[q.key.table]--; pending[q.key.table] == 0 {
				j := index[q.key.table]
				complete(j)
				done[j] = true
			}
		}
	}
	var fetchErrs []error
	failed, fetchErrs = c.fetcher.fetch(ctx, t, qs, applyBatch)
	errs = append(errs, fetchErrs...)
	// The tables a failed request left incomplete.
	for i := range tables {
		if !done[i] {
			complete(i)
		}
	}

	st.reports = st.reports[:0]
	for _, r := range reports {
		if r != nil {
			st.reports = append(st.reports, *r)
		}
	}
	return errors.Join(errs...)
}

// keepFrom returns the first hour of history a figure of a run at b or
// later reads: the weekly baselines read back at most History's whole
// weeks from the last whole hour (deriveBaselines), the other figures from
// splitFrom. With 90 days of history, the 6 days before the baselines' 12
// weeks are never read: not keeping them saves 144 hourly Sums per series.
func (c *Capacity) keepFrom(b bounds) time.Time {
	keep := b.end.Truncate(time.Hour).Add(-time.Duration(c.settings.History/week) * week)
	if s := c.splitFrom(b); s.Before(keep) {
		keep = s
	}
	return keep
}

// splitFrom returns the first hour a figure of a run at b or later reads
// for reads and writes apart: the what-if starts at whatIfStart (after
// which the cost windows and the charts start), the ratios read a day a
// week ago, the peak-to-average the last week. It only moves forward with
// b.end. The hours before it, back to keepFrom, only the weekly baselines
// read, and only as the sum of reads and writes of each hour: a table's or
// GSI's read series holds that sum once (mergeHours) and its write series
// drops them, which saves 7 of the 12 weeks of hourly Sums of every write
// series. So, of every table or GSI, with 90 days of history:
//
//   - hours [keepFrom, read.merged): the read series holds reads plus
//     writes, the write series nothing;
//   - hours from read.merged (splitFrom, or later while a merge waits for
//     a series' refresh): both series hold their own Sums.
//
// The read series of a pair is never fetched again alone (runTarget).
func (c *Capacity) splitFrom(b bounds) time.Time {
	split := whatIfStart(b.end)
	if s := b.end.Add(-week - day).Truncate(time.Hour); s.Before(split) {
		split = s
	}
	return split
}

// merge merges the hours of each of the table's read and write series
// that only the baselines read (splitFrom, mergeHours).
func (c *Capacity) merge(st *capacityState, tb *Table, b bounds) {
	if c.keepSplit {
		return
	}
	split := c.splitFrom(b)
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		read, write := st.hist[historyKey{table: tb.Name, index: idx, write: false}], st.hist[historyKey{table: tb.Name, index: idx, write: true}]
		if read != nil && write != nil {
			mergeHours(read, write, split)
		}
	}
}

// peakK is how many peak candidates a history keeps (peakSet).
func (c *Capacity) peakK() int { return peakCandidates(c.settings.PeakPercentile) }

// report derives every figure of one table; nil when its history is
// incomplete (a failed fetch).
func (c *Capacity) report(t *awsclient.Target, st *capacityState, tb *Table, b bounds) (*TableReport, error) {
	r, err := c.reportCosts(t, st, tb, b)
	if r != nil {
		r.Class = c.classFigures(t.Region, tb, r.Mode, r.classWindow, r.classResults, b.end)
		r.Warm = warmFigures(st, tb, b.end)
		var prices *capacity.Prices
		if p, err := capacity.PricesForClass(t.Region, tableClass(tb), c.settings.Prices...); err == nil {
			prices = &p
		}
		r.Peaks = c.peakFigures(st, tb, prices, b.end)
		dataStart := b.h0
		if cr := creation(tb); cr.After(dataStart) {
			dataStart = cr
		}
		r.Projection = c.projectionFigures(t.Region, st, tb, r, b, dataStart)
		r.Engineering = c.settings.Engineering
		r.classWindow, r.classResults = "", nil
	}
	return r, err
}

// reportCosts derives the traffic figures and the cost what-if of a table
// (report adds its class figures).
func (c *Capacity) reportCosts(t *awsclient.Target, st *capacityState, tb *Table, b bounds) (*TableReport, error) {
	dataStart := b.h0
	if cr := creation(tb); cr.After(dataStart) {
		dataStart = cr
	}
	r := &TableReport{Account: t.Account, Region: t.Region, Table: tb.Name, Mode: capacity.Mode(tb.BillingMode()), Replicas: tb.ReplicaRegions()}
	var workloads []capacity.Workload
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		read, write := st.hist[historyKey{table: tb.Name, index: idx, write: false}], st.hist[historyKey{table: tb.Name, index: idx, write: true}]
		if read == nil || write == nil {
			return nil, nil
		}
		r.Traffic = append(r.Traffic, deriveTraffic(idx, figureInput{
			read: read, write: write, end: b.end, dataStart: dataStart,
			percentile: c.settings.PeakPercentile, surgeFactor: c.settings.SurgeFactor,
		}))
		workloads = append(workloads, capacity.Workload{Settings: settingsFor(tb, idx, st.scaling, c.settings.ScaleOutDelay)})
	}
	r.Switches = c.modeFigures(t, st, tb)
	if err := r.Mode.Validate(); err != nil {
		// A billing mode this exporter does not know (AWS added one): the
		// what-if cannot price it. Returned as an error every run (counted
		// in dynamodb_exporter_collector_errors_total, logged by the
		// scheduler), shown by capacity report, and noticed once per table
		// and mode here, with what it skips.
		r.Err = err
		if k := tb.Name + "\x00" + string(r.Mode); !st.warned[k] {
			st.warned[k] = true
			c.logger.Warn("cost what-if skipped: unknown billing mode", "account", t.Account, "region", t.Region, "table", tb.Name, "billing_mode", string(r.Mode))
		}
		return r, fmt.Errorf("capacity what-if of table %s in %s: %w", tb.Name, t.Key(), err)
	}
	prices, err := capacity.PricesForClass(t.Region, tableClass(tb), c.settings.Prices...)
	unpriced := err != nil
	if unpriced {
		// A region without list prices (and no override for it) is a
		// configuration gap, not a failure of the collector: the table
		// keeps its traffic figures and the simulation's diagnosis (the
		// throttles a policy lets through need no price), gets no cost
		// figure, and the gap is logged once per region and class and
		// shown by capacity report (r.Err), instead of failing the
		// collector every run (which would raise
		// DynamoDBExporterCollectorFailing for good and hide the other
		// tables' figures behind it).
		r.Err = err
		if k := "\x00prices\x00" + t.Region + "\x00" + string(tableClass(tb)); !st.warned[k] {
			st.warned[k] = true
			c.logger.Warn("cost figures skipped: no list price for the region; set collectors.capacity.prices for it", "account", t.Account, "region", t.Region, "table_class", string(tableClass(tb)), "err", err)
		}
	}
	// One simulation from runFrom, running on from one cycle to the next
	// (whatIf), each window read off it; windows start no earlier than the
	// table's data.
	first := ceilMinute(dataStart)
	runFrom := whatIfStart(b.end)
	if first.After(runFrom) {
		runFrom = first
	}
	var labels []string
	var spans []time.Duration
	for _, w := range CostWindows {
		from := b.end.Add(-w.D)
		if first.After(from) {
			from = first
		}
		if b.end.Sub(from) < minTrace {
			continue
		}
		labels, spans = append(labels, w.Label), append(spans, b.end.Sub(from))
	}
	if len(spans) == 0 {
		return r, nil
	}
	idxs := append([]string{""}, tb.IndexNames()...)
	reads, writes := make([]*history, len(idxs)), make([]*history, len(idxs))
	runs := make([]*whatIf, len(idxs))
	for i, idx := range idxs {
		reads[i], writes[i] = st.hist[historyKey{table: tb.Name, index: idx, write: false}], st.hist[historyKey{table: tb.Name, index: idx, write: true}]
		w, err := c.whatIfFor(st, historyKey{table: tb.Name, index: idx, write: false}, reads[i], writes[i], workloads[i].Settings, provisioned(tb), runFrom, b.end)
		if err != nil {
			if len(idxs) > 1 {
				err = fmt.Errorf("workload %d: %w", i, err)
			}
			return r, fmt.Errorf("capacity what-if of table %s in %s: %w", tb.Name, t.Key(), err)
		}
		runs[i] = w
	}
	hi := minuteIndex(b.end)
	for k, span := range spans {
		from := b.end.Add(-span)
		lo := minuteIndex(from)
		results := make([]capacity.WorkloadResult, len(idxs))
		var diagnosis []IndexDiagnosis
		for i, w := range runs {
			res := capacity.WorkloadResult{Hours: span.Hours(), ReadMethod: w.stream.ReadMethod, WriteMethod: w.stream.WriteMethod,
				Read: w.dims[0].window(lo, hi), Write: w.dims[1].window(lo, hi)}
			res.Read.Demand, res.Write.Demand = reads[i].sum(from, b.end), writes[i].sum(from, b.end)
			results[i] = res
			if w.provisioned {
				diagnosis = append(diagnosis, w.diagnosis(idxs[i], lo, hi, [2]float64{res.Read.Demand, res.Write.Demand}))
			}
		}
		if unpriced {
			r.Costs = append(r.Costs, WindowCost{Window: labels[k], Covered: span, Unpriced: true, Diagnosis: diagnosis})
			continue
		}
		e, err := capacity.EvaluateResults(r.Mode, prices, c.settings.Options, results)
		if err != nil {
			return r, fmt.Errorf("capacity what-if of table %s in %s: %w", tb.Name, t.Key(), err)
		}
		r.Costs = append(r.Costs, WindowCost{Window: labels[k], Covered: span, Evaluation: e, Diagnosis: diagnosis})
		r.classWindow, r.classResults = labels[k], results // the longest window is the last
	}
	// The chart is computed when asked (Reports): about 23 KB per table
	// with 2 GSIs that nothing else reads.
	r.chart = chartSpan{end: b.end, first: runFrom, on: true}
	return r, nil
}

// modeFigures derives the billing-mode figures of a table from its
// provisioned-capacity history; nil without one. The switch counts need no
// price. The judgement's cost change is a ratio of ratios (cost paid over
// the on-demand price of the same units, after over before the switch): it
// depends on the ratio of provisioned to on-demand prices, not on their
// level, so a region without list prices (and no override) is judged at
// us-east-1's, which AWS's regional premium (the same for both modes)
// leaves unchanged; its daily costs, which do depend on the level, are then
// not published.
func (c *Capacity) modeFigures(t *awsclient.Target, st *capacityState, tb *Table) *ModeFigures {
	m := st.modes[tb.Name]
	if m == nil || m.read.Len() == 0 {
		return nil
	}
	read, write := st.hist[historyKey{table: tb.Name}], st.hist[historyKey{table: tb.Name, write: true}]
	if read == nil || write == nil {
		return nil
	}
	priced := true
	prices, err := capacity.PricesForClass(t.Region, tableClass(tb), c.settings.Prices...)
	if err != nil {
		priced = false
		if prices, err = capacity.PricesForClass(proxyPriceRegion, tableClass(tb)); err != nil {
			return nil
		}
	}
	f := m.figures(prices, read.hourly, write.hourly)
	if f.Judged != nil && !priced {
		f.Judged.BeforePerDay, f.Judged.SincePerDay = math.NaN(), math.NaN()
	}
	return &f
}

// proxyPriceRegion is the region whose list prices judge a switch in a
// region without any (modeFigures).
const proxyPriceRegion = "us-east-1"

// chart returns the chart of a report of the last run (hourlyHistory),
// computed from what the collector holds: the histories, and each
// what-if's running simulation advanced again over the minutes still open
// to revision, as the run did (whatIfFor). The histories have been
// compacted since the run: an hour the run read minute by minute and then
// folded into its hourly Sum reads that Sum (float32: within 2^-24 of the
// run's, as the run after it would chart that hour). Empty when the
// report has no chart or its state is gone.
func (st *capacityState) chart(r *TableReport) HourlyHistory {
	if !r.chart.on {
		return HourlyHistory{}
	}
	reads, writes := make([]*history, len(r.Traffic)), make([]*history, len(r.Traffic))
	runs := make([]*whatIf, len(r.Traffic))
	for i, f := range r.Traffic {
		key := historyKey{table: r.Table, index: f.Index, write: false}
		read, write, w := st.hist[key], st.hist[historyKey{table: r.Table, index: f.Index, write: true}], st.whatIf[key]
		if read == nil || write == nil || w == nil {
			return HourlyHistory{}
		}
		end := r.chart.end
		for _, h := range []*history{read, write} {
			if e := h.end(); e.Before(end) {
				end = e
			}
		}
		open := w.clone()
		open.advance(read, write, end)
		reads[i], writes[i], runs[i] = read, write, open
	}
	return hourlyHistory(r.chart.end, r.chart.first, reads, writes, runs)
}

// forgetRecreated drops the history and the what-ifs of every table (and
// its indexes) whose creation time changed since they were built: the table
// was deleted and re-created under the same name, and the old table's
// traffic must not feed the new one's figures. The plan then fetches the
// new table's history afresh from its creation. A table whose creation time
// was unknown records it; tables no longer monitored are forgotten.
func (c *Capacity) forgetRecreated(t *awsclient.Target, st *capacityState, tables []*Table) {
	if st.created == nil {
		st.created = map[string]time.Time{}
	}
	seen := make(map[string]bool, len(tables))
	for _, tb := range tables {
		seen[tb.Name] = true
		at := creation(tb)
		if at.IsZero() {
			continue
		}
		old, ok := st.created[tb.Name]
		st.created[tb.Name] = at
		if !ok || old.Equal(at) {
			continue
		}
		for k := range st.hist {
			if k.table == tb.Name {
				delete(st.hist, k)
			}
		}
		for k := range st.whatIf {
			if k.table == tb.Name {
				delete(st.whatIf, k)
			}
		}
		for k := range st.peakRuns {
			if k.table == tb.Name {
				delete(st.peakRuns, k)
			}
		}
		delete(st.modes, tb.Name)
		delete(st.projections, tb.Name)
		c.logger.Info("table re-created under the same name; its capacity history and what-if start again from its creation", "account", t.Account, "region", t.Region, "table", tb.Name, "old_creation", old, "creation", at)
	}
	for name := range st.created {
		if !seen[name] {
			delete(st.created, name)
		}
	}
}

// whatIfFor returns the what-if of one table or GSI advanced to end: its
// running simulation (started at runFrom when there is none, when the
// history was just fetched, or when the settings changed) advanced over
// the settled minutes, and a copy of it advanced over the minutes still
// open to revision, which is what the windows read.
func (c *Capacity) whatIfFor(st *capacityState, key historyKey, read, write *history, s capacity.Settings, provisioned bool, runFrom, end time.Time) (*whatIf, error) {
	if st.whatIf == nil {
		st.whatIf = map[historyKey]*whatIf{}
	}
	for _, h := range []*history{read, write} {
		if e := h.end(); e.Before(end) {
			end = e // a failed refresh: what is held
		}
	}
	w := st.whatIf[key]
	if w == nil || read.staged != nil || write.staged != nil || !w.runs(s, provisioned) || w.from.After(runFrom) {
		nw, err := newWhatIf(read, write, firstActive(read, write, runFrom, settledAt(end)), s, c.settings.Options.DefaultAutoScaling, provisioned)
		if err != nil {
			delete(st.whatIf, key)
			return nil, err
		}
		nw.from = runFrom
		w = nw
		st.whatIf[key] = w
	}
	w.advance(read, write, settledAt(end))
	longest := CostWindows[0].D
	for _, cw := range CostWindows {
		longest = max(longest, cw.D)
	}
	for k := range w.dims {
		w.dims[k].prune(minuteIndex(end.Add(-longest)), minuteIndex(end.Add(-scalingWindow)))
	}
	open := w.clone()
	open.advance(read, write, end)
	return open, nil
}

// hourlyHistory sums the workloads' consumed capacity and simulated
// provisioned capacity hour by hour over the minutes [first, end), keeping
// the last chartHours.
func hourlyHistory(end, first time.Time, reads, writes []*history, runs []*whatIf) HourlyHistory {
	if len(runs) == 0 || len(reads) != len(runs) || len(writes) != len(runs) {
		return HourlyHistory{}
	}
	first = first.UTC()
	h0 := first.Truncate(time.Hour)
	if s := ceilHour(end).Add(-chartHours * time.Hour); s.After(h0) {
		h0 = s
	}
	hours := int((end.Sub(h0) + time.Hour - 1) / time.Hour)
	if hours <= 0 {
		return HourlyHistory{}
	}
	h := HourlyHistory{Start: h0,
		ConsumedRead: make([]float64, hours), ConsumedWrite: make([]float64, hours),
		ProvisionedRead: make([]float64, hours), ProvisionedWrite: make([]float64, hours)}
	// The hours are read in order: each series' packed hours are decoded
	// once, not once per chart hour.
	readers := make([][2]func(time.Time) float64, len(runs))
	units := make([][2]packedsums.Cursor, len(runs))
	for i, w := range runs {
		readers[i] = [2]func(time.Time) float64{reads[i].hourReader(), writes[i].hourReader()}
		for k := range units[i] {
			units[i][k] = w.dims[k].units.CursorAt(int(max(minuteIndex(h0)/60, w.dims[k].h0) - w.dims[k].h0))
		}
	}
	for j := range hours {
		lo, hi := h0.Add(time.Duration(j)*time.Hour), h0.Add(time.Duration(j+1)*time.Hour)
		if lo.Before(first) {
			lo = first
		}
		if hi.After(end) {
			hi = end
		}
		n := hi.Sub(lo).Minutes()
		if n <= 0 {
			continue
		}
		for i, w := range runs {
			h.ConsumedRead[j] += reads[i].sumWith(readers[i][0], lo, hi) / n / 60
			h.ConsumedWrite[j] += writes[i].sumWith(readers[i][1], lo, hi) / n / 60
			h.ProvisionedRead[j] += w.dims[0].unitMinutesWith(&units[i][0], minuteIndex(lo), minuteIndex(hi)) / n
			h.ProvisionedWrite[j] += w.dims[1].unitMinutesWith(&units[i][1], minuteIndex(lo), minuteIndex(hi)) / n
		}
	}
	return h
}

func ceilMinute(t time.Time) time.Time {
	if f := t.Truncate(time.Minute); !f.Equal(t) {
		return f.Add(time.Minute)
	}
	return t
}

var dimensionLabels = [2]string{"read", "write"}

// metrics renders the reports; NaN figures are omitted.
func (st *capacityState) metrics() []prometheus.Metric {
	var ms []prometheus.Metric
	add := func(name string, v float64, lv ...string) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ms = append(ms, catalogue.MustMetric(name, v, lv...))
		}
	}
	for _, r := range st.reports {
		for _, f := range r.Traffic {
			base := []string{r.Account, r.Region, r.Table, f.Index}
			with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
			add(catalogue.CapacityReadWriteRatio, f.Ratio1d, with("1d")...)
			add(catalogue.CapacityReadWriteRatio, f.Ratio7d, with("7d")...)
			add(catalogue.CapacityReadWriteDrift, f.Drift, base...)
			add(catalogue.CapacityReadWriteWeeklyDrift, f.WeeklyDrift, base...)
			add(catalogue.CapacityReadWriteBaselineDrift, f.BaselineDrift, base...)
			for d, v := range f.PeakToAverage {
				add(catalogue.CapacityPeakToAverage, v, with(dimensionLabels[d], "7d")...)
			}
			add(catalogue.CapacityBaselineUnits, f.Baseline1w, with("1w")...)
			add(catalogue.CapacityBaselineUnits, f.Baseline4w, with("4w")...)
			if s := f.Surge; s != nil {
				add(catalogue.CapacityBaselineUnits, s.Baseline, with("surge")...)
				add(catalogue.CapacityBaselineUnits, s.Pre, with("pre_surge")...)
				add(catalogue.CapacitySurgeRetention, s.Retention, base...)
				add(catalogue.CapacitySurgePeakTimestamp, unixSeconds(s.PeakAt), base...)
			}
		}
		if f := r.Switches; f != nil {
			for k, w := range ModeSwitchWindows {
				if n := f.ToOnDemand[k]; n > 0 {
					add(catalogue.CapacityModeSwitches, float64(n), r.Account, r.Region, r.Table, "on_demand", w.Label)
				}
				if n := f.ToProvisioned[k]; n > 0 {
					add(catalogue.CapacityModeSwitches, float64(n), r.Account, r.Region, r.Table, "provisioned", w.Label)
				}
			}
			if j := f.Judged; j != nil {
				to := "provisioned"
				if j.Switch.ToOnDemand {
					to = "on_demand"
				}
				add(catalogue.CapacityModeSwitchTimestamp, unixSeconds(j.Switch.At), r.Account, r.Region, r.Table, to)
				add(catalogue.CapacityModeSwitchDailyCost, j.BeforePerDay, r.Account, r.Region, r.Table, "before")
				add(catalogue.CapacityModeSwitchDailyCost, j.SincePerDay, r.Account, r.Region, r.Table, "since")
				add(catalogue.CapacityModeSwitchCostChange, j.CostChange, r.Account, r.Region, r.Table)
			}
		}
		for _, w := range r.Warm {
			for k := range 2 {
				add(catalogue.CapacitySuddenPeakUnits, w.SuddenPeak[k], r.Account, r.Region, r.Table, w.Index, dimensionLabels[k])
				add(catalogue.CapacityPeakConsumedUnits, w.Peak30d[k], r.Account, r.Region, r.Table, w.Index, dimensionLabels[k])
			}
		}
		for _, p := range r.Peaks {
			for k, pk := range p.Peaks {
				lv := []string{r.Account, r.Region, r.Table, p.Index, dimensionLabels[k]}
				a := pk.Advice()
				add(catalogue.CapacityPeakAdviceInfo, 1, append(lv, string(pk.Kind), string(a.Action), string(a.Code))...)
				if pr := pk.Proposal; pr != nil {
					add(catalogue.CapacityPeakScheduleMinCapacity, pr.Raise.Min, lv...)
					add(catalogue.CapacityPeakScheduleThrottled, pr.Without.ThrottledUnits, append(lv, "without")...)
					add(catalogue.CapacityPeakScheduleThrottled, pr.With.ThrottledUnits, append(lv, "with")...)
					add(catalogue.CapacityPeakScheduleMonthlyCost, pr.Without.MonthlyCost, append(lv, "without")...)
					add(catalogue.CapacityPeakScheduleMonthlyCost, pr.With.MonthlyCost, append(lv, "with")...)
				}
			}
		}
		if f := r.Class; f != nil {
			for _, x := range f.Storage {
				add(catalogue.CapacityStorageMonthlyCost, x.Monthly, r.Account, r.Region, r.Table, x.Index)
			}
			switch {
			case f.Missing != "":
				add(catalogue.CapacityClassRecommendationInfo, 1, r.Account, r.Region, r.Table, "", ClassRecommendationNone, string(f.Missing))
			case f.Window != "":
				for _, cc := range []capacity.ClassCost{f.Standard, f.StandardIA} {
					add(catalogue.CapacityClassMonthlyCost, cc.Throughput, r.Account, r.Region, r.Table, f.Window, string(cc.Class), "throughput")
					add(catalogue.CapacityClassMonthlyCost, cc.Storage, r.Account, r.Region, r.Table, f.Window, string(cc.Class), "storage")
				}
				add(catalogue.CapacityClassSwitchSaving, f.Advice.Saving, r.Account, r.Region, r.Table, f.Window)
				add(catalogue.CapacityClassRecommendationInfo, 1, r.Account, r.Region, r.Table, f.Window, string(f.Advice.Action), string(f.Advice.Code))
			}
		}
		if f := r.Projection; f != nil {
			growth := 0.0
			if len(f.At) > 0 && (f.Trend.Status == capacity.TrendGrowing || f.Trend.Status == capacity.TrendDeclining) {
				growth = f.Trend.Factor(12) - 1
			}
			if f.Trend.Status == capacity.TrendTooShort || len(f.At) > 0 {
				add(catalogue.CapacityTrafficGrowth, growth, r.Account, r.Region, r.Table, string(f.Trend.Status))
			}
			for k, pc := range f.At {
				h := ProjectionHorizons[k].Label
				add(catalogue.CapacityProjectedMonthlyCost, pc.OnDemand, r.Account, r.Region, r.Table, h, "on_demand")
				add(catalogue.CapacityProjectedMonthlyCost, pc.Provisioned, r.Account, r.Region, r.Table, h, "provisioned")
			}
		}
		for _, wc := range r.Costs {
			e := wc.Evaluation
			lv := []string{r.Account, r.Region, r.Table, wc.Window}
			with := func(extra ...string) []string { return append(append([]string{}, lv...), extra...) }
			for _, d := range wc.Diagnosis {
				d.metrics(add, r, wc.Window)
			}
			if wc.Unpriced {
				continue
			}
			add(catalogue.CapacityCostDollars, e.OnDemand.Total(), with("on_demand")...)
			add(catalogue.CapacityCostDollars, e.Provisioned.Total(), with("provisioned")...)
			add(catalogue.CapacityMonthlySwitchSaving, e.MonthlySaving, lv...)
			add(catalogue.CapacityProvisionedSaving, e.MonthlyOnDemand-e.MonthlyProvisioned, lv...)
			add(catalogue.CapacitySimulatedThrottled, e.Throttled.Read, with("read")...)
			add(catalogue.CapacitySimulatedThrottled, e.Throttled.Write, with("write")...)
			add(catalogue.CapacityTraceSeconds, wc.Covered.Seconds(), lv...)
			add(catalogue.CapacityRecommendationInfo, 1, with(string(e.Recommendation.Action), string(e.Recommendation.Code))...)
		}
	}
	return ms
}

// metrics publishes the diagnosis of one table or GSI over window through
// add.
func (d IndexDiagnosis) metrics(add func(name string, v float64, lv ...string), r TableReport, window string) {
	for k, dd := range d.dimensions() {
		if dd == nil {
			continue
		}
		lv := []string{r.Account, r.Region, r.Table, d.Index, window, dimensionLabels[k]}
		for _, cause := range capacity.Causes() {
			units, minutes := dd.Throttled[cause], dd.SaturatedMinutes[cause]
			if units > 0 {
				add(catalogue.CapacityDiagnosisThrottled, units, append(lv, cause.String())...)
			}
			if minutes > 0 {
				add(catalogue.CapacityDiagnosisSaturated, minutes*60, append(lv, cause.String())...)
			}
			if units > 0 || minutes > 0 {
				add(catalogue.CapacityDiagnosisLastThrottled, unixSeconds(dd.Last[cause]), append(lv, cause.String())...)
			}
		}
		if window == scalingWindowLabel {
			lv := []string{r.Account, r.Region, r.Table, d.Index, dimensionLabels[k], window}
			add(catalogue.CapacitySimulatedScalingEvents, dd.ScalingDecisionsPerDay(), lv...)
			add(catalogue.CapacitySimulatedUtilization, dd.Utilization(), lv...)
		}
	}
}
