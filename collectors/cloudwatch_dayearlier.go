package collectors

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// The TTL deletion rate a day earlier
// (dynamodb_ttl_deletion_rate_day_earlier_items_per_second): a table's
// deletions follow its writers' daily cycle, and a rule that judges the
// last hour's deletions against the same hour a day before needs that day
// from the exporter's first cycle, not a day after Prometheus started
// holding the counter. Once an hour, each table whose
// TimeToLiveDeletedItemCount CloudWatch lists gets one query of 5-minute
// Sums over the two hours from 25 hours before the cycle's end: the hour
// that ended 24 hours before any end of the next hour lies within them.
// CloudWatch keeps 1-minute data 15 days and 5-minute data 63 days
// ("Metrics retention", Amazon CloudWatch User Guide), so the day-old data
// are there at their full resolution; a period without a datapoint had no
// deletion.
const (
	dayEarlierStep = 5 * time.Minute
	dayEarlierBins = 24 // two hours
	dayEarlierHour = int(time.Hour / dayEarlierStep)
	dayEarlierLag  = 25 * time.Hour
)

// dayEarlier holds one table's deletions over two hours a day back, in
// 5-minute bins from start.
type dayEarlier struct {
	start unixTime
	sums  [dayEarlierBins]float32
}

// rateAt returns the deletions per second over [end−25h, end−24h), from the
// bins that cover it (end's 5-minute period), and false when they do not.
func (d *dayEarlier) rateAt(end time.Time) (float64, bool) {
	if d == nil {
		return 0, false
	}
	lo := end.Truncate(dayEarlierStep).Add(-dayEarlierLag)
	i := int(lo.Sub(d.start.time()) / dayEarlierStep)
	if lo.Before(d.start.time()) || i+dayEarlierHour > dayEarlierBins {
		return 0, false
	}
	var s float64
	for _, v := range d.sums[i : i+dayEarlierHour] {
		s += float64(v)
	}
	return s / time.Hour.Seconds(), true
}

// fetchDayEarlier refreshes the day-earlier deletions of the tables whose
// TTL deletions are queried this cycle (keys), forgetting the others; a
// table's bins are fetched again once they no longer cover end. A failed
// request leaves its tables without a figure until the next cycle
// succeeds (no stale figure: the bins of another hour are dropped).
func (c *CloudWatch) fetchDayEarlier(ctx context.Context, t *awsclient.Target, st *targetState, keys []seriesKey, end time.Time) error {
	tables := map[string]bool{}
	for _, k := range keys {
		if specs[k.spec].family == catalogue.TTLDeletedItemsTotal {
			tables[k.table] = true
		}
	}
	for name := range st.dayEarlier {
		if !tables[name] {
			delete(st.dayEarlier, name)
		}
	}
	var due []string
	for name := range tables {
		if _, ok := st.dayEarlier[name].rateAt(end); !ok {
			delete(st.dayEarlier, name)
			due = append(due, name)
		}
	}
	if len(due) == 0 {
		return nil
	}
	if st.dayEarlier == nil {
		st.dayEarlier = map[string]*dayEarlier{}
	}
	sort.Strings(due)
	start := end.Truncate(dayEarlierStep).Add(-dayEarlierLag)
	var errs []error
	for lo := 0; lo < len(due); lo += MaxQueriesPerRequest {
		batch := due[lo:min(lo+MaxQueriesPerRequest, len(due))]
		got, err := queryDayEarlier(ctx, t, batch, start)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for name, d := range got {
			st.dayEarlier[name] = d
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("TTL deletions a day earlier: %w", errors.Join(errs...))
	}
	return nil
}

// queryDayEarlier asks CloudWatch for the 5-minute Sums of
// TimeToLiveDeletedItemCount of tables over [start, start+2h).
func queryDayEarlier(ctx context.Context, t *awsclient.Target, tables []string, start time.Time) (map[string]*dayEarlier, error) {
	stop := start.Add(dayEarlierBins * dayEarlierStep)
	in := &cloudwatch.GetMetricDataInput{StartTime: aws.Time(start), EndTime: aws.Time(stop), ScanBy: cwtypes.ScanByTimestampAscending}
	out := make(map[string]*dayEarlier, len(tables))
	byID := make(map[string]*dayEarlier, len(tables))
	for i, name := range tables {
		id := fmt.Sprintf("d%d", i)
		d := &dayEarlier{start: toUnixTime(start)}
		out[name], byID[id] = d, d
		in.MetricDataQueries = append(in.MetricDataQueries, cwtypes.MetricDataQuery{
			Id: aws.String(id),
			MetricStat: &cwtypes.MetricStat{
				Metric: &cwtypes.Metric{Namespace: aws.String(CloudWatchNamespace), MetricName: aws.String("TimeToLiveDeletedItemCount"),
					Dimensions: []cwtypes.Dimension{{Name: aws.String("TableName"), Value: aws.String(name)}}},
				Period: aws.Int32(int32(dayEarlierStep / time.Second)),
				Stat:   aws.String("Sum"),
			},
			ReturnData: aws.Bool(true),
		})
	}
	seen := map[*dayEarlier]map[time.Time]bool{}
	pager := cloudwatch.NewGetMetricDataPaginator(t.CloudWatch, in)
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("GetMetricData in %s (%d queries): %w", t.Key(), len(tables), err)
		}
		for _, r := range page.MetricDataResults {
			d := byID[aws.ToString(r.Id)]
			if d == nil {
				continue
			}
			if r.StatusCode != cwtypes.StatusCodeComplete && r.StatusCode != cwtypes.StatusCodePartialData {
				return nil, fmt.Errorf("GetMetricData in %s: TimeToLiveDeletedItemCount a day earlier answered status %s", t.Key(), r.StatusCode)
			}
			if len(r.Timestamps) != len(r.Values) {
				return nil, fmt.Errorf("GetMetricData in %s: TimeToLiveDeletedItemCount a day earlier answered %d timestamps and %d values", t.Key(), len(r.Timestamps), len(r.Values))
			}
			for i, ts := range r.Timestamps {
				if ts.Before(start) || !ts.Before(stop) {
					continue
				}
				if seen[d] == nil {
					seen[d] = map[time.Time]bool{}
				}
				if seen[d][ts] { // answered twice: one datapoint
					continue
				}
				seen[d][ts] = true
				d.sums[int(ts.Sub(start)/dayEarlierStep)] += float32(r.Values[i])
			}
		}
	}
	return out, nil
}

// dayEarlierMetrics returns the day-earlier deletion rate of each table
// whose bins cover end, in table order.
func (st *targetState) dayEarlierMetrics(t *awsclient.Target, end time.Time) []prometheus.Metric {
	names := make([]string, 0, len(st.dayEarlier))
	for name := range st.dayEarlier {
		names = append(names, name)
	}
	sort.Strings(names)
	var ms []prometheus.Metric
	for _, name := range names {
		if v, ok := st.dayEarlier[name].rateAt(end); ok {
			ms = append(ms, catalogue.MustMetric(catalogue.TTLDeletionRateDayEarlier, v, t.Account, t.Region, name))
		}
	}
	return ms
}
