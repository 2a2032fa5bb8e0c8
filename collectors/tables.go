// Table facts: DynamoDB DescribeTable, DescribeTimeToLive, (once an hour)
// DescribeContinuousBackups and DescribeLimits (limits.go) and, when tag filters are configured,
// ListTagsOfResource, for every discovered table; the targets are read
// concurrently.
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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
)

// TablesSettings tune the table-facts collector.
type TablesSettings struct {
	// Filter selects the tables by tags (discovery has applied the name
	// patterns).
	Filter config.TableFilter
	// Concurrency bounds how many tables of a target are described at
	// once (raised to 1 when lower).
	Concurrency int
}

// Tables describes every discovered table, applies the tag filters, publishes
// the monitored tables to the inventory and emits the table facts.
type Tables struct {
	targets   []*awsclient.Target
	settings  TablesSettings
	inventory *Inventory
	logger    *slog.Logger
	snap      targetSnapshot
	// pitrPace paces DescribeContinuousBackups per target (key: Target.Key).
	pitrPace map[string]*rate.Limiter
}

// NewTables returns the table-facts collector.
func NewTables(deps Deps, s TablesSettings) *Tables {
	s.Concurrency = max(s.Concurrency, 1)
	c := &Tables{targets: deps.Targets, settings: s, inventory: deps.Inventory, pitrPace: map[string]*rate.Limiter{}}
	c.logger = deps.logger(c.Name())
	for _, t := range deps.Targets {
		c.pitrPace[t.Key()] = rate.NewLimiter(PITRReadsPerSecond, pitrBurst)
	}
	return c
}

// Name implements Collector.
func (c *Tables) Name() string { return "tables" }

// Metrics implements Collector.
func (c *Tables) Metrics() []prometheus.Metric { return c.snap.Metrics() }

// Run implements Collector. A table that cannot be described keeps its last
// known description; a table that no longer exists is dropped. Targets are
// read concurrently, and each one's figures are published as soon as it is
// done: a region that hangs delays no other.
func (c *Tables) Run(ctx context.Context, now time.Time) error {
	return eachTarget(c.targets, maxTargetsInFlight, &c.snap, func(_ int, t *awsclient.Target) ([]prometheus.Metric, error) {
		if !c.inventory.KnowsNames(t.Key()) {
			// Discovery has never succeeded here (its own error says
			// why), so nothing was ever published for the target.
			return nil, nil
		}
		previous := map[string]*Table{}
		for _, tb := range c.inventory.Tables(t.Key()) {
			previous[tb.Name] = tb
		}
		tables, err := c.describeAll(ctx, t, c.inventory.Names(t.Key()), previous, now)
		c.inventory.SetTables(t.Key(), tables)
		if lerr := c.readLimits(ctx, t, now); lerr != nil {
			err = errors.Join(err, lerr)
		}
		ms := []prometheus.Metric{catalogue.MustMetric(catalogue.ExporterTables, float64(len(tables)), t.Account, t.Region)}
		lim, known := c.inventory.Limits(t.Key())
		ms = append(ms, limitsMetrics(t, lim, known)...)
		unread := 0
		for _, tb := range tables {
			ms = append(ms, tableMetrics(t, tb)...)
			ms = append(ms, pitrMetrics(t, tb, now)...)
			if tb.PITRReadAt.IsZero() {
				unread++
			}
		}
		ms = append(ms, catalogue.MustMetric(catalogue.ExporterPITRUnreadTables, float64(unread), t.Account, t.Region))
		return ms, err
	})
}

func (c *Tables) describeAll(ctx context.Context, t *awsclient.Target, names []string, previous map[string]*Table, now time.Time) ([]*Table, error) {
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		errs   []error
		tables []*Table
		sem    = make(chan struct{}, c.settings.Concurrency)
	)
	for _, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tb, gone, err := c.describe(ctx, t, name, previous, now)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				// The table keeps what was known (below).
				errs = append(errs, err)
			}
			switch {
			case gone:
				c.logger.Info("table no longer exists; dropping its series", "account", t.Account, "region", t.Region, "table", name)
			case tb == nil:
				if old, ok := previous[name]; ok {
					tables = append(tables, old)
				}
			case c.settings.Filter.Selects(name, tb.Tags):
				tables = append(tables, tb)
			}
		}()
	}
	wg.Wait()
	return tables, errors.Join(errs...)
}

