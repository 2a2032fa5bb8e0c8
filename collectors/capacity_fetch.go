// GetMetricData requests of the capacity collector: one query per series
// (table or GSI, read or write) and window, Period 60/300/3600, Stat Sum,
// packed into requests of at most 500 queries and 100,800 datapoints so that
// no request paginates and every query is billed once.
package collectors

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
)

// historyKey identifies one consumed-capacity series.
type historyKey struct {
	table, index string
	write        bool
}

func (k historyKey) metric() string {
	if k.write {
		return "ConsumedWriteCapacityUnits"
	}
	return "ConsumedReadCapacityUnits"
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

// queryResult is the datapoints of one query.
type queryResult struct {
	ts []time.Time
	vs []float64
}

// fetchBatch runs one request (all queries share a window), following
// NextToken should CloudWatch paginate anyway.
func fetchBatch(ctx context.Context, t *awsclient.Target, batch []historyQuery) ([]queryResult, error) {
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
				Stat:   aws.String("Sum"),
			},
			ReturnData: aws.Bool(true),
		})
	}
	out := make([]queryResult, len(batch))
	pager := cloudwatch.NewGetMetricDataPaginator(t.CloudWatch, in)
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
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
			out[i].ts = append(out[i].ts, r.Timestamps...)
			out[i].vs = append(out[i].vs, r.Values...)
		}
	}
	return out, nil
}