// describe reads one table. gone is true when the table does not exist any
// more. A table whose TTL, PITR or tags could not be read is returned with
// what is known (the last known TTL and tags; PITR: see readPITR) together
// with the error.
func (c *Tables) describe(ctx context.Context, t *awsclient.Target, name string, previous map[string]*Table, now time.Time) (tb *Table, gone bool, err error) {
	out, err := t.DynamoDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("describing table %s in %s: %w", name, t.Key(), err)
	}
	tb = &Table{Name: name, Description: out.Table}
	var errs []error
	ttl, err := t.DynamoDB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	switch {
	case err == nil:
		tb.TTL = ttl.TimeToLiveDescription
	case isNotFound(err):
		return nil, true, nil
	default:
		// The table is still monitored; only its TTL facts are missing.
		errs = append(errs, fmt.Errorf("describing time to live of table %s in %s: %w", name, t.Key(), err))
		if old, ok := previous[name]; ok {
			tb.TTL = old.TTL
		}
	}
	gone, err = c.readPITR(ctx, t, tb, previous[name], now)
	if gone {
		return nil, true, nil
	}
	if err != nil {
		errs = append(errs, err)
	}
	if c.settings.Filter.NeedsTags() && out.Table.TableArn != nil {
		tags, err := listTags(ctx, t.DynamoDB, out.Table.TableArn)
		if err != nil {
			// Without tags the filters cannot be applied: keep the last decision.
			errs = append(errs, fmt.Errorf("listing tags of table %s in %s: %w", name, t.Key(), err))
			if old, ok := previous[name]; ok {
				tb.Tags = old.Tags
			} else {
				return nil, false, errors.Join(errs...)
			}
		} else {
			tb.Tags = tags
		}
	}
	return tb, false, errors.Join(errs...)
}

func isNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

// PITRInterval is how often the point-in-time recovery setting of a table
// is read. The setting changes rarely (by hand or infrastructure code), and
// AWS allows DescribeContinuousBackups at most 10 calls a second
// (DescribeContinuousBackups API reference), shared with the account's
// backup tooling: every table-facts run (5 minutes by default) would cost
// 1,000 tables 3.3 calls a second, once an hour 0.3. An hour bounds how
// stale "PITR is on" can be when the TTL-deleting-live-data page is read;
// its runbook confirms with the CLI before a restore. The restore window
// does not go stale between reads: see pitrMetrics.
const PITRInterval = time.Hour

// PITRReadsPerSecond paces DescribeContinuousBackups per account and region:
// half of the 10 calls a second AWS allows (DescribeContinuousBackups API
// reference), the other half left to the account's backup tooling. Without
// it the first run after a start would ask for every table at once, as
// fast as the describe concurrency allows, and be throttled together with
// that tooling. The pace does not hold the run back: a table whose turn has
// not come keeps its last answer (none after a start: its PITR families are
// absent and dynamodb_exporter_pitr_unread_tables counts it) and is read at
// a later run. Once every table has been read, the reads spread over the
// hour by themselves: 1,000 tables need 0.3 calls a second.
const PITRReadsPerSecond = 5

// pitrBurst is how many DescribeContinuousBackups calls a target may make at
// once, when it has not called for 2 seconds.
const pitrBurst = 10

// readPITR sets tb.PITR from prev's answer while it is younger than
// PITRInterval or while the target's pace allows no call, else from
// DescribeContinuousBackups. gone is true when the
// table does not exist any more (TableNotFoundException, which the backup
// operations answer instead of ResourceNotFoundException). A denied call
// leaves tb.PITR nil (the families are absent, the error is counted) and is
// retried an interval later: a permission does not come back by itself.
// Any other error keeps the last answer and is retried at the next run.
func (c *Tables) readPITR(ctx context.Context, t *awsclient.Target, tb *Table, prev *Table, now time.Time) (gone bool, err error) {
	if prev != nil && !prev.PITRReadAt.IsZero() && now.Sub(prev.PITRReadAt) < PITRInterval {
		tb.PITR, tb.PITRReadAt = prev.PITR, prev.PITRReadAt
		return false, nil
	}
	if pace := c.pitrPace[t.Key()]; pace != nil && !pace.Allow() {
		// Not this run's turn (PITRReadsPerSecond): what was known stays.
		if prev != nil {
			tb.PITR, tb.PITRReadAt = prev.PITR, prev.PITRReadAt
		}
		return false, nil
	}
	out, err := t.DynamoDB.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(tb.Name)})
	switch {
	case err == nil:
		tb.PITRReadAt = now
		if out.ContinuousBackupsDescription != nil {
			tb.PITR = out.ContinuousBackupsDescription.PointInTimeRecoveryDescription
		}
		return false, nil
	case isTableNotFound(err) || isNotFound(err):
		return true, nil
	case awsclient.IsAccessDenied(err):
		tb.PITRReadAt = now
	default:
		if prev != nil {
			tb.PITR, tb.PITRReadAt = prev.PITR, prev.PITRReadAt
		}
	}
	return false, fmt.Errorf("describing continuous backups of table %s in %s: %w", tb.Name, t.Key(), err)
}

func isTableNotFound(err error) bool {
	var nf *types.TableNotFoundException
	return errors.As(err, &nf)
}

// pitrMetrics are the point-in-time recovery families of tb as of now. The
// earliest restorable time is the later of AWS's answer and now minus the
// recovery period: AWS keeps restores possible "within the recovery period"
// (DescribeContinuousBackups API reference), so between two hourly reads
// the window slides with the clock; AWS's answer holds while PITR has been
// on for less than the period.
func pitrMetrics(t *awsclient.Target, tb *Table, now time.Time) []prometheus.Metric {
	p := tb.PITR
	if p == nil {
		return nil
	}
	acct, region, name := t.Account, t.Region, tb.Name
	on := p.PointInTimeRecoveryStatus == types.PointInTimeRecoveryStatusEnabled
	enabled := 0.0
	if on {
		enabled = 1
	}
	ms := []prometheus.Metric{catalogue.MustMetric(catalogue.TablePITREnabled, enabled, acct, region, name)}
	if !on {
		return ms
	}
	var period time.Duration
	if d := aws.ToInt32(p.RecoveryPeriodInDays); d > 0 {
		period = time.Duration(d) * 24 * time.Hour
		ms = append(ms, catalogue.MustMetric(catalogue.TablePITRRecoveryPeriod, period.Seconds(), acct, region, name))
	}
	if p.EarliestRestorableDateTime != nil {
		earliest := *p.EarliestRestorableDateTime
		if period > 0 && now.Add(-period).After(earliest) {
			earliest = now.Add(-period)
		}
		ms = append(ms, catalogue.MustMetric(catalogue.TablePITREarliestRestorable, unixSeconds(earliest), acct, region, name))
	}
	return ms
}

func listTags(ctx context.Context, api awsclient.DynamoDBAPI, arn *string) (map[string]string, error) {
	tags := map[string]string{}
	in := &dynamodb.ListTagsOfResourceInput{ResourceArn: arn}
	for {
		page, err := api.ListTagsOfResource(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, tag := range page.Tags {
			tags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
		}
		if page.NextToken == nil {
			return tags, nil
		}
		in.NextToken = page.NextToken
	}
}

func tableMetrics(t *awsclient.Target, tb *Table) []prometheus.Metric {
	d := tb.Description
	acct, region, name := t.Account, t.Region, tb.Name
	class := string(types.TableClassStandard)
	if d.TableClassSummary != nil && d.TableClassSummary.TableClass != "" {
		class = string(d.TableClassSummary.TableClass)
	}
	ms := []prometheus.Metric{
		catalogue.MustMetric(catalogue.TableInfo, 1, acct, region, name, tb.BillingModeLabel(), class, string(d.TableStatus)),
	}
	if tb.TTL != nil {
		ms = append(ms, catalogue.MustMetric(catalogue.TableTTLInfo, 1, acct, region, name,
			tb.TTLStatus(), aws.ToString(tb.TTL.AttributeName)))
	}
	ms = append(ms, replicaMetrics(acct, region, name, d)...)
	if d.CreationDateTime != nil {
		ms = append(ms, catalogue.MustMetric(catalogue.TableCreationTimestamp, unixSeconds(*d.CreationDateTime), acct, region, name))
	}
	if d.BillingModeSummary != nil && d.BillingModeSummary.LastUpdateToPayPerRequestDateTime != nil {
		ms = append(ms, catalogue.MustMetric(catalogue.LastSwitchToOnDemandTimestamp,
			unixSeconds(*d.BillingModeSummary.LastUpdateToPayPerRequestDateTime), acct, region, name))
	}
	provisioned := tb.BillingMode() == string(types.BillingModeProvisioned)
	add := func(index string, items, size *int64, pt *types.ProvisionedThroughputDescription, od *types.OnDemandThroughput) {
		if items != nil {
			ms = append(ms, catalogue.MustMetric(catalogue.Items, float64(*items), acct, region, name, index))
		}
		if size != nil {
			ms = append(ms, catalogue.MustMetric(catalogue.SizeBytes, float64(*size), acct, region, name, index))
		}
		if provisioned && pt != nil {
			ms = append(ms,
				catalogue.MustMetric(catalogue.ProvisionedReadCapacityUnits, float64(aws.ToInt64(pt.ReadCapacityUnits)), acct, region, name, index),
				catalogue.MustMetric(catalogue.ProvisionedWriteCapacityUnits, float64(aws.ToInt64(pt.WriteCapacityUnits)), acct, region, name, index),
				catalogue.MustMetric(catalogue.ProvisionedDecreasesToday, float64(aws.ToInt64(pt.NumberOfDecreasesToday)), acct, region, name, index),
			)
		}
		if od != nil {
			if v := aws.ToInt64(od.MaxReadRequestUnits); v > 0 {
				ms = append(ms, catalogue.MustMetric(catalogue.OnDemandMaxReadRequestUnits, float64(v), acct, region, name, index))
			}
			if v := aws.ToInt64(od.MaxWriteRequestUnits); v > 0 {
				ms = append(ms, catalogue.MustMetric(catalogue.OnDemandMaxWriteRequestUnits, float64(v), acct, region, name, index))
			}
		}
	}
	add("", d.ItemCount, d.TableSizeBytes, d.ProvisionedThroughput, d.OnDemandThroughput)
	for _, g := range d.GlobalSecondaryIndexes {
		add(aws.ToString(g.IndexName), g.ItemCount, g.IndexSizeBytes, g.ProvisionedThroughput, g.OnDemandThroughput)
	}
	for _, w := range WarmThroughputs(d) {
		for k, v := range w.Units {
			if !math.IsNaN(v) {
				ms = append(ms, catalogue.MustMetric(catalogue.WarmThroughputUnits, v, acct, region, name, w.Index, dimensionLabels[k], w.Status))
			}
		}
	}
	return ms
}

// replicaMetrics are the global-table families of a described table: none
// for a table of one region; the global info when DescribeTable answers a
// GlobalTableVersion or replicas; a replica info per listed replica (a
// replica without a region is skipped; one without a status says
// Unknown).
func replicaMetrics(acct, region, name string, d *types.TableDescription) []prometheus.Metric {
	version := aws.ToString(d.GlobalTableVersion)
	if version == "" && len(d.Replicas) == 0 {
		return nil
	}
	if version == "" {
		version = Unknown
	}
	ms := []prometheus.Metric{catalogue.MustMetric(catalogue.TableGlobalInfo, 1, acct, region, name, version, string(d.MultiRegionConsistency))}
	seen := map[string]bool{}
	for _, r := range d.Replicas {
		rg := aws.ToString(r.RegionName)
		if rg == "" || seen[rg] {
			continue
		}
		seen[rg] = true
		status := string(r.ReplicaStatus)
		if status == "" {
			status = Unknown
		}
		ms = append(ms, catalogue.MustMetric(catalogue.TableReplicaInfo, 1, acct, region, name, rg, status))
	}
	return ms
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
